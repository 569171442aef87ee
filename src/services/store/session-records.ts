import type { Awaitable } from '../awaitable';
import type { SessionCheck, SessionQuery, StoredSession, StoredUser } from '../types';

/**
 * Sessions as the request path reads them, outside a transaction (`UserStore.sessions`). Every read sees only what
 * is committed: a session ended or an account disabled anywhere is gone at the next call. Expiry is judged by the
 * caller.
 */
export interface SessionReads {
  /**
   * What checking a request's session needs (`SessionCheck`), for every authenticated request. With `access`, the
   * same statement also answers it for the session's user, as `AccessReads.checkRole` or `checkPermission` would (a
   * guard's one read); with a `MembershipQuery`, the user's role in that organization (`SessionCheck.membership`,
   * null for none), read in the same statement, uncached. A store that reads synchronously may answer with the value itself (the SQL store on SQLite
   * does): the check of a request then needs no promise. A failure must still come as a rejected promise, never a
   * throw. A session whose `credentialEpoch` is not its user's is not found (null), compared in the same read.
   */
  check(tokenHash: string, query?: SessionQuery): Awaitable<SessionCheck | null>;
  /**
   * One indexed read: the session and its user, or null. Like `check`, it finds no session issued under an earlier
   * `credentialEpoch` than its user's.
   */
  findWithUser(tokenHash: string): Promise<{ session: StoredSession; user: StoredUser } | null>;
  /** Every stored session of the user, newest first (`createdAt`, then `id`, both descending); empty when unknown. */
  list(userId: string): Promise<StoredSession[]>;
  /**
   * Moves the idle window of a session: the one write of the request path, its own statement (it needs no
   * transaction and may be lost to a crash of the machine: the session then ends a little sooner).
   */
  touch(tokenHash: string, lastSeenAt: Date): Promise<void>;
}

/**
 * Sessions, inside a transaction (`UserStoreTransaction.sessions`). Ending every session of a user also drops any
 * pending email change of the user (a change left waiting would outlive the sessions that asked for it), failing its
 * unsent link messages as `SUPERSEDED`, stamped with `at`.
 */
export interface SessionRecords {
  /**
   * Inserts the session only if its user still exists at the session's `credentialEpoch` and is not disabled: a
   * login that verified a password which a reset, change or deletion has just replaced creates no session. With the
   * session, the user's `lastSignInAt` becomes the session's `createdAt`. False when nothing was inserted.
   */
  create(session: StoredSession): Promise<boolean>;
  /** Deletes the session; false when there was none. */
  delete(tokenHash: string): Promise<boolean>;
  /** Deletes the session with this public id if it is the user's; false when the user has no such session. */
  deleteById(userId: string, sessionId: string): Promise<boolean>;
  /** Deletes every session of the user (see above); how many went, or null when the user does not exist. */
  deleteAll(userId: string, at: Date): Promise<number | null>;
  /**
   * Deletes every session of the user but the one of `keepTokenHash`; how many went, or null when the user does not
   * exist. A pending email change goes too (as in `deleteAll`) unless the kept session asked for it.
   */
  deleteOthers(userId: string, keepTokenHash: string, at: Date): Promise<number | null>;
  /**
   * Sets the session's `authenticatedAt` (a re-authentication) only while the session exists and its user's
   * `credentialEpoch` is still `credentialEpoch` (the one under which the password was just verified); false, and
   * nothing changed, otherwise.
   */
  markAuthenticated(tokenHash: string, credentialEpoch: number, at: Date): Promise<boolean>;
}
