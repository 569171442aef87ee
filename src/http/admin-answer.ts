import type { RoleSummary } from '../services/user-store';
import type { AdminUserSummary, AdminUserView, AuditEventView, Page } from '../services/admin-views';
import type { AuditDetails } from '../services/audit-event';

/** One account in `GET /admin/users`: the JSON of the API, snake_case, instants as ISO strings. */
export interface UserSummaryAnswer {
  id: string;
  username: string;
  email: string;
  verified: boolean;
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

/** One account as `GET /admin/users/:id` and the admin actions on it answer. */
export interface AdminUserAnswer extends UserSummaryAnswer {
  disabled_at: string | null;
  last_sign_in_at: string | null;
  roles: string[];
  permissions: string[];
  second_factor: boolean;
  session_count: number;
}

/** One event of the audit trail. */
export interface AuditEventAnswer {
  id: string;
  at: string;
  type: string;
  outcome: string;
  actor: { type: string; id: string | null };
  subject_id: string | null;
  ip: string | null;
  request_id: string | null;
  details: AuditDetails | null;
}

const iso = (instant: Date | null): string | null => (instant ? instant.toISOString() : null);

/** Named field by field, so nothing the core adds to a view reaches a client unless it is written here. */
export function userSummaryAnswer(user: AdminUserSummary): UserSummaryAnswer {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    verified: user.verified,
    disabled: user.disabled,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

export function adminUserAnswer(user: AdminUserView): AdminUserAnswer {
  return {
    ...userSummaryAnswer(user),
    disabled_at: iso(user.disabledAt),
    last_sign_in_at: iso(user.lastSignInAt),
    roles: [...user.roles],
    permissions: [...user.permissions],
    second_factor: user.secondFactor,
    session_count: user.sessionCount,
  };
}

/** The body of `GET /admin/users`. */
export function userPageAnswer(page: Page<AdminUserSummary>): {
  users: UserSummaryAnswer[];
  next_cursor: string | null;
} {
  return { users: page.items.map(userSummaryAnswer), next_cursor: page.nextCursor };
}

export function auditEventAnswer(event: AuditEventView): AuditEventAnswer {
  return {
    id: event.id,
    at: event.at.toISOString(),
    type: event.type,
    outcome: event.outcome,
    actor: { type: event.actorType, id: event.actorId },
    subject_id: event.subjectId,
    ip: event.ip,
    request_id: event.requestId,
    details: event.details ? { ...event.details } : null,
  };
}

/** The body of `GET /admin/audit-events` and `GET /admin/users/:id/audit-events`. */
export function auditPageAnswer(page: Page<AuditEventView>): {
  events: AuditEventAnswer[];
  next_cursor: string | null;
} {
  return { events: page.items.map(auditEventAnswer), next_cursor: page.nextCursor };
}

/** The body of `GET /admin/roles`. */
export function rolesAnswer(roles: readonly RoleSummary[]): { roles: RoleSummary[] } {
  return { roles: roles.map((role) => ({ name: role.name, permissions: [...role.permissions] })) };
}
