import { randomUUID } from 'node:crypto';
import type { AuditDetails, AuditEvent, AuditQuery, NewAuditEvent } from '../services/audit-event';
import { carriesLink, changeInstant, SUPERSEDED_ERROR, type OutboxKind } from '../services/outbox-message';
import { accountView } from '../services/types';
import {
  AccessAnswer,
  AccessQuery,
  Authorisation,
  ClaimedMessage,
  CreateUserOptions,
  CreateUserResult,
  EmailChangeMessages,
  EmailChangeRequestResult,
  EmailChangeResult,
  ExpiryCutoffs,
  GrantResult,
  AccessChangeRefusal,
  MarkVerifiedResult,
  NewOutboxMessage,
  NewUser,
  OutboxEntry,
  OutboxQuery,
  ProtectedChangeResult,
  RetryTarget,
  RevokeRoleResult,
  RoleSummary,
  SecondFactorEnabling,
  SessionCheck,
  StoredEmailChange,
  StoredLoginChallenge,
  StoredSecondFactor,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
  UserDetails,
  UserListQuery,
  UserStore,
} from '../services/user-store';

/**
 * A `UserStore` kept in process memory, for tests and demos; everything is lost on exit.
 *
 * Every method does all of its checks and writes synchronously, with no `await` in between, so each one is atomic
 * with respect to every other call. Rows are copied on the way in and on the way out: callers can never reach a stored
 * object. Like a database with foreign keys, it throws on tokens of unknown users and on duplicate token hashes; a
 * session whose user is gone or whose password hash changed is refused (`createSession` answers false).
 *
 * @example
 * const store = new MemoryUserStore();
 * Container.set(USER_STORE, store);
 */
export class MemoryUserStore implements UserStore {
  private readonly users = new Map<string, StoredUser>();
  private readonly userIdByUsernameKey = new Map<string, string>();
  /** Email key → the verified user that owns the address (unverified registrations own nothing). */
  private readonly userIdByEmailKey = new Map<string, string>();
  private readonly sessions = new Map<string, StoredSession>();
  /** Session id → token hash: the public name is unique, as a database's index keeps it. */
  private readonly sessionHashById = new Map<string, string>();
  /** Token hash → the pending change of address; at most one per user. */
  private readonly emailChanges = new Map<string, StoredEmailChange>();
  private readonly tokens = new Map<string, StoredToken>();
  /** Role name → names of the permissions it carries. */
  private readonly roles = new Map<string, Set<string>>();
  private readonly permissions = new Set<string>();
  /** User id → names of the roles granted to the user. */
  private readonly userRoles = new Map<string, Set<string>>();
  /** Message id → message, in insertion order. */
  private readonly outbox = new Map<string, OutboxRow>();
  /** User id → the user's second factor, enabled or waiting. */
  private readonly secondFactors = new Map<string, StoredSecondFactor>();
  /** Code hash → the recovery code's user (the hash is unique, as a primary key keeps it). */
  private readonly recoveryCodes = new Map<string, string>();
  /** Token hash → login challenge. */
  private readonly loginChallenges = new Map<string, StoredLoginChallenge>();
  /** User id → the creation of the user's latest session. */
  private readonly lastSignIns = new Map<string, Date>();
  /** Event id → event, in insertion order (the trail; nothing changes an event). */
  private readonly auditEvents = new Map<string, AuditEvent>();

  async createUser(
    user: NewUser,
    verification: StoredToken,
    options: CreateUserOptions = {},
  ): Promise<CreateUserResult> {
    const holder = this.users.get(this.userIdByUsernameKey.get(user.usernameKey) ?? '');
    const holderExpired =
      holder !== undefined &&
      !holder.verified &&
      options.expiredUnverifiedBefore !== undefined &&
      isAtOrBefore(holder.createdAt, options.expiredUnverifiedBefore);
    if (holder && !holderExpired) return { ok: false, conflict: 'username' };
    if (this.users.has(user.id)) throw new Error('MemoryUserStore: duplicate user id');
    this.assertTokenHashFree(verification);
    this.assertMessageIdFree(options.link);
    this.assertMessageIdFree(options.ownerNotice);
    this.assertAuditIdFree(options.audit);

    if (holder) this.removeUser(holder);
    const stored = copyUser({ ...user, verified: false, updatedAt: user.createdAt, disabledAt: null });
    this.users.set(stored.id, stored);
    this.userIdByUsernameKey.set(stored.usernameKey, stored.id);
    this.tokens.set(verification.tokenHash, copyToken(verification));
    const owner = this.users.get(this.userIdByEmailKey.get(stored.emailKey) ?? '');
    if (owner) this.insertMessage(owner, options.ownerNotice);
    else this.insertMessage(stored, options.link);
    this.insertAudit(options.audit, stored.id);
    return { ok: true, user: copyUser(stored), addressOwned: owner !== undefined };
  }

  async findUserById(id: string): Promise<StoredUser | null> {
    return this.copyOfUser(id);
  }

  async findUserByUsernameKey(usernameKey: string): Promise<StoredUser | null> {
    return this.copyOfUser(this.userIdByUsernameKey.get(usernameKey));
  }

  async findVerifiedUserByEmailKey(emailKey: string): Promise<StoredUser | null> {
    return this.copyOfUser(this.userIdByEmailKey.get(emailKey));
  }

  async findUnverifiedUsersByEmailKey(emailKey: string, createdAfter: Date, limit: number): Promise<StoredUser[]> {
    return [...this.users.values()]
      .filter((user) => !user.verified && user.emailKey === emailKey && !isAtOrBefore(user.createdAt, createdAfter))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, Math.max(0, limit))
      .map(copyUser);
  }

  async findUserByToken(tokenHash: string, purpose: TokenPurpose, now: Date): Promise<StoredUser | null> {
    return this.copyOfUser(this.liveToken(tokenHash, purpose, now)?.userId);
  }

  async replaceToken(token: StoredToken, message?: NewOutboxMessage, audit?: NewAuditEvent): Promise<void> {
    const user = this.users.get(token.userId);
    if (!user) throw new Error('MemoryUserStore: no user with that id');
    // A disabled account gets no new token.
    if (user.disabledAt) return;
    const existing = this.tokens.get(token.tokenHash);
    const existingIsSuperseded = existing?.userId === token.userId && existing.purpose === token.purpose;
    if (existing && !existingIsSuperseded) throw new Error('MemoryUserStore: duplicate token hash');
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);

    this.deleteTokensOf(token.userId, token.purpose);
    this.tokens.set(token.tokenHash, copyToken(token));
    this.insertAudit(audit, user.id);
    if (message) {
      this.supersedeMessages(user.id, message.kind, message.createdAt);
      this.insertMessage(user, message);
    }
  }

  async verifyEmail(
    tokenHash: string,
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<StoredUser | null> {
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);
    const user = this.consumeToken(tokenHash, 'verify_email', now);
    if (!user) return null;
    if (this.userIdByEmailKey.has(user.emailKey)) return null;
    this.makeOwner(user, now);
    this.insertMessage(user, message);
    this.insertAudit(audit, user.id);
    return copyUser(user);
  }

  async resetPassword(
    tokenHash: string,
    newPasswordHash: string,
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<StoredUser | null> {
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);
    const user = this.consumeToken(tokenHash, 'reset_password', now);
    if (!user) return null;
    this.replacePasswordEndingSessions(user, newPasswordHash, now);
    this.insertMessage(user, message);
    this.insertAudit(audit, user.id);
    return copyUser(user);
  }

  async changePassword(
    userId: string,
    expectedHash: string,
    newPasswordHash: string,
    now: Date,
    message?: NewOutboxMessage,
    sessionTokenHash?: string,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    const user = this.users.get(userId);
    if (!user || user.passwordHash !== expectedHash) return false;
    if (sessionTokenHash !== undefined && this.sessions.get(sessionTokenHash)?.userId !== userId) return false;
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);
    this.replacePasswordEndingSessions(user, newPasswordHash, now);
    this.insertMessage(user, message);
    this.insertAudit(audit, user.id);
    return true;
  }

  async rehashPassword(userId: string, expectedHash: string, newPasswordHash: string, now: Date): Promise<boolean> {
    const user = this.users.get(userId);
    if (!user || user.passwordHash !== expectedHash) return false;
    user.passwordHash = newPasswordHash;
    user.updatedAt = new Date(now);
    return true;
  }

  async deleteUser(
    userId: string,
    message?: NewOutboxMessage,
    authorisation?: Authorisation,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    const user = this.users.get(userId);
    if (!user) return false;
    if (authorisation) {
      if (user.passwordHash !== authorisation.passwordHash) return false;
      if (this.sessions.get(authorisation.sessionTokenHash)?.userId !== userId) return false;
    }
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);
    this.insertMessage(user, message);
    // Its links die with its tokens and its pending change; the notice just queued carries none and goes.
    this.failPendingLinks(user.id, changeInstant(audit, message));
    this.removeUser(user);
    this.insertAudit(audit, userId);
    return true;
  }

  async createSession(session: StoredSession, passwordHash: string, audit?: NewAuditEvent): Promise<boolean> {
    const user = this.users.get(session.userId);
    if (user?.passwordHash !== passwordHash || user.disabledAt !== null) return false;
    if (this.sessions.has(session.tokenHash)) throw new Error('MemoryUserStore: duplicate session token hash');
    if (this.sessionHashById.has(session.id)) throw new Error('MemoryUserStore: duplicate session id');
    this.assertAuditIdFree(audit);
    this.sessions.set(session.tokenHash, copySession(session));
    this.sessionHashById.set(session.id, session.tokenHash);
    this.lastSignIns.set(user.id, new Date(session.createdAt));
    this.insertAudit(audit, user.id);
    return true;
  }

  async getSessionAndUser(tokenHash: string): Promise<{ session: StoredSession; user: StoredUser } | null> {
    const session = this.sessions.get(tokenHash);
    const user = session && this.users.get(session.userId);
    if (!session || !user) return null;
    return { session: copySession(session), user: copyUser(user) };
  }

  async checkSession(tokenHash: string, access?: AccessQuery): Promise<SessionCheck | null> {
    const session = this.sessions.get(tokenHash);
    const user = session && this.users.get(session.userId);
    if (!session || !user) return null;
    return {
      user: accountView(user),
      disabled: user.disabledAt !== null,
      expiresAt: new Date(session.expiresAt),
      lastSeenAt: new Date(session.lastSeenAt),
      secondFactor: session.secondFactor,
      ...(access && {
        access:
          access.kind === 'role' ? this.roleAnswer(user.id, access.name) : this.permissionAnswer(user.id, access.name),
      }),
    };
  }

  async touchSession(tokenHash: string, lastSeenAt: Date): Promise<void> {
    const session = this.sessions.get(tokenHash);
    if (session) session.lastSeenAt = new Date(lastSeenAt);
  }

  async deleteSession(tokenHash: string, audit?: NewAuditEvent): Promise<void> {
    const session = this.sessions.get(tokenHash);
    if (!session) return;
    this.assertAuditIdFree(audit);
    this.dropSession(tokenHash);
    this.insertAudit(audit, session.userId);
  }

  async deleteUserSessions(userId: string, audit?: NewAuditEvent): Promise<number> {
    if (this.users.has(userId)) this.assertAuditIdFree(audit);
    const ended = this.deleteSessionsOf(userId);
    this.dropEmailChange(userId, changeInstant(audit));
    if (this.users.has(userId)) this.insertAudit(audit, userId, { sessions_ended: ended });
    return ended;
  }

  async listSessions(userId: string): Promise<StoredSession[]> {
    return [...this.sessions.values()]
      .filter((session) => session.userId === userId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map(copySession);
  }

  async deleteSessionById(userId: string, sessionId: string, audit?: NewAuditEvent): Promise<boolean> {
    const tokenHash = this.sessionHashById.get(sessionId);
    if (tokenHash === undefined || this.sessions.get(tokenHash)?.userId !== userId) return false;
    this.assertAuditIdFree(audit);
    this.dropSession(tokenHash);
    this.insertAudit(audit, userId);
    return true;
  }

  async deleteOtherSessions(userId: string, keepTokenHash: string, audit?: NewAuditEvent): Promise<number> {
    if (this.users.has(userId)) this.assertAuditIdFree(audit);
    const ended = this.deleteSessionsOf(userId, (session) => session.tokenHash !== keepTokenHash);
    const kept = this.sessions.get(keepTokenHash);
    this.dropEmailChange(userId, changeInstant(audit), kept?.userId === userId ? kept.id : null);
    if (this.users.has(userId)) this.insertAudit(audit, userId, { sessions_ended: ended });
    return ended;
  }

  async markSessionAuthenticated(
    tokenHash: string,
    passwordHash: string,
    at: Date,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    const session = this.sessions.get(tokenHash);
    if (!session || this.users.get(session.userId)?.passwordHash !== passwordHash) return false;
    this.assertAuditIdFree(audit);
    session.authenticatedAt = new Date(at);
    this.insertAudit(audit, session.userId);
    return true;
  }

  async requestEmailChange(
    change: StoredEmailChange,
    messages: EmailChangeMessages,
    sessionTokenHash: string,
    audit?: NewAuditEvent,
  ): Promise<EmailChangeRequestResult> {
    const user = this.users.get(change.userId);
    if (!user || this.sessions.get(sessionTokenHash)?.userId !== user.id) return { ok: false };
    const existing = this.emailChanges.get(change.tokenHash);
    if (existing && existing.userId !== user.id) throw new Error('MemoryUserStore: duplicate email change token hash');
    this.assertMessageIdFree(messages.link);
    this.assertMessageIdFree(messages.ownerNotice);
    this.assertMessageIdFree(messages.requestedNotice);
    this.assertAuditIdFree(audit);

    this.deleteEmailChangeOf(user.id);
    this.emailChanges.set(change.tokenHash, copyEmailChange(change));
    // The earlier change's link died with it, whichever path this request takes.
    this.supersedeMessages(user.id, 'emailChange', change.createdAt);
    const owner = this.verifiedOwnerOf(change.newEmailKey, user.id);
    if (owner) this.insertMessage(owner, messages.ownerNotice);
    else this.insertMessage({ ...user, email: change.newEmail }, messages.link);
    this.insertMessage(user, messages.requestedNotice);
    this.insertAudit(audit, user.id);
    return { ok: true, addressOwned: owner !== undefined };
  }

  async findEmailChange(tokenHash: string, now: Date): Promise<{ change: StoredEmailChange; user: StoredUser } | null> {
    const change = this.liveEmailChange(tokenHash, now);
    const user = change && this.users.get(change.userId);
    if (!change || !user) return null;
    return { change: copyEmailChange(change), user: copyUser(user) };
  }

  async confirmEmailChange(
    tokenHash: string,
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<EmailChangeResult> {
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);
    const change = this.liveEmailChange(tokenHash, now);
    const user = change && this.users.get(change.userId);
    if (!change || !user) return { outcome: 'invalid' };
    this.emailChanges.delete(tokenHash);
    if (this.verifiedOwnerOf(change.newEmailKey, user.id)) return { outcome: 'taken' };

    const previous = { id: user.id, username: user.username, email: user.email };
    if (user.verified) {
      if (this.userIdByEmailKey.get(user.emailKey) === user.id) this.userIdByEmailKey.delete(user.emailKey);
      this.userIdByEmailKey.set(change.newEmailKey, user.id);
    }
    user.email = change.newEmail;
    user.emailKey = change.newEmailKey;
    user.updatedAt = new Date(now);
    for (const other of [...this.users.values()]) {
      if (other.id !== user.id && !other.verified && other.emailKey === user.emailKey) this.endRegistration(other, now);
    }
    // Reset links went to the old address: those not sent yet are not sent at all.
    this.deleteTokensOf(user.id, 'reset_password');
    this.supersedeMessages(user.id, 'passwordReset', now);
    const endedSessions = change.endOtherSessions
      ? this.deleteSessionsOf(user.id, (session) => session.id !== change.keepSessionId)
      : 0;
    this.insertMessage(previous, message);
    this.insertAudit(audit, user.id);
    return { outcome: 'changed', user: copyUser(user), previousEmail: previous.email, endedSessions };
  }

  async deleteExpired(cutoffs: ExpiryCutoffs): Promise<number> {
    const { now, sessionIdleBefore, unverifiedCreatedBefore, outboxChangedBefore, auditBefore } = cutoffs;
    let deleted = 0;
    for (const [id, event] of this.auditEvents) {
      if (auditBefore && isAtOrBefore(event.at, auditBefore)) {
        this.auditEvents.delete(id);
        deleted++;
      }
    }
    for (const [id, row] of this.outbox) {
      if (outboxChangedBefore && row.status !== 'pending' && isAtOrBefore(row.updatedAt, outboxChangedBefore)) {
        this.outbox.delete(id);
        deleted++;
      }
    }
    for (const user of [...this.users.values()]) {
      if (unverifiedCreatedBefore && !user.verified && isAtOrBefore(user.createdAt, unverifiedCreatedBefore)) {
        this.removeUser(user);
        deleted++;
      }
    }
    for (const [hash, session] of this.sessions) {
      if (isAtOrBefore(session.expiresAt, now) || isAtOrBefore(session.lastSeenAt, sessionIdleBefore)) {
        this.dropSession(hash);
        deleted++;
      }
    }
    for (const [hash, change] of this.emailChanges) {
      if (isAtOrBefore(change.expiresAt, now)) {
        this.emailChanges.delete(hash);
        deleted++;
      }
    }
    for (const [hash, token] of this.tokens) {
      if (isAtOrBefore(token.expiresAt, now)) {
        this.tokens.delete(hash);
        deleted++;
      }
    }
    for (const [hash, challenge] of this.loginChallenges) {
      if (isAtOrBefore(challenge.expiresAt, now)) {
        this.loginChallenges.delete(hash);
        deleted++;
      }
    }
    return deleted;
  }

  async getSecondFactor(userId: string): Promise<StoredSecondFactor | null> {
    const factor = this.secondFactors.get(userId);
    return factor ? copySecondFactor(factor) : null;
  }

  async startSecondFactor(factor: StoredSecondFactor): Promise<boolean> {
    if (!this.users.has(factor.userId) || this.secondFactors.get(factor.userId)?.enabled) return false;
    this.secondFactors.set(factor.userId, copySecondFactor({ ...factor, enabled: false, enabledAt: null }));
    return true;
  }

  async enableSecondFactor(
    enabling: SecondFactorEnabling,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    const { userId, sessionTokenHash } = enabling;
    const user = this.users.get(userId);
    const factor = this.secondFactors.get(userId);
    // The waiting factor the code was checked against, and no other: a start since then replaced it.
    if (!user || !factor || factor.enabled || factor.sealedSecret !== enabling.sealedSecret) return false;
    this.assertCodeHashesFree(userId, enabling.recoveryCodeHashes);
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);
    factor.enabled = true;
    factor.enabledAt = new Date(enabling.now);
    factor.lastUsedStep = enabling.step;
    this.replaceCodesOf(userId, enabling.recoveryCodeHashes);
    const session = sessionTokenHash === undefined ? undefined : this.sessions.get(sessionTokenHash);
    if (session?.userId === userId) session.secondFactor = true;
    const ended = enabling.endOtherSessions
      ? this.deleteSessionsOf(userId, (other) => other.tokenHash !== sessionTokenHash)
      : undefined;
    this.insertMessage(user, message);
    this.insertAudit(audit, userId, ended === undefined ? undefined : { sessions_ended: ended });
    return true;
  }

  async useTotpStep(userId: string, step: number): Promise<boolean> {
    const factor = this.secondFactors.get(userId);
    if (!factor?.enabled || (factor.lastUsedStep !== null && factor.lastUsedStep >= step)) return false;
    factor.lastUsedStep = step;
    return true;
  }

  async consumeRecoveryCode(
    userId: string,
    codeHash: string,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    const user = this.users.get(userId);
    if (!user || this.recoveryCodes.get(codeHash) !== userId) return false;
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);
    this.recoveryCodes.delete(codeHash);
    this.insertMessage(user, message);
    this.insertAudit(audit, userId);
    return true;
  }

  async countRecoveryCodes(userId: string): Promise<number> {
    return [...this.recoveryCodes.values()].filter((owner) => owner === userId).length;
  }

  async replaceRecoveryCodes(
    userId: string,
    recoveryCodeHashes: readonly string[],
    _now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    const user = this.users.get(userId);
    if (!user || !this.secondFactors.get(userId)?.enabled) return false;
    this.assertCodeHashesFree(userId, recoveryCodeHashes);
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);
    this.replaceCodesOf(userId, recoveryCodeHashes);
    this.insertMessage(user, message);
    this.insertAudit(audit, userId);
    return true;
  }

  async disableSecondFactor(
    userId: string,
    _now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean> {
    const user = this.users.get(userId);
    if (!user || !this.secondFactors.has(userId)) return false;
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);
    this.removeSecondFactorOf(userId);
    this.insertMessage(user, message);
    this.insertAudit(audit, userId);
    return true;
  }

  async createLoginChallenge(challenge: StoredLoginChallenge, audit?: NewAuditEvent): Promise<void> {
    if (!this.users.has(challenge.userId)) throw new Error('MemoryUserStore: no user with that id');
    if (this.loginChallenges.has(challenge.tokenHash)) throw new Error('MemoryUserStore: duplicate challenge hash');
    this.assertAuditIdFree(audit);
    this.loginChallenges.set(challenge.tokenHash, copyLoginChallenge(challenge));
    this.insertAudit(audit, challenge.userId);
  }

  async findLoginChallenge(tokenHash: string, now: Date): Promise<StoredLoginChallenge | null> {
    const challenge = this.loginChallenges.get(tokenHash);
    return challenge && !isAtOrBefore(challenge.expiresAt, now) ? copyLoginChallenge(challenge) : null;
  }

  async takeLoginChallengeAttempt(
    tokenHash: string,
    now: Date,
    maxAttempts: number,
  ): Promise<StoredLoginChallenge | null> {
    const challenge = this.loginChallenges.get(tokenHash);
    if (!challenge || isAtOrBefore(challenge.expiresAt, now) || challenge.attempts >= maxAttempts) return null;
    challenge.attempts += 1;
    return copyLoginChallenge(challenge);
  }

  async consumeLoginChallenge(tokenHash: string): Promise<boolean> {
    return this.loginChallenges.delete(tokenHash);
  }

  async createRole(name: string, audit?: NewAuditEvent): Promise<boolean> {
    if (this.roles.has(name)) return false;
    this.assertAuditIdFree(audit);
    this.roles.set(name, new Set());
    this.insertAudit(audit);
    return true;
  }

  async createPermission(name: string, audit?: NewAuditEvent): Promise<boolean> {
    if (this.permissions.has(name)) return false;
    this.assertAuditIdFree(audit);
    this.permissions.add(name);
    this.insertAudit(audit);
    return true;
  }

  async grantPermission(
    role: string,
    permission: string,
    audit?: NewAuditEvent,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal> {
    const carried = this.roles.get(role);
    if (!carried) return 'unknown_role';
    if (!this.permissions.has(permission)) return 'unknown_permission';
    if (grantor !== undefined && this.userRoles.get(grantor)?.has(role)) return 'own_access';
    if (grantor !== undefined && this.permissionAnswer(grantor, permission) !== 'granted') return 'not_held';
    this.assertAuditIdFree(audit);
    carried.add(permission);
    this.insertAudit(audit);
    return 'ok';
  }

  async revokePermission(
    role: string,
    permission: string,
    audit?: NewAuditEvent,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal> {
    const carried = this.roles.get(role);
    if (!carried) return 'unknown_role';
    if (!this.permissions.has(permission)) return 'unknown_permission';
    if (grantor !== undefined && this.userRoles.get(grantor)?.has(role)) return 'own_access';
    this.assertAuditIdFree(audit);
    carried.delete(permission);
    this.insertAudit(audit);
    return 'ok';
  }

  async grantRole(
    userId: string,
    role: string,
    audit?: NewAuditEvent,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal> {
    if (!this.users.has(userId)) return 'unknown_user';
    const carried = this.roles.get(role);
    if (!carried) return 'unknown_role';
    if (grantor !== undefined) {
      if (grantor === userId) return 'own_access';
      for (const permission of carried) {
        if (this.permissionAnswer(grantor, permission) !== 'granted') return 'not_held';
      }
    }
    this.assertAuditIdFree(audit);
    const held = this.userRoles.get(userId) ?? new Set<string>();
    held.add(role);
    this.userRoles.set(userId, held);
    this.insertAudit(audit, userId);
    return 'ok';
  }

  async revokeRole(
    userId: string,
    role: string,
    audit?: NewAuditEvent,
    keepLastHolder = false,
    grantor?: string,
  ): Promise<RevokeRoleResult | AccessChangeRefusal> {
    if (!this.users.has(userId)) return 'unknown_user';
    if (!this.roles.has(role)) return 'unknown_role';
    if (grantor !== undefined && grantor === userId) return 'own_access';
    if (keepLastHolder && this.isLastEnabledHolder(userId, role)) return 'last_holder';
    this.assertAuditIdFree(audit);
    this.userRoles.get(userId)?.delete(role);
    this.insertAudit(audit, userId);
    return 'ok';
  }

  async checkRole(userId: string, role: string): Promise<AccessAnswer> {
    return this.roleAnswer(userId, role);
  }

  async checkPermission(userId: string, permission: string): Promise<AccessAnswer> {
    return this.permissionAnswer(userId, permission);
  }

  private roleAnswer(userId: string, role: string): AccessAnswer {
    if (!this.roles.has(role)) return 'unknown';
    return this.userRoles.get(userId)?.has(role) ? 'granted' : 'denied';
  }

  private permissionAnswer(userId: string, permission: string): AccessAnswer {
    if (!this.permissions.has(permission)) return 'unknown';
    for (const role of this.userRoles.get(userId) ?? []) {
      if (this.roles.get(role)?.has(permission)) return 'granted';
    }
    return 'denied';
  }

  async listRoles(): Promise<RoleSummary[]> {
    return [...this.roles.entries()]
      .map(([name, permissions]) => ({ name, permissions: [...permissions].sort() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async listPermissions(): Promise<string[]> {
    return [...this.permissions].sort();
  }

  async listUserRoles(userId: string): Promise<string[]> {
    return [...(this.userRoles.get(userId) ?? [])].sort();
  }

  async enqueueMessage(userId: string, message: NewOutboxMessage): Promise<boolean> {
    const user = this.users.get(userId);
    if (!user) return false;
    this.assertMessageIdFree(message);
    this.insertMessage(user, message);
    return true;
  }

  async claimDueMessages(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedMessage[]> {
    const due = [...this.outbox.values()]
      .filter((row) => row.status === 'pending' && isAtOrBefore(row.nextAttemptAt, now))
      .sort(
        (a, b) =>
          a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime(),
      )
      .slice(0, Math.max(0, limit));
    return due.map((row) => {
      row.claimId = randomUUID();
      row.attempts += 1;
      row.nextAttemptAt = new Date(leaseUntil);
      row.updatedAt = new Date(now);
      return claimedOf(row);
    });
  }

  async markMessageSent(id: string, now: Date): Promise<boolean> {
    const row = this.outbox.get(id);
    if (row?.status !== 'pending') return false;
    Object.assign(row, { status: 'sent', sealedToken: null, claimId: null, lastError: null });
    row.sentAt = new Date(now);
    row.updatedAt = new Date(now);
    return true;
  }

  async markMessageRetry(
    id: string,
    claimId: string,
    nextAttemptAt: Date,
    lastError: string,
    now: Date,
  ): Promise<boolean> {
    const row = this.heldMessage(id, claimId);
    if (!row) return false;
    Object.assign(row, { claimId: null, lastError });
    row.nextAttemptAt = new Date(nextAttemptAt);
    row.updatedAt = new Date(now);
    return true;
  }

  async markMessageFailed(id: string, claimId: string, lastError: string, now: Date): Promise<boolean> {
    const row = this.heldMessage(id, claimId);
    if (!row) return false;
    Object.assign(row, { status: 'failed', sealedToken: null, claimId: null, lastError });
    row.updatedAt = new Date(now);
    return true;
  }

  async listMessages(query: OutboxQuery = {}): Promise<OutboxEntry[]> {
    return [...this.outbox.values()]
      .filter((row) => query.status === undefined || row.status === query.status)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, query.limit ?? 100)
      .map(entryOf);
  }

  async retryMessages(target: RetryTarget, now: Date, giveUpAt: Date): Promise<number> {
    const rows = 'id' in target ? [this.outbox.get(target.id)].filter(isDefined) : [...this.outbox.values()];
    let changed = 0;
    for (const row of rows) {
      const waiting = row.status === 'pending' && (row.claimId === null || isAtOrBefore(row.nextAttemptAt, now));
      const revivable = row.status === 'failed' && !carriesLink(row.kind);
      if ('status' in target ? !revivable : !(waiting || revivable)) continue;
      if (revivable) Object.assign(row, { status: 'pending', attempts: 0, giveUpAt: new Date(giveUpAt) });
      row.claimId = null;
      row.nextAttemptAt = new Date(now);
      row.updatedAt = new Date(now);
      changed++;
    }
    return changed;
  }

  async listUsers(query: UserListQuery): Promise<StoredUser[]> {
    const { prefix, verified, disabled, role, createdFrom, createdBefore, after } = query;
    return [...this.users.values()]
      .filter(
        (user) =>
          (!prefix || user.usernameKey.startsWith(prefix) || user.emailKey.startsWith(prefix)) &&
          (verified === undefined || user.verified === verified) &&
          (disabled === undefined || (user.disabledAt !== null) === disabled) &&
          (role === undefined || this.userRoles.get(user.id)?.has(role) === true) &&
          (createdFrom === undefined || user.createdAt.getTime() >= createdFrom.getTime()) &&
          (createdBefore === undefined || user.createdAt.getTime() < createdBefore.getTime()) &&
          (after === undefined || newestFirst(user, after) > 0),
      )
      .sort(newestFirst)
      .slice(0, Math.max(0, query.limit))
      .map(copyUser);
  }

  async getUserDetails(userId: string, now: Date, sessionIdleBefore: Date): Promise<UserDetails | null> {
    const user = this.users.get(userId);
    if (!user) return null;
    const roles = [...(this.userRoles.get(userId) ?? [])].sort();
    const permissions = new Set(roles.flatMap((role) => [...(this.roles.get(role) ?? [])]));
    const liveSessions = [...this.sessions.values()].filter(
      (session) =>
        session.userId === userId &&
        !isAtOrBefore(session.expiresAt, now) &&
        !isAtOrBefore(session.lastSeenAt, sessionIdleBefore),
    ).length;
    const lastSignIn = this.lastSignIns.get(userId);
    return {
      user: copyUser(user),
      lastSignInAt: lastSignIn ? new Date(lastSignIn) : null,
      roles,
      permissions: [...permissions].sort(),
      secondFactor: this.secondFactors.get(userId)?.enabled === true,
      liveSessions,
    };
  }

  async disableUser(
    userId: string,
    at: Date,
    audit?: NewAuditEvent,
    keepLastHolderOf?: string,
  ): Promise<ProtectedChangeResult> {
    const user = this.users.get(userId);
    if (!user) return 'unknown_user';
    const enabled = user.disabledAt === null;
    if (enabled && keepLastHolderOf !== undefined && this.isLastEnabledHolder(userId, keepLastHolderOf)) {
      return 'last_holder';
    }
    this.assertAuditIdFree(audit);
    if (enabled) {
      user.disabledAt = new Date(at);
      user.updatedAt = new Date(at);
    }
    this.deleteSessionsOf(userId);
    this.deleteTokensOf(userId);
    this.deleteEmailChangeOf(userId);
    this.deleteLoginChallengesOf(userId);
    this.failPendingLinks(userId, at);
    this.insertAudit(audit, userId);
    return 'ok';
  }

  async enableUser(userId: string, now: Date, audit?: NewAuditEvent): Promise<'ok' | 'unknown_user'> {
    const user = this.users.get(userId);
    if (!user) return 'unknown_user';
    this.assertAuditIdFree(audit);
    if (user.disabledAt !== null) {
      user.disabledAt = null;
      user.updatedAt = new Date(now);
    }
    this.insertAudit(audit, userId);
    return 'ok';
  }

  async markUserVerified(userId: string, now: Date, audit?: NewAuditEvent): Promise<MarkVerifiedResult> {
    const user = this.users.get(userId);
    if (!user) return 'unknown_user';
    if (user.verified) return 'already_verified';
    if (this.verifiedOwnerOf(user.emailKey, userId)) return 'address_owned';
    this.assertAuditIdFree(audit);
    this.makeOwner(user, now);
    this.deleteTokensOf(userId, 'verify_email');
    this.supersedeMessages(userId, 'verification', now);
    this.insertAudit(audit, userId);
    return 'verified';
  }

  async deleteUserAsAdmin(
    userId: string,
    keepLastHolderOf?: string,
    audit?: NewAuditEvent,
    message?: NewOutboxMessage,
  ): Promise<ProtectedChangeResult> {
    const user = this.users.get(userId);
    if (!user) return 'unknown_user';
    if (keepLastHolderOf !== undefined && this.isLastEnabledHolder(userId, keepLastHolderOf)) return 'last_holder';
    this.assertMessageIdFree(message);
    this.assertAuditIdFree(audit);
    this.insertMessage(user, message);
    this.failPendingLinks(user.id, changeInstant(audit, message));
    this.removeUser(user);
    this.insertAudit(audit, userId);
    return 'ok';
  }

  async appendAuditEvent(event: NewAuditEvent & { subjectId: string | null }): Promise<void> {
    this.assertAuditIdFree(event);
    this.insertAudit(event);
  }

  async listAuditEvents(query: AuditQuery): Promise<AuditEvent[]> {
    const { userId, types, since, until, after } = query;
    return [...this.auditEvents.values()]
      .filter(
        (event) =>
          (userId === undefined || event.subjectId === userId || event.actorId === userId) &&
          (types === undefined || types.includes(event.type)) &&
          (since === undefined || event.at.getTime() >= since.getTime()) &&
          (until === undefined || event.at.getTime() < until.getTime()) &&
          (after === undefined || newestEventFirst(event, after) > 0),
      )
      .sort(newestEventFirst)
      .slice(0, Math.max(0, query.limit))
      .map(copyAuditEvent);
  }

  /** Nothing to release: the data simply goes with the object. */
  async close(): Promise<void> {}

  /** The user becomes the owner of its address; the other unverified registrations of it end. */
  private makeOwner(user: StoredUser, now: Date): void {
    user.verified = true;
    user.updatedAt = new Date(now);
    this.userIdByEmailKey.set(user.emailKey, user.id);
    for (const other of [...this.users.values()]) {
      if (!other.verified && other.emailKey === user.emailKey) this.endRegistration(other, now);
    }
  }

  /** Whether the user holds the role and no other enabled user does. */
  private isLastEnabledHolder(userId: string, role: string): boolean {
    if (!this.userRoles.get(userId)?.has(role)) return false;
    for (const [holderId, roles] of this.userRoles) {
      if (holderId !== userId && roles.has(role) && this.users.get(holderId)?.disabledAt === null) return false;
    }
    return true;
  }

  /** Mirrors the trail's primary key, checked before anything changes. */
  private assertAuditIdFree(event: NewAuditEvent | undefined): void {
    if (event && this.auditEvents.has(event.id)) throw new Error('MemoryUserStore: duplicate audit event id');
  }

  /** Records the event, if any; an undefined subject becomes `subjectFallback`, and `extraDetails` join the details. */
  private insertAudit(
    event: NewAuditEvent | undefined,
    subjectFallback: string | null = null,
    extraDetails?: AuditDetails,
  ): void {
    if (!event) return;
    const details = extraDetails ? { ...(event.details ?? {}), ...extraDetails } : event.details;
    this.auditEvents.set(
      event.id,
      copyAuditEvent({
        ...event,
        subjectId: event.subjectId === undefined ? subjectFallback : event.subjectId,
        details,
      }),
    );
  }

  /**
   * The user's pending links that no worker holds fail as superseded: their tokens are gone. One a worker holds is
   * left to finish, but never tried again (see `giveUpHeld`).
   */
  private failPendingLinks(userId: string, now: Date): void {
    for (const row of this.outbox.values()) {
      if (row.userId !== userId || row.status !== 'pending' || row.sealedToken === null) continue;
      if (row.claimId === null) {
        Object.assign(row, { status: 'failed', sealedToken: null, lastError: SUPERSEDED_ERROR });
        row.updatedAt = new Date(now);
      } else giveUpHeld(row, now);
    }
  }

  /**
   * The user goes with every session, token, pending change of address, second factor, recovery code, login challenge
   * and grant of theirs; messages to them stay (they are copies).
   */
  private removeUser(user: StoredUser): void {
    this.users.delete(user.id);
    this.lastSignIns.delete(user.id);
    this.userIdByUsernameKey.delete(user.usernameKey);
    if (this.userIdByEmailKey.get(user.emailKey) === user.id) this.userIdByEmailKey.delete(user.emailKey);
    this.deleteSessionsOf(user.id);
    this.deleteTokensOf(user.id);
    this.deleteEmailChangeOf(user.id);
    this.removeSecondFactorOf(user.id);
    this.userRoles.delete(user.id);
  }

  /** Another registration proved the address: this one goes, and its pending links die with its tokens. */
  private endRegistration(user: StoredUser, now: Date): void {
    this.failPendingLinks(user.id, now);
    this.removeUser(user);
  }

  /** Deletes the token if it is unexpired and of `purpose`; returns its (live, stored) user. */
  private consumeToken(tokenHash: string, purpose: TokenPurpose, now: Date): StoredUser | null {
    const token = this.liveToken(tokenHash, purpose, now);
    if (!token) return null;
    this.tokens.delete(tokenHash);
    return this.users.get(token.userId) ?? null;
  }

  private liveToken(tokenHash: string, purpose: TokenPurpose, now: Date): StoredToken | null {
    const token = this.tokens.get(tokenHash);
    if (!token || token.purpose !== purpose || isAtOrBefore(token.expiresAt, now)) return null;
    return token;
  }

  private replacePasswordEndingSessions(user: StoredUser, newPasswordHash: string, now: Date): void {
    user.passwordHash = newPasswordHash;
    user.updatedAt = new Date(now);
    this.deleteSessionsOf(user.id);
    this.deleteTokensOf(user.id, 'reset_password');
    this.supersedeMessages(user.id, 'passwordReset', now);
    // A change of address asked for under the old password goes with it, and so do the login challenges. The second
    // factor and its recovery codes stay: a reset must not switch the second factor off.
    this.dropEmailChange(user.id, now);
    this.deleteLoginChallengesOf(user.id);
  }

  /** The factor, its recovery codes and the user's login challenges. */
  private removeSecondFactorOf(userId: string): void {
    this.secondFactors.delete(userId);
    this.replaceCodesOf(userId, []);
    this.deleteLoginChallengesOf(userId);
  }

  private replaceCodesOf(userId: string, codeHashes: readonly string[]): void {
    for (const [hash, owner] of this.recoveryCodes) {
      if (owner === userId) this.recoveryCodes.delete(hash);
    }
    for (const hash of codeHashes) this.recoveryCodes.set(hash, userId);
  }

  private deleteLoginChallengesOf(userId: string): void {
    for (const [hash, challenge] of this.loginChallenges) {
      if (challenge.userId === userId) this.loginChallenges.delete(hash);
    }
  }

  /** Mirrors the primary key of recovery codes: another user's hash, or one given twice, refuses the whole write. */
  private assertCodeHashesFree(userId: string, codeHashes: readonly string[]): void {
    const owners = codeHashes.map((hash) => this.recoveryCodes.get(hash));
    if (
      new Set(codeHashes).size !== codeHashes.length ||
      owners.some((owner) => owner !== undefined && owner !== userId)
    ) {
      throw new Error('MemoryUserStore: duplicate recovery code hash');
    }
  }

  /** Deletes the user's sessions (those `which` picks, or all); returns how many went. */
  private deleteSessionsOf(userId: string, which: (session: StoredSession) => boolean = () => true): number {
    let deleted = 0;
    for (const [hash, session] of this.sessions) {
      if (session.userId === userId && which(session)) {
        this.dropSession(hash);
        deleted++;
      }
    }
    return deleted;
  }

  private dropSession(tokenHash: string): void {
    const session = this.sessions.get(tokenHash);
    if (!session) return;
    this.sessions.delete(tokenHash);
    this.sessionHashById.delete(session.id);
  }

  private deleteEmailChangeOf(userId: string): void {
    for (const [hash, change] of this.emailChanges) {
      if (change.userId === userId) this.emailChanges.delete(hash);
    }
  }

  /**
   * The user's pending change of address goes, and its link, if no worker holds it yet, is never sent. With
   * `keptSessionId` (ending the other sessions), a change that this kept session asked for stays; null: no session
   * is kept (its own is gone or another's), so any change goes.
   */
  private dropEmailChange(userId: string, at: Date, keptSessionId?: string | null): void {
    let dropped = 0;
    for (const [hash, change] of this.emailChanges) {
      if (change.userId !== userId || (keptSessionId && change.keepSessionId === keptSessionId)) continue;
      this.emailChanges.delete(hash);
      dropped++;
    }
    // Ending every session fails the links whatever was found; ending the others only when a change went.
    if (keptSessionId === undefined || dropped > 0) this.supersedeMessages(userId, 'emailChange', at);
  }

  private liveEmailChange(tokenHash: string, now: Date): StoredEmailChange | null {
    const change = this.emailChanges.get(tokenHash);
    return change && !isAtOrBefore(change.expiresAt, now) ? change : null;
  }

  /** The verified account that owns the address, other than `exceptUserId`. */
  private verifiedOwnerOf(emailKey: string, exceptUserId: string): StoredUser | undefined {
    const ownerId = this.userIdByEmailKey.get(emailKey);
    return ownerId === undefined || ownerId === exceptUserId ? undefined : this.users.get(ownerId);
  }

  /** Deletes the user's tokens, of one purpose or of all. */
  private deleteTokensOf(userId: string, purpose?: TokenPurpose): void {
    for (const [hash, token] of this.tokens) {
      if (token.userId === userId && (purpose === undefined || token.purpose === purpose)) this.tokens.delete(hash);
    }
  }

  private copyOfUser(id: string | undefined): StoredUser | null {
    const user = id === undefined ? undefined : this.users.get(id);
    return user ? copyUser(user) : null;
  }

  private assertTokenHashFree(token: StoredToken): void {
    if (this.tokens.has(token.tokenHash)) throw new Error('MemoryUserStore: duplicate token hash');
  }

  /** Mirrors a primary key: checked before anything changes, so a clash leaves the operation undone as a whole. */
  private assertMessageIdFree(message: NewOutboxMessage | undefined): void {
    if (message && this.outbox.has(message.id)) throw new Error('MemoryUserStore: duplicate message id');
  }

  /** Queues `message` to the recipient (id, username and email copied, so the message outlives the user). */
  private insertMessage(user: Recipient, message: NewOutboxMessage | undefined): void {
    if (!message) return;
    this.outbox.set(message.id, {
      id: message.id,
      kind: message.kind,
      userId: user.id,
      username: user.username,
      email: user.email,
      sealedToken: message.sealedToken,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(message.createdAt),
      giveUpAt: new Date(message.giveUpAt),
      createdAt: new Date(message.createdAt),
      updatedAt: new Date(message.createdAt),
      sentAt: null,
      lastError: null,
      claimId: null,
    });
  }

  /**
   * Pending messages of the same kind to the user, that no worker holds, die with the token they carried; one a worker
   * holds is left to finish, but never tried again (see `giveUpHeld`).
   */
  private supersedeMessages(userId: string, kind: OutboxKind, at: Date): void {
    for (const row of this.outbox.values()) {
      if (row.userId !== userId || row.kind !== kind || row.status !== 'pending') continue;
      if (row.claimId === null) {
        Object.assign(row, { status: 'failed', sealedToken: null, lastError: SUPERSEDED_ERROR });
        row.updatedAt = new Date(at);
      } else giveUpHeld(row, at);
    }
  }

  private heldMessage(id: string, claimId: string): OutboxRow | null {
    const row = this.outbox.get(id);
    return row && row.status === 'pending' && row.claimId === claimId ? row : null;
  }
}

/** Whom a message goes to: copied from a user row when it is queued. */
type Recipient = Pick<StoredUser, 'id' | 'username' | 'email'>;

/** A message as kept here: the listed fields plus the sealed token and the current claim. */
interface OutboxRow extends Omit<OutboxEntry, 'hasToken' | 'claimed'> {
  sealedToken: string | null;
  claimId: string | null;
}

function entryOf(row: OutboxRow): OutboxEntry {
  const { sealedToken, claimId, ...fields } = row;
  return {
    ...fields,
    nextAttemptAt: new Date(row.nextAttemptAt),
    giveUpAt: new Date(row.giveUpAt),
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    sentAt: row.sentAt && new Date(row.sentAt),
    hasToken: sealedToken !== null,
    claimed: claimId !== null,
  };
}

function claimedOf(row: OutboxRow): ClaimedMessage {
  return {
    id: row.id,
    kind: row.kind,
    userId: row.userId,
    username: row.username,
    email: row.email,
    sealedToken: row.sealedToken,
    attempts: row.attempts,
    giveUpAt: new Date(row.giveUpAt),
    createdAt: new Date(row.createdAt),
    claimId: row.claimId!,
  };
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}

// Copies name every field, so that extra properties of a caller's object are not kept (a database would drop them).
function copyUser(user: StoredUser): StoredUser {
  return {
    id: user.id,
    username: user.username,
    usernameKey: user.usernameKey,
    email: user.email,
    emailKey: user.emailKey,
    passwordHash: user.passwordHash,
    verified: user.verified,
    createdAt: new Date(user.createdAt),
    updatedAt: new Date(user.updatedAt),
    disabledAt: user.disabledAt ? new Date(user.disabledAt) : null,
  };
}

function copyAuditEvent(event: AuditEvent): AuditEvent {
  return {
    id: event.id,
    at: new Date(event.at),
    type: event.type,
    outcome: event.outcome,
    actorType: event.actorType,
    actorId: event.actorId,
    subjectId: event.subjectId,
    ip: event.ip,
    requestId: event.requestId,
    details: event.details === null ? null : { ...event.details },
  };
}

/** Newest first: `createdAt`, then `id`, both descending (ids by UTF-16 code units, as `Array#sort`). */
function newestFirst(a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Newest first: `at`, then `id`, both descending. */
function newestEventFirst(a: { at: Date; id: string }, b: { at: Date; id: string }): number {
  return b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

function copySession(session: StoredSession): StoredSession {
  return {
    tokenHash: session.tokenHash,
    id: session.id,
    userId: session.userId,
    createdAt: new Date(session.createdAt),
    expiresAt: new Date(session.expiresAt),
    lastSeenAt: new Date(session.lastSeenAt),
    authenticatedAt: new Date(session.authenticatedAt),
    ip: session.ip ?? null,
    userAgent: session.userAgent ?? null,
    secondFactor: session.secondFactor === true,
  };
}

function copySecondFactor(factor: StoredSecondFactor): StoredSecondFactor {
  return {
    userId: factor.userId,
    sealedSecret: factor.sealedSecret,
    enabled: factor.enabled,
    createdAt: new Date(factor.createdAt),
    enabledAt: factor.enabledAt && new Date(factor.enabledAt),
    lastUsedStep: factor.lastUsedStep ?? null,
  };
}

function copyLoginChallenge(challenge: StoredLoginChallenge): StoredLoginChallenge {
  return {
    tokenHash: challenge.tokenHash,
    userId: challenge.userId,
    passwordBinding: challenge.passwordBinding,
    attempts: challenge.attempts,
    createdAt: new Date(challenge.createdAt),
    expiresAt: new Date(challenge.expiresAt),
    ip: challenge.ip ?? null,
    userAgent: challenge.userAgent ?? null,
  };
}

/**
 * A dead link a worker is sending right now: the send under way cannot be called back, but a failed one is not tried
 * again, as its give-up time is now (the next claim fails it as expired).
 */
function giveUpHeld(row: OutboxRow, at: Date): void {
  if (row.giveUpAt.getTime() > at.getTime()) row.giveUpAt = new Date(at);
}

function copyEmailChange(change: StoredEmailChange): StoredEmailChange {
  return {
    tokenHash: change.tokenHash,
    userId: change.userId,
    newEmail: change.newEmail,
    newEmailKey: change.newEmailKey,
    createdAt: new Date(change.createdAt),
    expiresAt: new Date(change.expiresAt),
    endOtherSessions: change.endOtherSessions,
    keepSessionId: change.keepSessionId,
  };
}

function copyToken(token: StoredToken): StoredToken {
  const { tokenHash, userId, purpose, expiresAt } = token;
  return { tokenHash, userId, purpose, expiresAt: new Date(expiresAt) };
}

/** Expiry instants are exclusive: a token or session is dead from the millisecond it expires. */
function isAtOrBefore(instant: Date, reference: Date): boolean {
  return instant.getTime() <= reference.getTime();
}
