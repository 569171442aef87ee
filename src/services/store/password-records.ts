import type { OutboxKind } from '../outbox-message';
import type { StoredToken, StoredUser, TokenPurpose } from '../types';

/** A user as a password sign-in reads it: with its password credential, null when the account has none. */
export interface PasswordSignIn {
  user: StoredUser;
  passwordHash: string | null;
}

/** The password credential of each account (kind `password`), read outside a transaction or in one. */
export interface PasswordReads {
  /** The user of this username key and its password credential, in one read (login's); null when no such user. */
  findForSignIn(usernameKey: string): Promise<PasswordSignIn | null>;
  /** The user's password hash; null when the user is gone or has no password. */
  hashOf(userId: string): Promise<string | null>;
}

/**
 * The password credential of each account, inside a transaction (`UserStoreTransaction.passwords`). Its
 * `last_used_at` is recorded by `SessionRecords.create` for a session whose methods include `pwd`.
 */
export interface PasswordRecords extends PasswordReads {
  /**
   * Consumes an unexpired `reset_password` token, sets the user's password hash (adding a password to an account that
   * had none), moves its `credentialEpoch` on
   * by one, deletes every session, every
   * outstanding reset token, every login challenge and any pending email change of the user (their unsent links fail
   * as `SUPERSEDED`, see `SessionRecords.deleteAll`). Returns the updated user, or null when no such token exists
   * (unknown, used, expired or of another purpose).
   */
  reset(tokenHash: string, newPasswordHash: string, now: Date): Promise<StoredUser | null>;
  /**
   * Replaces the password hash if it still equals `expectedHash` and, given `sessionTokenHash`, that session of the
   * user still exists; moves its `credentialEpoch` on by one and deletes every session, every outstanding reset token, every login challenge and any pending
   * email change of the user (their unsent links failing, as in `reset`). Returns the updated user, or null when the
   * hash changed or the session ended meanwhile, or the user is gone.
   */
  change(
    userId: string,
    expectedHash: string,
    newPasswordHash: string,
    now: Date,
    sessionTokenHash?: string,
  ): Promise<StoredUser | null>;
  /**
   * Replaces the hash with a stronger one for the same password (rehash on login) only if it is unchanged. The
   * `credentialEpoch` stays: the password is the same, so the account's sessions stay too.
   */
  rehash(userId: string, expectedHash: string, newPasswordHash: string, now: Date): Promise<boolean>;
}

/** The single-use emailed tokens (verification, reset), read outside a transaction or in one. */
export interface TokenReads {
  /**
   * The user an unexpired token of this purpose belongs to, without consuming it: lets the core judge a new password
   * against the account before the token is spent (a rejected password must not burn the reset link).
   */
  findUser(tokenHash: string, purpose: TokenPurpose, now: Date): Promise<StoredUser | null>;
}

/** The emailed single-use tokens, inside a transaction (`UserStoreTransaction.tokens`). */
export interface TokenRecords extends TokenReads {
  /**
   * Deletes the user's other tokens of the same purpose and inserts this one (a new token supersedes). Pending
   * messages of `supersede.kind` to the user that no worker holds fail as `SUPERSEDED` (their links died with their
   * tokens); one a worker holds is left to finish, but its give-up time becomes `supersede.at`, so it is never tried
   * again. Returns the user (to address the new link to), or null, and nothing changed, when the user is disabled
   * or gone.
   */
  replace(token: StoredToken, supersede: { kind: OutboxKind; at: Date }): Promise<StoredUser | null>;
}
