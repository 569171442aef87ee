import type { StoredEmailChange, StoredUser } from '../types';

/**
 * `ok: false`: nothing stored (the session that asked has ended, or the user is gone). `owner`: the verified account
 * that owns the new address (its owner is told instead of a link being sent), or null.
 */
export type EmailChangeRequestResult = { ok: true; user: StoredUser; owner: StoredUser | null } | { ok: false };

/**
 * `changed`: the address is the new one (`previousEmail` was the old); `endedSessions` other sessions ended with it.
 * `invalid`: no live change has this token (unknown, used, superseded, expired). `taken`: the token is spent, but a
 * verified account has come to own the address since the request, so nothing changed.
 */
export type EmailChangeResult =
  | { outcome: 'changed'; user: StoredUser; previousEmail: string; endedSessions: number }
  | { outcome: 'invalid' }
  | { outcome: 'taken' };

/** Pending changes of address, read outside a transaction or in one. */
export interface EmailChangeReads {
  /** The live change a token names and its user, without consuming it (the confirmation page names the account). */
  find(tokenHash: string, now: Date): Promise<{ change: StoredEmailChange; user: StoredUser } | null>;
}

/** Pending changes of address, inside a transaction (`UserStoreTransaction.emailChanges`). */
export interface EmailChangeRecords extends EmailChangeReads {
  /**
   * Stores the change (superseding the user's earlier one, whose pending link messages fail as `SUPERSEDED`, stamped
   * with `change.createdAt`), only while the session of `sessionTokenHash` still exists and is the change's user's.
   * The same rows are written whoever owns the new address.
   */
  request(change: StoredEmailChange, sessionTokenHash: string): Promise<EmailChangeRequestResult>;
  /**
   * Consumes an unexpired change and, unless another verified account owns the new address by now (`taken`), makes
   * it the user's address: the other unverified registrations of that address end (as in
   * `UserRecords.confirmAddress`), the user's outstanding reset tokens go (they were mailed to the old address; their
   * unsent links fail as `SUPERSEDED`), and the other sessions end when the change asked for it (all but
   * `keepSessionId`). Of concurrent confirmations of one token, exactly one changes anything; of a confirmation
   * racing another account's claim of the address, at most one makes it verified.
   */
  confirm(tokenHash: string, now: Date): Promise<EmailChangeResult>;
}
