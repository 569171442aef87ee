import { AccountError } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import type { Administration } from './administration';
import { OPERATOR } from '../admin-views';
import { checkPermissionName, checkRoleName } from '../identity';
import type { AccessAnswer, AccessQuery } from '../types';
import type { RoleSummary } from '../user-store';

/**
 * Roles and permissions as a host's code sees them (`AccountService.access`): whether a user holds one, and the
 * operator's changes. The host's code and the CLI manage access as the operator: checked by nothing but their access
 * to the process, and audited as such (`Administration`, which the admin routes reach with an administrator instead).
 * Users are named by username here.
 */
export class AccessControl {
  constructor(
    private readonly core: AccountContext,
    private readonly admin: Administration,
  ) {}

  /** Creates a role if it does not exist; true when it was created now. */
  createRole(name: string): Promise<boolean> {
    return this.admin.createRole(OPERATOR, name);
  }

  createPermission(name: string): Promise<boolean> {
    return this.admin.createPermission(OPERATOR, name);
  }

  grantPermission(role: string, permission: string): Promise<void> {
    return this.admin.grantPermission(OPERATOR, role, permission);
  }

  /** Refuses (`protected_permission`) to take a Gatehouse permission from `gatehouse-admin`. */
  revokePermission(role: string, permission: string): Promise<void> {
    return this.admin.revokePermission(OPERATOR, role, permission);
  }

  async grantRole(username: string, role: string): Promise<void> {
    await this.admin.grantRole(OPERATOR, await this.admin.userIdOf(username), role);
  }

  /** Refuses (`last_administrator`) to take `gatehouse-admin` from its last enabled holder. */
  async revokeRole(username: string, role: string): Promise<void> {
    await this.admin.revokeRole(OPERATOR, await this.admin.userIdOf(username), role);
  }

  listRoles(): Promise<RoleSummary[]> {
    return this.admin.listRoles(OPERATOR);
  }

  listPermissions(): Promise<string[]> {
    return this.admin.listPermissions(OPERATOR);
  }

  async listUserRoles(username: string): Promise<string[]> {
    return this.core.store.access.listUserRoles((await this.core.requireUser(username)).id);
  }

  /** Whether the user holds the role, read from the store now (a demotion counts on the next request). */
  async hasRole(user: { id: string }, role: string): Promise<boolean> {
    const answer = await this.core.store.access.checkRole(user.id, checkRoleName(role));
    return isGranted({ kind: 'role', name: role }, answer);
  }

  /** Whether any role of the user carries the permission. */
  async hasPermission(user: { id: string }, permission: string): Promise<boolean> {
    const answer = await this.core.store.access.checkPermission(user.id, checkPermissionName(permission));
    return isGranted({ kind: 'permission', name: permission }, answer);
  }

  async requireRole<U extends { id: string }>(user: U, role: string): Promise<U> {
    if (!(await this.hasRole(user, role))) throw permissionDenied();
    return user;
  }

  async requirePermission<U extends { id: string }>(user: U, permission: string): Promise<U> {
    if (!(await this.hasPermission(user, permission))) throw permissionDenied();
    return user;
  }
}

/**
 * What `requireRole` / `requirePermission` decide, for an answer already read (by `authenticateSession` with
 * `access`): an invalid or unknown name throws as they do, and anything but a grant is `permission_denied`.
 */
export function requireAccess(query: AccessQuery, answer: AccessAnswer): void {
  if (query.kind === 'role') checkRoleName(query.name);
  else checkPermissionName(query.name);
  if (!isGranted(query, answer)) throw permissionDenied();
}

/** Whether the answer grants it; a role or permission that does not exist is an error, not a refusal. */
function isGranted(query: AccessQuery, answer: AccessAnswer): boolean {
  if (answer === 'unknown') {
    throw query.kind === 'role'
      ? new AccountError('unknown_role', `Unknown role: ${query.name}`)
      : new AccountError('unknown_permission', `Unknown permission: ${query.name}`);
  }
  return answer === 'granted';
}

function permissionDenied(): AccountError {
  return new AccountError('permission_denied', 'Permission denied');
}
