import type { NewAuditEvent } from './audit-event';
import type { Awaitable } from './awaitable';
import type { NewOutboxMessage } from './outbox-message';
import type {
  AccessAnswer,
  AccessQuery,
  SessionCheck,
  StoredEmailChange,
  StoredLoginChallenge,
  StoredSecondFactor,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
} from './types';

/**
 * What a new user row needs; the store assigns nothing the core did not decide. Every user starts unverified: an
 * address is owned only once a link sent to it is confirmed.
 */
export type NewUser = Omit<StoredUser, 'updatedAt' | 'verified' | 'disabledAt'>;

/**
 * A registration is stored whoever holds its address (see `createUser`); only a taken username refuses it.
 * `addressOwned`: a verified account held the address, so the owner was told instead of the address being sent a link.
 */
export type CreateUserResult =
  { ok: true; user: StoredUser; addressOwned: boolean } | { ok: false; conflict: 'username' };

/** What `enableSecondFactor` switches on, and what it does to the user's sessions, in one transaction. */
export interface SecondFactorEnabling {
  userId: string;
  /** The waiting factor's sealed secret, as read before its code was checked: only that factor is switched on. */
  sealedSecret: string;
  /** The time step of the code that proved it: the factor's last used step. */
  step: number;
  recoveryCodeHashes: readonly string[];
  now: Date;
  /** The session that proved the code: marked as made with a second factor, and kept by `endOtherSessions`. */
  sessionTokenHash?: string;
  /** End every other session of the user (all but `sessionTokenHash`'s). */
  endOtherSessions?: boolean;
}

/** What `createUser` does besides inserting the user and its verification token, in the same transaction. */
export interface CreateUserOptions {
  /** The verification link, queued to the new user when no verified account holds the address. */
  link?: NewOutboxMessage;
  /** The notice queued instead, to the verified account that holds the address, when one does. */
  ownerNotice?: NewOutboxMessage;
  /**
   * An unverified user holding the username and created at or before this instant is an expired registration: it
   * goes first (with its tokens), so the username is free again even before the periodic clean-up removes it.
   */
  expiredUnverifiedBefore?: Date;
  /** The `register` event, written with the user (on every path, like the rows: its outcome is the same). */
  audit?: NewAuditEvent;
}

/**
 * The credentials a request proved before the slow part of its work (argon2), checked again inside the transaction
 * of its write: a reset, a password change or a logout-all that committed meanwhile wins, and the write is refused.
 */
export interface Authorisation {
  /** The session the request came with: it must still exist, and be the user's. */
  sessionTokenHash: string;
  /** The hash the request's password was verified against: it must still be the user's. */
  passwordHash: string;
}

/** The cut-offs of `deleteExpired`: rows at or before them go. */
export interface ExpiryCutoffs {
  /** Sessions, tokens, pending email changes and login challenges whose `expiresAt` is at or before it. */
  now: Date;
  /** Sessions last seen at or before it (the idle timeout). */
  sessionIdleBefore: Date;
  /** Unverified users created at or before it, with everything of theirs (registrations that were never confirmed). */
  unverifiedCreatedBefore?: Date;
  /** Sent and failed outbox messages last changed at or before it; pending ones never go. */
  outboxChangedBefore?: Date;
  /** Audit events at or before it (the retention, `auditRetentionMs`). */
  auditBefore?: Date;
}

/** What `requestEmailChange` queues besides storing the change, in the same transaction. */
export interface EmailChangeMessages {
  /** The link, addressed by the store to the new address; queued only when no verified account owns that address. */
  link?: NewOutboxMessage;
  /** Queued instead of the link, to the verified account that owns the new address, when one does. */
  ownerNotice?: NewOutboxMessage;
  /** To the user's current address: a change was asked for (queued on both paths). */
  requestedNotice?: NewOutboxMessage;
}

/**
 * `ok: false`: nothing stored (the session that asked has ended, or the user is gone). `addressOwned`: a verified
 * account owns the new address, so its owner was told instead of a link being sent.
 */
export type EmailChangeRequestResult = { ok: true; addressOwned: boolean } | { ok: false };

/**
 * `changed`: the address is the new one (`previousEmail` was the old); `endedSessions` other sessions ended with it.
 * `invalid`: no live change has this token (unknown, used, superseded, expired). `taken`: the token is spent, but a
 * verified account has come to own the address since the request, so nothing changed.
 */
export type EmailChangeResult =
  | { outcome: 'changed'; user: StoredUser; previousEmail: string; endedSessions: number }
  | { outcome: 'invalid' }
  | { outcome: 'taken' };

export type { AccessAnswer, AccessQuery } from './types';

export type GrantResult = 'ok' | 'unknown_role' | 'unknown_permission' | 'unknown_user';

/**
 * A change of access made by an administrator (`grantor`, a user id) that the store refused, nothing changed:
 * `own_access` when it would change the grantor's own roles or permissions (the user is the grantor, or the role is
 * one the grantor holds), `not_held` when it would hand on a permission the grantor does not hold itself.
 */
export type AccessChangeRefusal = 'own_access' | 'not_held';

/** `revokeRole` with `keepLastHolder`: `last_holder` when the user is the last enabled holder; nothing changed. */
export type RevokeRoleResult = GrantResult | 'last_holder';

export interface RoleSummary {
  name: string;
  permissions: string[];
}

/**
 * Storage of users, sessions, single-use tokens, roles and permissions, shaped around the account domain.
 *
 * Contract every implementation must keep (the conformance suite in `stores/conformance/account/` checks it):
 * - `usernameKey` is unique among all users; `emailKey` is unique among verified users only, both enforced by the
 *   store itself, race-free. An address may be claimed by several unverified registrations at once; the one whose
 *   link is confirmed owns it, and the others end with that confirmation (see `verifyEmail`);
 * - every method documented as atomic either happens whole or not at all, and exactly one of several concurrent
 *   callers can consume a given token;
 * - expected absence is `null`/`false`, never an exception; exceptions mean the store itself failed.
 * Token arguments are always keyed hashes; a store never sees a raw token or password.
 * Instants are exclusive ends: a token or session whose expiry equals `now` is dead. Methods that change a user set
 * its `updatedAt` to their `now`. Returned objects are the caller's own: changing them changes nothing stored.
 *
 * The methods that change an account take an optional outbox `message`, which they insert in the same transaction
 * as the change, addressed to the user that change is about (username and email copied from the user row, so a
 * message outlives its user); no change, no message; a message that cannot be stored (its id is taken) undoes the
 * change. What happens to the message next is the `OutboxStore`'s.
 *
 * Likewise the methods that change an account, a session or an access grant take an optional `audit` event
 * (`audit-event.ts`), inserted in the same transaction as the change: written when the change happened (the method
 * returns true, `ok`, a user, `changed`), not otherwise, unless the method says so. A disabled user (`disabledAt` set)
 * gets no new session, token or change: see `AdminStore.disableUser`.
 */
export interface AccountStore {
  /**
   * Atomically inserts the (unverified) user and its first verification token, whoever holds the address, and queues
   * the link to the user, or the owner notice to the verified account that holds the address (see
   * `CreateUserOptions`). Refuses only a taken username, and then stores nothing. The same rows are written on every
   * path, so that the time a registration takes does not tell whether the address has an account.
   */
  createUser(user: NewUser, verification: StoredToken, options?: CreateUserOptions): Promise<CreateUserResult>;
  findUserById(id: string): Promise<StoredUser | null>;
  findUserByUsernameKey(usernameKey: string): Promise<StoredUser | null>;
  /** The verified account that owns the address, or null; unverified registrations of it are not owners. */
  findVerifiedUserByEmailKey(emailKey: string): Promise<StoredUser | null>;
  /**
   * The unverified registrations of the address created after `createdAfter` (older ones have expired), newest
   * first, at most `limit`.
   */
  findUnverifiedUsersByEmailKey(emailKey: string, createdAfter: Date, limit: number): Promise<StoredUser[]>;

  /**
   * The user an unexpired token of this purpose belongs to, without consuming it: lets the core judge a new password
   * against the account before the token is spent (a rejected password must not burn the reset link).
   */
  findUserByToken(tokenHash: string, purpose: TokenPurpose, now: Date): Promise<StoredUser | null>;
  /**
   * Atomically deletes the user's other tokens of the same purpose and inserts this one (a new token supersedes).
   * With a message (the link carrying the new token), it is inserted too, and pending messages of the same kind to
   * the user that no worker holds are failed as `SUPERSEDED`: their links died with their tokens. One a worker holds
   * is left to finish, but its give-up time becomes the message's `createdAt`, so it is never tried again (so for
   * every link this contract fails as `SUPERSEDED`, at the instant of the change that failed it).
   */
  replaceToken(token: StoredToken, message?: NewOutboxMessage, audit?: NewAuditEvent): Promise<void>;
  /**
   * Atomically consumes an unexpired `verify_email` token and marks its user verified, making it the owner of its
   * address: every other unverified user of that address is deleted in the same transaction (with its tokens, and its
   * pending link messages failed as `SUPERSEDED`), and the message is queued if given. Returns the updated user, or
   * null when no such token exists (unknown, used, expired or of another purpose) or when another verified user owns
   * the address already (the token is spent all the same). Of concurrent confirmations of one address, exactly one
   * succeeds.
   */
  verifyEmail(
    tokenHash: string,
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<StoredUser | null>;
  /**
   * Atomically consumes an unexpired `reset_password` token, replaces the user's password hash, deletes every
   * session, every outstanding reset token and any pending email change of the user (their unsent links fail as
   * `SUPERSEDED`, see `deleteUserSessions`), and queues the message if given. Returns the updated user, or null as
   * for `verifyEmail`.
   */
  resetPassword(
    tokenHash: string,
    newPasswordHash: string,
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<StoredUser | null>;
  /**
   * Atomically replaces the password hash if it still equals `expectedHash` and, given `sessionTokenHash`, that
   * session of the user still exists; deletes every session, every outstanding reset token and any pending email
   * change of the user (their unsent links failing, as in `resetPassword`), and queues the message if given. Returns
   * false when the hash changed or the session ended meanwhile, or the user is gone.
   */
  changePassword(
    userId: string,
    expectedHash: string,
    newPasswordHash: string,
    now: Date,
    message?: NewOutboxMessage,
    sessionTokenHash?: string,
    audit?: NewAuditEvent,
  ): Promise<boolean>;
  /** Replaces the hash with a stronger one for the same password (rehash on login) only if it is unchanged. */
  rehashPassword(userId: string, expectedHash: string, newPasswordHash: string, now: Date): Promise<boolean>;
  /**
   * Atomically deletes the user with every session, token, pending email change and role grant, and queues the
   * message if given (its recipient read from the row before it goes). Messages to the user are kept, but those
   * carrying a link that no worker holds fail as `SUPERSEDED` (their tokens go with the user), stamped with the audit
   * event's instant. With `authorisation`, only while it still holds (see `Authorisation`). False, and nothing changed, when the user is gone or the authorisation no
   * longer holds.
   */
  deleteUser(
    userId: string,
    message?: NewOutboxMessage,
    authorisation?: Authorisation,
    audit?: NewAuditEvent,
  ): Promise<boolean>;

  /**
   * Inserts the session only if its user still exists with exactly this password hash, in one atomic statement: a
   * login that verified a password which a reset, change or deletion has just replaced creates no session, and
   * neither does one for a disabled user (`disabledAt` set). With the session, the user's `lastSignInAt` becomes
   * the session's `createdAt`. False when nothing was inserted.
   */
  createSession(session: StoredSession, passwordHash: string, audit?: NewAuditEvent): Promise<boolean>;
  /** One indexed read: the session and its user, or null. Expiry is judged by the caller. */
  getSessionAndUser(tokenHash: string): Promise<{ session: StoredSession; user: StoredUser } | null>;
  /**
   * The same read narrowed to what checking a request's session needs (`SessionCheck`), for every authenticated
   * request. Reads only what is committed, like every read of the store: a session ended or an account disabled
   * anywhere is gone at the next call. Expiry is judged by the caller. With `access`, the same statement also
   * answers it for the session's user, as `checkRole` or `checkPermission` would (a guard's one read).
   *
   * A store that reads synchronously may answer with the value itself (the SQL store on SQLite does): the check of a
   * request then needs no promise. A failure must still come as a rejected promise, never a throw.
   */
  checkSession(tokenHash: string, access?: AccessQuery): Awaitable<SessionCheck | null>;
  /** Moves the idle window of a session. */
  touchSession(tokenHash: string, lastSeenAt: Date): Promise<void>;
  /** The audit event is written when a session was deleted. */
  deleteSession(tokenHash: string, audit?: NewAuditEvent): Promise<void>;
  /**
   * Deletes every session of the user, and with them any pending email change of the user: ending every session
   * leaves no change waiting to be confirmed. Pending `emailChange` messages to the user that no worker holds fail as
   * `SUPERSEDED`, stamped with the audit event's instant (the store's clock without one). Returns how many sessions
   * went. The audit event is written whenever the user exists, with `sessions_ended` (that count) added to its details.
   */
  deleteUserSessions(userId: string, audit?: NewAuditEvent): Promise<number>;
  /**
   * Every stored session of the user, newest first (`createdAt`, then `id`, both descending); expiry is judged by
   * the caller. Empty for an unknown user.
   */
  listSessions(userId: string): Promise<StoredSession[]>;
  /** Deletes the session with this public id if it is the user's; false when the user has no such session. */
  deleteSessionById(userId: string, sessionId: string, audit?: NewAuditEvent): Promise<boolean>;
  /**
   * Deletes every session of the user but the one of `keepTokenHash`; returns how many went. A pending email change
   * goes too (its unsent link failing, as in `deleteUserSessions`) unless the kept session asked for it
   * (`keepSessionId`): a change asked for from a session being ended must not outlive it. The audit event is written
   * whenever the user exists, with `sessions_ended` added to its details.
   */
  deleteOtherSessions(userId: string, keepTokenHash: string, audit?: NewAuditEvent): Promise<number>;
  /**
   * Sets the session's `authenticatedAt` (a re-authentication) only while the session exists and its user's password
   * hash is still `passwordHash` (the one just verified); false, and nothing changed, otherwise.
   */
  markSessionAuthenticated(tokenHash: string, passwordHash: string, at: Date, audit?: NewAuditEvent): Promise<boolean>;

  /**
   * Atomically stores the change (superseding the user's earlier one, whose pending link messages fail as
   * `SUPERSEDED`), and queues `messages` (see `EmailChangeMessages`), only while the session of `sessionTokenHash`
   * still exists and is the change's user's. The same rows are written whoever owns the new address.
   */
  requestEmailChange(
    change: StoredEmailChange,
    messages: EmailChangeMessages,
    sessionTokenHash: string,
    audit?: NewAuditEvent,
  ): Promise<EmailChangeRequestResult>;
  /** The live change a token names and its user, without consuming it (the confirmation page names the account). */
  findEmailChange(tokenHash: string, now: Date): Promise<{ change: StoredEmailChange; user: StoredUser } | null>;
  /**
   * Atomically consumes an unexpired change and, unless another verified account owns the new address by now
   * (`taken`), makes it the user's address: the other unverified registrations of that address end (as in
   * `verifyEmail`), the user's outstanding reset tokens go (they were mailed to the old address; their unsent links
   * fail as `SUPERSEDED`), the other sessions
   * end when the change asked for it (all but `keepSessionId`), and `message` is queued to the previous address. Of
   * concurrent confirmations of one token, exactly one changes anything; of a confirmation racing another account's
   * claim of the address, at most one makes it verified.
   */
  confirmEmailChange(
    tokenHash: string,
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<EmailChangeResult>;
  /** Removes what `cutoffs` says has expired (see `ExpiryCutoffs`); returns how many rows went. */
  deleteExpired(cutoffs: ExpiryCutoffs): Promise<number>;

  /** The user's second factor, enabled or waiting for its first code; null when none. */
  getSecondFactor(userId: string): Promise<StoredSecondFactor | null>;
  /**
   * Stores a factor waiting for its first code (`enabled: false`), replacing a waiting one. False, and nothing
   * changed, when the user has an enabled factor or is gone.
   */
  startSecondFactor(factor: StoredSecondFactor): Promise<boolean>;
  /**
   * Atomically enables the user's waiting factor, only when it is still the one whose sealed secret the code was
   * checked against (`enabling.sealedSecret`: a compare-and-set, so a start that replaced it meanwhile makes this
   * fail rather than switch on a secret no code proved), with `step` as its last used step; replaces the user's
   * recovery codes with these hashes and queues the message. The session of `sessionTokenHash`, when it is the
   * user's, is marked as made with a second factor (it just proved one); with `endOtherSessions`, every other
   * session of the user ends (the audit event's details get `sessions_ended`). False, and nothing changed, when that
   * factor is not waiting (none, another one, or already enabled).
   */
  enableSecondFactor(
    enabling: SecondFactorEnabling,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean>;
  /**
   * Records `step` as used, only when the user's factor is enabled and its last used step is null or earlier: of
   * concurrent uses of one step, exactly one returns true.
   */
  useTotpStep(userId: string, step: number): Promise<boolean>;
  /** Deletes the recovery code and queues the message if it was the user's: true for exactly one concurrent caller. */
  consumeRecoveryCode(
    userId: string,
    codeHash: string,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean>;
  countRecoveryCodes(userId: string): Promise<number>;
  /** Atomically replaces the user's recovery codes and queues the message, only while the factor is enabled. */
  replaceRecoveryCodes(
    userId: string,
    recoveryCodeHashes: readonly string[],
    now: Date,
    message?: NewOutboxMessage,
    audit?: NewAuditEvent,
  ): Promise<boolean>;
  /**
   * Atomically deletes the user's factor (enabled or waiting), recovery codes and login challenges, and queues the
   * message. False, and nothing changed, when the user has no factor.
   */
  disableSecondFactor(userId: string, now: Date, message?: NewOutboxMessage, audit?: NewAuditEvent): Promise<boolean>;
  createLoginChallenge(challenge: StoredLoginChallenge, audit?: NewAuditEvent): Promise<void>;
  /** The unexpired challenge of this hash as it is, counting nothing; null when unknown, used or expired. */
  findLoginChallenge(tokenHash: string, now: Date): Promise<StoredLoginChallenge | null>;
  /**
   * Counts one answer to a live challenge, atomically: when it is unexpired and has had fewer than `maxAttempts`
   * answers, its `attempts` goes up by one and the challenge is returned as it now is; otherwise null (unknown,
   * expired, used or out of answers). Concurrent answers never get more than `maxAttempts` in all.
   */
  takeLoginChallengeAttempt(tokenHash: string, now: Date, maxAttempts: number): Promise<StoredLoginChallenge | null>;
  /** Deletes the challenge: true for exactly one of concurrent callers (it yields one session). */
  consumeLoginChallenge(tokenHash: string): Promise<boolean>;

  /** Creates the role if missing; true when it was created now (and only then is the audit event written). */
  createRole(name: string, audit?: NewAuditEvent): Promise<boolean>;
  createPermission(name: string, audit?: NewAuditEvent): Promise<boolean>;
  /**
   * This and the three grant/revoke methods below are idempotent: granting twice, or revoking what is not granted,
   * is `ok`. Unknown names are reported in argument order: with both unknown, the first one is named.
   *
   * With `grantor` (the administrator making the change), the store also refuses, in the transaction of the change,
   * what would escalate (`AccessChangeRefusal`): any change of the grantor's own access (a grant or revoke of a role
   * the grantor holds, or a grant or revoke of a role to or from the grantor), and a grant that hands on a permission
   * the grantor does not hold (granting a role hands on all its permissions). Concurrent changes of access are
   * decided one after the other, so a grantor demoted meanwhile, or a role changed meanwhile, cannot slip through.
   * Unknown names are reported before a refusal.
   */
  grantPermission(
    role: string,
    permission: string,
    audit?: NewAuditEvent,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal>;
  revokePermission(
    role: string,
    permission: string,
    audit?: NewAuditEvent,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal>;
  grantRole(
    userId: string,
    role: string,
    audit?: NewAuditEvent,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal>;
  /**
   * With `keepLastHolder`, refused (`last_holder`, nothing changed) when the user is the last enabled user holding
   * the role; concurrent revokes of the last two holders cannot both succeed.
   */
  revokeRole(
    userId: string,
    role: string,
    audit?: NewAuditEvent,
    keepLastHolder?: boolean,
    grantor?: string,
  ): Promise<RevokeRoleResult | AccessChangeRefusal>;
  /** Whether the user holds the role; `unknown` when no role of that name exists. */
  checkRole(userId: string, role: string): Promise<AccessAnswer>;
  /** Whether any role of the user carries the permission; `unknown` when no permission of that name exists. */
  checkPermission(userId: string, permission: string): Promise<AccessAnswer>;
  /** Every role by name, each with its permissions; all lists are sorted (by UTF-16 code units, as `Array#sort`). */
  listRoles(): Promise<RoleSummary[]>;
  listPermissions(): Promise<string[]>;
  /** The user's roles, sorted; empty for an unknown user. */
  listUserRoles(userId: string): Promise<string[]>;

  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
