import { StoredSession, StoredToken, StoredUser, TokenPurpose } from '../services/types';

/** What a new user row needs; the store assigns nothing the core did not decide. */
export type NewUser = Omit<StoredUser, 'updatedAt'>;

export type CreateUserResult = { ok: true; user: StoredUser } | { ok: false; conflict: 'username' | 'email' };

/** Answer of an access check: `unknown` when the role or permission itself does not exist. */
export type AccessAnswer = 'granted' | 'denied' | 'unknown';

export type GrantResult = 'ok' | 'unknown_role' | 'unknown_permission' | 'unknown_user';

export interface RoleSummary {
  name: string;
  permissions: string[];
}

/**
 * Storage of users, sessions, single-use tokens, roles and permissions, shaped around the account domain.
 *
 * Contract every implementation must keep (the conformance suite in `stores/conformance.ts` checks it):
 * - uniqueness of `usernameKey` and `emailKey` is enforced by the store itself, race-free;
 * - every method documented as atomic either happens whole or not at all, and exactly one of several concurrent
 *   callers can consume a given token;
 * - expected absence is `null`/`false`, never an exception; exceptions mean the store itself failed.
 * Token arguments are always keyed hashes; a store never sees a raw token or password.
 * Instants are exclusive ends: a token or session whose expiry equals `now` is dead. Methods that change a user set
 * its `updatedAt` to their `now`. Returned objects are the caller's own: changing them changes nothing stored.
 */
export interface UserStore {
  /** Atomically inserts the user and its first verification token; reports which unique key was taken. */
  createUser(user: NewUser, verification: StoredToken): Promise<CreateUserResult>;
  findUserById(id: string): Promise<StoredUser | null>;
  findUserByUsernameKey(usernameKey: string): Promise<StoredUser | null>;
  findUserByEmailKey(emailKey: string): Promise<StoredUser | null>;

  /**
   * The user an unexpired token of this purpose belongs to, without consuming it: lets the core judge a new password
   * against the account before the token is spent (a rejected password must not burn the reset link).
   */
  findUserByToken(tokenHash: string, purpose: TokenPurpose, now: Date): Promise<StoredUser | null>;
  /** Atomically deletes the user's other tokens of the same purpose and inserts this one (a new token supersedes). */
  replaceToken(token: StoredToken): Promise<void>;
  /**
   * Atomically consumes an unexpired `verify_email` token and marks its user verified.
   * Returns the updated user, or null when no such token exists (unknown, used, expired or of another purpose).
   */
  verifyEmail(tokenHash: string, now: Date): Promise<StoredUser | null>;
  /**
   * Atomically consumes an unexpired `reset_password` token, replaces the user's password hash, and deletes every
   * session and every outstanding reset token of the user. Returns the updated user, or null as for `verifyEmail`.
   */
  resetPassword(tokenHash: string, newPasswordHash: string, now: Date): Promise<StoredUser | null>;
  /**
   * Atomically replaces the password hash if it still equals `expectedHash`, and deletes every session and every
   * outstanding reset token of the user. Returns false when the hash changed meanwhile or the user is gone.
   */
  changePassword(userId: string, expectedHash: string, newPasswordHash: string, now: Date): Promise<boolean>;
  /** Replaces the hash with a stronger one for the same password (rehash on login) only if it is unchanged. */
  rehashPassword(userId: string, expectedHash: string, newPasswordHash: string, now: Date): Promise<boolean>;
  /** Atomically deletes the user with every session, token and role grant. False when already gone. */
  deleteUser(userId: string): Promise<boolean>;

  /**
   * Inserts the session only if its user still exists with exactly this password hash, in one atomic statement: a
   * login that verified a password which a reset, change or deletion has just replaced creates no session. False
   * when nothing was inserted.
   */
  createSession(session: StoredSession, passwordHash: string): Promise<boolean>;
  /** One indexed read: the session and its user, or null. Expiry is judged by the caller. */
  getSessionAndUser(tokenHash: string): Promise<{ session: StoredSession; user: StoredUser } | null>;
  /** Moves the idle window of a session. */
  touchSession(tokenHash: string, lastSeenAt: Date): Promise<void>;
  deleteSession(tokenHash: string): Promise<void>;
  deleteUserSessions(userId: string): Promise<void>;
  /**
   * Removes sessions and tokens past their expiry; returns how many rows went. A session goes when
   * `expiresAt <= now` or `lastSeenAt <= idleCutoff`; a token when `expiresAt <= now`.
   */
  deleteExpired(now: Date, idleCutoff: Date): Promise<number>;

  /** Creates the role if missing; true when it was created now. */
  createRole(name: string): Promise<boolean>;
  createPermission(name: string): Promise<boolean>;
  /**
   * This and the three grant/revoke methods below are idempotent: granting twice, or revoking what is not granted,
   * is `ok`. Unknown names are reported in argument order: with both unknown, the first one is named.
   */
  grantPermission(role: string, permission: string): Promise<GrantResult>;
  revokePermission(role: string, permission: string): Promise<GrantResult>;
  grantRole(userId: string, role: string): Promise<GrantResult>;
  revokeRole(userId: string, role: string): Promise<GrantResult>;
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

export type { StoredSession, StoredToken, StoredUser, TokenPurpose };
