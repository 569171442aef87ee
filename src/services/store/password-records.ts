import type { OutboxKind } from '../outbox-message';
import type { StoredToken, StoredUser, TokenPurpose } from '../types';

/** The password of each account, inside a transaction (`UserStoreTransaction.passwords`). */
export interface PasswordRecords {
  /**
   * Consumes an unexpired `reset_password` token, replaces the user's password hash, moves its `credentialEpoch` on
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
