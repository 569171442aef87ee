import type { SessionReads, SessionRecords } from '../../services/store/session-records';
import {
  accountView,
  type SessionCheck,
  type SessionQuery,
  type StoredSession,
  type StoredUser,
} from '../../services/types';
import { copySession, copyUser, newestFirst } from './copies';
import { permissionAnswer, roleAnswer } from './memory-access-records';
import { dropEmailChange, deleteSessionsOf } from './memory-session-ends';
import { membershipKey, type MemoryData, type MemoryState } from './memory-state';

/** Sessions as the request path reads them: the committed ones, without waiting for a running transaction. */
export class MemorySessionReads implements SessionReads {
  private readonly data: MemoryData;

  constructor(private readonly state: MemoryState) {
    this.data = state.committed;
  }

  async check(tokenHash: string, query?: SessionQuery): Promise<SessionCheck | null> {
    const found = this.sessionAndUser(tokenHash);
    if (!found) return null;
    const { session, user } = found;
    return {
      user: accountView(user),
      disabled: user.disabledAt !== null,
      expiresAt: new Date(session.expiresAt),
      lastSeenAt: new Date(session.lastSeenAt),
      methods: session.methods,
      ...(query?.kind === 'membership' && {
        membership: this.data.memberships.get(membershipKey(query.organizationId, user.id))?.role ?? null,
      }),
      ...(query &&
        query.kind !== 'membership' && {
          access:
            query.kind === 'role'
              ? roleAnswer(this.data, user.id, query.name)
              : permissionAnswer(this.data, user.id, query.name),
        }),
    };
  }

  async findWithUser(tokenHash: string): Promise<{ session: StoredSession; user: StoredUser } | null> {
    const found = this.sessionAndUser(tokenHash);
    return found && { session: copySession(found.session), user: copyUser(found.user) };
  }

  /** The session and its user, as stored; none when it was issued under an earlier credential state of its user. */
  private sessionAndUser(tokenHash: string): { session: StoredSession; user: StoredUser } | null {
    const session = this.data.sessions.get(tokenHash);
    const user = session && this.data.users.get(session.userId);
    if (!session || user?.credentialEpoch !== session.credentialEpoch) return null;
    return { session, user };
  }

  async list(userId: string): Promise<StoredSession[]> {
    return this.data.sessions
      .ownedBy(userId)
      .map(([, session]) => session)
      .sort(newestFirst)
      .map(copySession);
  }

  /** No transaction writes `lastSeenAt`, so this commutes with a running one and need not wait for it. */
  async touch(tokenHash: string, lastSeenAt: Date): Promise<void> {
    this.state.changeSession(tokenHash, (session) => ({ ...session, lastSeenAt: new Date(lastSeenAt) }));
  }
}

/** Sessions inside a transaction. */
export class MemorySessionRecords implements SessionRecords {
  constructor(private readonly data: MemoryData) {}

  async create(session: StoredSession): Promise<boolean> {
    const user = this.data.users.get(session.userId);
    if (user?.credentialEpoch !== session.credentialEpoch || user.disabledAt !== null) return false;
    if (this.data.sessions.has(session.tokenHash)) throw new Error('MemoryUserStore: duplicate session token hash');
    // The unique index on `id` throws for a duplicate public name.
    this.data.sessions.set(session.tokenHash, copySession(session));
    this.data.lastSignIns.set(user.id, new Date(session.createdAt));
    return true;
  }

  async delete(tokenHash: string): Promise<boolean> {
    return this.data.sessions.delete(tokenHash);
  }

  async deleteById(userId: string, sessionId: string): Promise<boolean> {
    const session = this.data.sessions.lookup('id', sessionId);
    if (session?.userId !== userId) return false;
    return this.data.sessions.delete(session.tokenHash);
  }

  async deleteAll(userId: string, at: Date): Promise<number | null> {
    if (!this.data.users.has(userId)) return null;
    const ended = deleteSessionsOf(this.data, userId);
    dropEmailChange(this.data, userId, at);
    return ended;
  }

  async deleteOthers(userId: string, keepTokenHash: string, at: Date): Promise<number | null> {
    if (!this.data.users.has(userId)) return null;
    const ended = deleteSessionsOf(this.data, userId, (session) => session.tokenHash !== keepTokenHash);
    const kept = this.data.sessions.get(keepTokenHash);
    dropEmailChange(this.data, userId, at, kept?.userId === userId ? kept.id : null);
    return ended;
  }

  async markAuthenticated(tokenHash: string, credentialEpoch: number, at: Date): Promise<boolean> {
    const session = this.data.sessions.get(tokenHash);
    if (!session || this.data.users.get(session.userId)?.credentialEpoch !== credentialEpoch) return false;
    this.data.sessions.set(tokenHash, { ...session, authenticatedAt: new Date(at) });
    return true;
  }
}
