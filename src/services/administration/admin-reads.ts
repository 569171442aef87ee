import type { StoredUser } from '../types';

/**
 * A page of users, newest first (`createdAt`, then `id`, both descending). Filters combine with AND. Keyset
 * pagination: a registration that commits while an administrator pages neither shifts nor repeats a row.
 */
export interface UserListQuery {
  /** Canonical prefix (lower case) of the username key or of the email key: either matches. */
  prefix?: string;
  verified?: boolean;
  disabled?: boolean;
  /** Holds this role. */
  role?: string;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created strictly before. */
  createdBefore?: Date;
  /** Continue after this user (the last of the previous page). */
  after?: UserCursor;
  limit: number;
}

export interface UserCursor {
  createdAt: Date;
  id: string;
}

/** What an administrator reads of one account, gathered in one consistent read. */
export interface UserDetails {
  user: StoredUser;
  /** The last successful sign-in (a session was made), or null when never. */
  lastSignInAt: Date | null;
  roles: string[];
  /** Every permission the user holds through a role, sorted, without duplicates. */
  permissions: string[];
  /** Whether an enabled second factor is on (one waiting for its first code is not). */
  secondFactor: boolean;
  /** Sessions whose absolute and idle expiry are after `now` (see `details`). */
  liveSessions: number;
}

/** The reads of the administration (`UserStore.admin`), outside a transaction. */
export interface AdminReads {
  listUsers(query: UserListQuery): Promise<StoredUser[]>;
  /**
   * The account and what hangs off it, or null for an unknown user. `now` and `sessionIdleBefore` judge which
   * sessions are live (expiring after `now` and last seen after `sessionIdleBefore`).
   */
  userDetails(userId: string, now: Date, sessionIdleBefore: Date): Promise<UserDetails | null>;
}
