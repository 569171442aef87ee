import type {
  CreateUserResult,
  DeleteConditions,
  DeleteUserResult,
  MarkVerifiedResult,
  NewUser,
  ProtectedChangeResult,
  UserRecords,
} from '../../services/store/user-records';
import type { StoredToken, StoredUser } from '../../services/types';
import { copyToken, copyUser, isAtOrBefore } from './copies';
import { isLastEnabledHolder } from './memory-access-records';
import { failPendingLinks, supersedeMessages } from './memory-outbox-records';
import { deleteSessionsOf } from './memory-session-ends';
import { removeUser, type MemoryData } from './memory-state';
import { consumeToken, deleteTokensOf } from './memory-token-records';

/**
 * Users, read outside a transaction or written in one. `usernameKey` is a unique index of the users table, and so is
 * `emailKey` among verified users (the owner of an address): a clash throws, as a database constraint would.
 */
export class MemoryUserRecords implements UserRecords {
  constructor(private readonly data: MemoryData) {}

  async findById(id: string): Promise<StoredUser | null> {
    return copyOf(this.data.users.get(id));
  }

  async findByUsernameKey(usernameKey: string): Promise<StoredUser | null> {
    return copyOf(this.data.users.lookup('usernameKey', usernameKey));
  }

  async findVerifiedByEmailKey(emailKey: string): Promise<StoredUser | null> {
    return copyOf(this.data.users.lookup('emailKey', emailKey));
  }

  async findUnverifiedByEmailKey(emailKey: string, createdAfter: Date, limit: number): Promise<StoredUser[]> {
    return [...this.data.users.values()]
      .filter((user) => !user.verified && user.emailKey === emailKey && !isAtOrBefore(user.createdAt, createdAfter))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, Math.max(0, limit))
      .map(copyUser);
  }

  async create(user: NewUser, verification: StoredToken, expiredUnverifiedBefore?: Date): Promise<CreateUserResult> {
    const { data } = this;
    const holder = data.users.lookup('usernameKey', user.usernameKey);
    const holderExpired =
      holder !== undefined &&
      !holder.verified &&
      expiredUnverifiedBefore !== undefined &&
      isAtOrBefore(holder.createdAt, expiredUnverifiedBefore);
    if (holder && !holderExpired) return { ok: false, conflict: 'username' };
    if (data.users.has(user.id)) throw new Error('MemoryUserStore: duplicate user id');
    if (data.tokens.has(verification.tokenHash)) throw new Error('MemoryUserStore: duplicate token hash');

    if (holder) removeUser(data, holder);
    const { passwordHash, ...fields } = user;
    const stored = copyUser({
      ...fields,
      verified: false,
      updatedAt: user.createdAt,
      disabledAt: null,
      credentialEpoch: 0,
    });
    data.users.set(stored.id, stored);
    if (passwordHash !== null) data.passwords.set(stored.id, passwordHash);
    data.tokens.set(verification.tokenHash, copyToken(verification));
    const owner = data.users.lookup('emailKey', stored.emailKey);
    return { ok: true, user: copyUser(stored), owner: owner ? copyUser(owner) : null };
  }

  async confirmAddress(tokenHash: string, now: Date): Promise<StoredUser | null> {
    const user = consumeToken(this.data, tokenHash, 'verify_email', now);
    if (!user) return null;
    if (this.data.users.lookup('emailKey', user.emailKey)) return null;
    return copyUser(makeOwner(this.data, user, now));
  }

  async markVerified(userId: string, now: Date): Promise<MarkVerifiedResult> {
    const { data } = this;
    const user = data.users.get(userId);
    if (!user) return 'unknown_user';
    if (user.verified) return 'already_verified';
    if (verifiedOwnerOf(data, user.emailKey, userId)) return 'address_owned';
    makeOwner(data, user, now);
    deleteTokensOf(data, userId, 'verify_email');
    supersedeMessages(data, userId, 'verification', now);
    return 'verified';
  }

  async delete(userId: string, at: Date, conditions: DeleteConditions = {}): Promise<DeleteUserResult> {
    const { data } = this;
    const { authorisation, keepLastHolderOf } = conditions;
    const user = data.users.get(userId);
    if (!user) return { outcome: 'unknown_user' };
    if (authorisation) {
      if (user.credentialEpoch !== authorisation.credentialEpoch) return { outcome: 'unauthorised' };
      if (data.sessions.get(authorisation.sessionTokenHash)?.userId !== userId) return { outcome: 'unauthorised' };
    }
    if (keepLastHolderOf !== undefined && isLastEnabledHolder(data, userId, keepLastHolderOf)) {
      return { outcome: 'last_holder' };
    }
    // Its links die with its tokens and its pending change.
    failPendingLinks(data, user.id, at);
    removeUser(data, user);
    return { outcome: 'deleted', user: copyUser(user) };
  }

  async disable(userId: string, at: Date, keepLastHolderOf?: string): Promise<ProtectedChangeResult> {
    const { data } = this;
    const user = data.users.get(userId);
    if (!user) return 'unknown_user';
    const enabled = user.disabledAt === null;
    if (enabled && keepLastHolderOf !== undefined && isLastEnabledHolder(data, userId, keepLastHolderOf)) {
      return 'last_holder';
    }
    if (enabled) data.users.set(userId, { ...user, disabledAt: new Date(at), updatedAt: new Date(at) });
    deleteSessionsOf(data, userId);
    deleteTokensOf(data, userId);
    data.emailChanges.deleteOwnedBy(userId);
    data.loginChallenges.deleteOwnedBy(userId);
    failPendingLinks(data, userId, at);
    return 'ok';
  }

  async enable(userId: string, now: Date): Promise<'ok' | 'unknown_user'> {
    const user = this.data.users.get(userId);
    if (!user) return 'unknown_user';
    if (user.disabledAt !== null) this.data.users.set(userId, { ...user, disabledAt: null, updatedAt: new Date(now) });
    return 'ok';
  }
}

/** The verified account that owns the address, other than `exceptUserId`. */
export function verifiedOwnerOf(data: MemoryData, emailKey: string, exceptUserId: string): StoredUser | undefined {
  const owner = data.users.lookup('emailKey', emailKey);
  return owner?.id === exceptUserId ? undefined : owner;
}

/** The user becomes the owner of its address; the other unverified registrations of it end. Returns the new row. */
function makeOwner(data: MemoryData, user: StoredUser, now: Date): StoredUser {
  const verified: StoredUser = { ...user, verified: true, updatedAt: new Date(now) };
  data.users.set(user.id, verified);
  for (const other of [...data.users.values()]) {
    if (!other.verified && other.emailKey === user.emailKey) endRegistration(data, other, now);
  }
  return verified;
}

/** Another registration proved the address: this one goes, and its pending links die with its tokens. */
export function endRegistration(data: MemoryData, user: StoredUser, now: Date): void {
  failPendingLinks(data, user.id, now);
  removeUser(data, user);
}

function copyOf(user: StoredUser | undefined): StoredUser | null {
  return user ? copyUser(user) : null;
}
