import type { AuditEvent, AuditQuery, NewAuditEvent } from './audit-event';
import type { NewOutboxMessage } from './outbox-message';
import type { StoredUser } from './types';

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
  /** Sessions whose absolute and idle expiry are after `now` (see `getUserDetails`). */
  liveSessions: number;
}

/** `last_holder`: the change would leave no enabled user holding the protected role; nothing changed. */
export type ProtectedChangeResult = 'ok' | 'unknown_user' | 'last_holder';

/** `address_owned`: another verified account owns the address; nothing changed. */
export type MarkVerifiedResult = 'verified' | 'already_verified' | 'unknown_user' | 'address_owned';

/**
 * Administration and the audit trail: the reads an administrator needs and the account-wide switches. Part of the
 * one `UserStore` (same database, same transactions as the account store). Its conformance suite lives in
 * `stores/conformance/account/administration.ts` and `audit.ts`.
 */
export interface AdminStore {
  listUsers(query: UserListQuery): Promise<StoredUser[]>;
  /**
   * The account and what hangs off it, or null for an unknown user. `now` and `sessionIdleBefore` judge which
   * sessions are live (expiring after `now` and last seen after `sessionIdleBefore`).
   */
  getUserDetails(userId: string, now: Date, sessionIdleBefore: Date): Promise<UserDetails | null>;
  /**
   * Atomically disables the account (`disabledAt` set to `at`) and ends everything it could act with: every session,
   * every outstanding token (verification and reset), any pending email change and every login challenge. Disabling
   * a disabled account changes nothing more and is `ok`. With `keepLastHolderOf`, refused (`last_holder`) when the
   * user is the last enabled holder of that role. Of a disable racing a login, no session survives: a session
   * inserted after the disable committed is refused (`createSession` judges `disabledAt`), and one inserted before
   * is deleted by it. The audit event is written when the result is `ok`.
   */
  disableUser(
    userId: string,
    at: Date,
    audit?: NewAuditEvent,
    keepLastHolderOf?: string,
  ): Promise<ProtectedChangeResult>;
  /** Clears `disabledAt`; `ok` also when it was enabled. The audit event is written when the result is `ok`. */
  enableUser(userId: string, now: Date, audit?: NewAuditEvent): Promise<'ok' | 'unknown_user'>;
  /**
   * Marks the user verified as `verifyEmail` does (the owner of its address: the other unverified registrations of
   * it end, with their tokens and pending links) and deletes its verification tokens. The audit event is written on
   * `verified` only.
   */
  markUserVerified(userId: string, now: Date, audit?: NewAuditEvent): Promise<MarkVerifiedResult>;
  /**
   * Atomically deletes the user as `AccountStore.deleteUser` does (queueing `message`), unless `keepLastHolderOf`
   * names a role whose last enabled holder the user is (`last_holder`, nothing changed).
   */
  deleteUserAsAdmin(
    userId: string,
    keepLastHolderOf?: string,
    audit?: NewAuditEvent,
    message?: NewOutboxMessage,
  ): Promise<ProtectedChangeResult>;

  /** Writes an event that records no change (a refusal, a failed sign-in): its own short transaction. */
  appendAuditEvent(event: NewAuditEvent & { subjectId: string | null }): Promise<void>;
  listAuditEvents(query: AuditQuery): Promise<AuditEvent[]>;
}
