import type { AccountContext } from './account-context';
import type { RoleSummary } from './account-store';
import type { AdminActor, AdminUserSummary, AdminUserView, AuditEventView, AuditFilters, Page, UserFilters } from './admin-views';

/**
 * Administration: what an administrator (or the operator at the CLI) may do to other accounts, each action checked
 * against its permission (`ADMIN_PERMISSIONS`) and written to the audit trail in the transaction of its change.
 * Reached as `AccountService.admin`. Users are named by id.
 */
export class Administration {
  constructor(private readonly core: AccountContext) {}

  /** `gatehouse.users.read`. */
  listUsers(actor: AdminActor, filters: UserFilters): Promise<Page<AdminUserSummary>> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.users.read`; `user_not_found` for an unknown id. */
  getUser(actor: AdminActor, userId: string): Promise<AdminUserView> {
    throw new Error('TEMP stub');
  }

  /**
   * `gatehouse.users.manage`: the account cannot sign in, its sessions end and its tokens die, at once. Idempotent.
   * `last_administrator` when it is the last enabled holder of `ADMIN_ROLE`.
   */
  disableUser(actor: AdminActor, userId: string): Promise<AdminUserView> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.users.manage`. Idempotent. */
  enableUser(actor: AdminActor, userId: string): Promise<AdminUserView> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.sessions.end`: every session of the account; returns how many ended. */
  endSessions(actor: AdminActor, userId: string): Promise<number> {
    throw new Error('TEMP stub');
  }

  /**
   * `gatehouse.users.manage`: the address becomes verified and the account its owner (other unverified
   * registrations of it end). Idempotent; `address_owned` when another verified account owns the address.
   */
  markVerified(actor: AdminActor, userId: string): Promise<AdminUserView> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.users.manage`: a new verification link (superseding older ones); `account_error` when verified. */
  resendVerification(actor: AdminActor, userId: string): Promise<void> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.users.delete`; `last_administrator` for the last enabled administrator. */
  deleteUser(actor: AdminActor, userId: string): Promise<void> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.roles.manage`; returns the user's roles after the change. Idempotent. */
  grantRole(actor: AdminActor, userId: string, role: string): Promise<string[]> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.roles.manage`; `last_administrator` when it would leave `ADMIN_ROLE` with no enabled holder. */
  revokeRole(actor: AdminActor, userId: string, role: string): Promise<string[]> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.roles.manage`. */
  listRoles(actor: AdminActor): Promise<RoleSummary[]> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.roles.manage`. */
  listPermissions(actor: AdminActor): Promise<string[]> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.roles.manage`; true when created now (idempotent). */
  createRole(actor: AdminActor, name: string): Promise<boolean> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.roles.manage`; true when created now (idempotent). */
  createPermission(actor: AdminActor, name: string): Promise<boolean> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.roles.manage`; idempotent. */
  grantPermission(actor: AdminActor, role: string, permission: string): Promise<void> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.roles.manage`; `protected_permission` for a Gatehouse permission of `ADMIN_ROLE`. */
  revokePermission(actor: AdminActor, role: string, permission: string): Promise<void> {
    throw new Error('TEMP stub');
  }

  /** `gatehouse.audit.read`: the audit trail, newest first. */
  listAuditEvents(actor: AdminActor, filters: AuditFilters): Promise<Page<AuditEventView>> {
    throw new Error('TEMP stub');
  }

  /**
   * For the operator (CLI): creates `ADMIN_ROLE` with every Gatehouse permission if missing, and grants it to the
   * user. Returns whether the user did not hold it before.
   */
  makeAdministrator(username: string): Promise<boolean> {
    throw new Error('TEMP stub');
  }
}
