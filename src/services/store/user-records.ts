import type { StoredToken, StoredUser } from '../types';

/**
 * What a new user row needs; the store assigns nothing the core did not decide. Every user starts unverified (an
 * address is owned only once a link sent to it is confirmed), enabled, and at credential epoch 0.
 */
export type NewUser = Omit<StoredUser, 'updatedAt' | 'verified' | 'disabledAt' | 'credentialEpoch'> & {
  /** Its password credential (an argon2 hash), or null for an account that signs in another way. */
  passwordHash: string | null;
};

/**
 * A registration is stored whoever holds its address (see `UserRecords.create`); only a taken username refuses it.
 * `owner`: the verified account that held the address (then its owner is told instead of the address being sent a
 * link), or null.
 */
export type CreateUserResult =
  { ok: true; user: StoredUser; owner: StoredUser | null } | { ok: false; conflict: 'username' };

/**
 * The credentials a request proved before the slow part of its work (argon2), checked again inside the transaction
 * of its write: a reset, a password change or a logout-all that committed meanwhile wins, and the write is refused.
 */
export interface Authorisation {
  /** The session the request came with: it must still exist, and be the user's. */
  sessionTokenHash: string;
  /** The user's `credentialEpoch` when the request's password was verified: it must still be the user's. */
  credentialEpoch: number;
}

/** What `UserRecords.delete` checks before deleting, inside its transaction. */
export interface DeleteConditions {
  /** Only while it still holds (see `Authorisation`); else `unauthorised`. */
  authorisation?: Authorisation;
  /** Refused (`last_holder`) when the user is the last enabled holder of this role. */
  keepLastHolderOf?: string;
}

/** `deleted`: the user as it was just before it went (a message about the deletion goes to that address). */
export type DeleteUserResult =
  { outcome: 'deleted'; user: StoredUser } | { outcome: 'unknown_user' | 'unauthorised' | 'last_holder' };

/** `last_holder`: the change would leave no enabled user holding the protected role; nothing changed. */
export type ProtectedChangeResult = 'ok' | 'unknown_user' | 'last_holder';

/** `address_owned`: another verified account owns the address; nothing changed. */
export type MarkVerifiedResult = 'verified' | 'already_verified' | 'unknown_user' | 'address_owned';

/** The lookups of users, inside a transaction or outside one (`UserStore.users`: each read sees committed data). */
export interface UserReads {
  findById(id: string): Promise<StoredUser | null>;
  findByUsernameKey(usernameKey: string): Promise<StoredUser | null>;
  /** The verified account that owns the address, or null; unverified registrations of it are not owners. */
  findVerifiedByEmailKey(emailKey: string): Promise<StoredUser | null>;
  /**
   * The unverified registrations of the address created after `createdAfter` (older ones have expired), newest
   * first, at most `limit`.
   */
  findUnverifiedByEmailKey(emailKey: string, createdAfter: Date, limit: number): Promise<StoredUser[]>;
}

/**
 * Users, inside a transaction (`UserStoreTransaction.users`).
 *
 * - `usernameKey` is unique among all users; `emailKey` is unique among verified users only, both enforced by the
 *   store itself, race-free. An address may be claimed by several unverified registrations at once; the one whose
 *   link is confirmed owns it, and the others end with that confirmation (see `confirmAddress`).
 * - Removing a user removes every row that hangs off it (sessions, tokens, email changes, second factor, recovery
 *   codes, login challenges, role grants...) through the store's one registry of user-owned tables; messages to the
 *   user are kept (a message outlives its user), but those carrying a link that no worker holds fail as
 *   `SUPERSEDED` (their tokens went with the user), stamped with `at`.
 * - A disabled user (`disabledAt` set) gets no new session, token or change.
 */
export interface UserRecords extends UserReads {
  /**
   * Inserts the (unverified) user and its first verification token, whoever holds the address. Refuses only a taken
   * username, and then stores nothing. An unverified user holding the username and created at or before
   * `expiredUnverifiedBefore` is an expired registration: it goes first (with everything of its own), so the
   * username is free again even before the periodic clean-up removes it. The same rows are written on every path,
   * so that the time a registration takes does not tell whether the address has an account.
   */
  create(user: NewUser, verification: StoredToken, expiredUnverifiedBefore?: Date): Promise<CreateUserResult>;
  /**
   * Consumes an unexpired `verify_email` token and marks its user verified, making it the owner of its address:
   * every other unverified user of that address is deleted (with everything of its own, and its pending link
   * messages failed as `SUPERSEDED`). Returns the updated user, or null when no such token exists (unknown, used,
   * expired or of another purpose) or when another verified user owns the address already (the token is spent all
   * the same). Of concurrent confirmations of one address, exactly one succeeds.
   */
  confirmAddress(tokenHash: string, now: Date): Promise<StoredUser | null>;
  /**
   * Marks the user verified as `confirmAddress` does (the owner of its address: the other unverified registrations
   * of it end, with their tokens and pending links) and deletes its verification tokens (an administrator's act).
   */
  markVerified(userId: string, now: Date): Promise<MarkVerifiedResult>;
  /**
   * Deletes the user with everything of its own (see above), unless `conditions` refuse it (nothing changed then).
   * `at` stamps the links it fails.
   */
  delete(userId: string, at: Date, conditions?: DeleteConditions): Promise<DeleteUserResult>;
  /**
   * Disables the account (`disabledAt` set to `at`) and ends everything it could act with: every session, every
   * outstanding token (verification and reset), any pending email change and every login challenge. Disabling a
   * disabled account changes nothing more and is `ok`. With `keepLastHolderOf`, refused (`last_holder`) when the
   * user is the last enabled holder of that role. Of a disable racing a login, no session survives: a session
   * inserted after the disable committed is refused (`SessionRecords.create` judges `disabledAt`), and one inserted
   * before is deleted by it.
   */
  disable(userId: string, at: Date, keepLastHolderOf?: string): Promise<ProtectedChangeResult>;
  /** Clears `disabledAt`; `ok` also when it was enabled. */
  enable(userId: string, now: Date): Promise<'ok' | 'unknown_user'>;
}
