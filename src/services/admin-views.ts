import type { AuditEvent, AuditEventType } from './audit-event';
import type { AccountUser } from './types';

/**
 * Who performs an admin action: a signed-in administrator (every action checks its permission, see
 * `ADMIN_PERMISSIONS`), or the operator at the CLI on the database's machine (no check: they hold the database).
 * An administrator's `sessionToken` is the bearer token of the session acting: every action that changes something
 * needs that session recently authenticated (`reauthentication_required` without it, or without the token).
 */
export type AdminActor = { kind: 'admin'; user: Pick<AccountUser, 'id'>; sessionToken?: string } | { kind: 'operator' };

/**
 * The operator: the CLI (whoever can run it holds the database, so the core checks no permission) and a host's own
 * code managing access through `AccountService`.
 */
export const OPERATOR: AdminActor = { kind: 'operator' };

/** One account in an administrator's list. The full address is shown: finding a user by address is the point. */
export interface AdminUserSummary {
  id: string;
  username: string;
  email: string;
  verified: boolean;
  disabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** One account as an administrator reads it. */
export interface AdminUserView extends AdminUserSummary {
  disabledAt: Date | null;
  lastSignInAt: Date | null;
  roles: string[];
  permissions: string[];
  secondFactor: boolean;
  /** Live sessions now. */
  sessionCount: number;
}

/** Filters of the user list; all optional, combined with AND. */
export interface UserFilters {
  /** A prefix of the username or of the email address (case-insensitive as the keys are). */
  prefix?: string;
  verified?: boolean;
  disabled?: boolean;
  role?: string;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created strictly before. */
  createdBefore?: Date;
  /** `nextCursor` of the previous page. */
  cursor?: string;
  /** 1 to `MAX_PAGE_SIZE`; default `DEFAULT_PAGE_SIZE`. */
  limit?: number;
}

/** Filters of the audit trail; all optional, combined with AND. */
export interface AuditFilters {
  /** Events whose subject or actor is this user. */
  userId?: string;
  types?: readonly AuditEventType[];
  /** At or after. */
  since?: Date;
  /** Strictly before. */
  until?: Date;
  cursor?: string;
  limit?: number;
}

/** A page, newest first; `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export type AuditEventView = AuditEvent;

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
