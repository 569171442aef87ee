import {
  type AccessChangeRefusal,
  type AccessRecords,
  GLOBAL_SCOPE,
  type GrantResult,
  type GrantRoleConditions,
  type GrantScope,
  type RevokeRoleConditions,
  type RevokeRoleResult,
  type RoleSummary,
} from '../../services/store/access-records';
import type { AccessAnswer } from '../../services/types';
import type { MemoryData } from './memory-state';

/**
 * Roles, permissions and grants, read outside a transaction or written in one. Transactions run one at a time, so
 * the grantor checks and the last-holder check read what no concurrent change can alter before the write.
 */
export class MemoryAccessRecords implements AccessRecords {
  constructor(private readonly data: MemoryData) {}

  async checkRole(userId: string, role: string): Promise<AccessAnswer> {
    return roleAnswer(this.data, userId, role);
  }

  async checkPermission(userId: string, permission: string): Promise<AccessAnswer> {
    return permissionAnswer(this.data, userId, permission);
  }

  async listRoles(): Promise<RoleSummary[]> {
    return [...this.data.roles.entries()]
      .map(([name, permissions]) => ({ name, permissions: [...permissions].sort() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async listPermissions(): Promise<string[]> {
    return [...this.data.permissions.entries()].map(([name]) => name).sort();
  }

  async listUserRoles(userId: string, scope: GrantScope = GLOBAL_SCOPE): Promise<string[]> {
    return [...rolesOf(this.data, userId, scope)].sort();
  }

  async createRole(name: string): Promise<boolean> {
    if (this.data.roles.has(name)) return false;
    this.data.roles.set(name, new Set());
    return true;
  }

  async createPermission(name: string): Promise<boolean> {
    if (this.data.permissions.has(name)) return false;
    this.data.permissions.set(name, true);
    return true;
  }

  async grantPermission(
    role: string,
    permission: string,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal> {
    const { data } = this;
    const carried = data.roles.get(role);
    if (!carried) return 'unknown_role';
    if (!data.permissions.has(permission)) return 'unknown_permission';
    if (grantor !== undefined && rolesOf(data, grantor).has(role)) return 'own_access';
    if (grantor !== undefined && permissionAnswer(data, grantor, permission) !== 'granted') return 'not_held';
    data.roles.set(role, new Set([...carried, permission]));
    return 'ok';
  }

  async revokePermission(
    role: string,
    permission: string,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal> {
    const { data } = this;
    const carried = data.roles.get(role);
    if (!carried) return 'unknown_role';
    if (!data.permissions.has(permission)) return 'unknown_permission';
    if (grantor !== undefined && rolesOf(data, grantor).has(role)) return 'own_access';
    data.roles.set(role, new Set([...carried].filter((name) => name !== permission)));
    return 'ok';
  }

  async grantRole(
    userId: string,
    role: string,
    conditions: GrantRoleConditions = {},
  ): Promise<GrantResult | AccessChangeRefusal> {
    const { data } = this;
    const { grantor, scope = GLOBAL_SCOPE } = conditions;
    if (!data.users.has(userId)) return 'unknown_user';
    const carried = data.roles.get(role);
    if (!carried) return 'unknown_role';
    if (grantor !== undefined) {
      if (grantor === userId) return 'own_access';
      for (const permission of carried) {
        if (permissionAnswer(data, grantor, permission) !== 'granted') return 'not_held';
      }
    }
    setRoles(data, userId, scope, new Set([...rolesOf(data, userId, scope), role]));
    return 'ok';
  }

  async revokeRole(
    userId: string,
    role: string,
    conditions: RevokeRoleConditions = {},
  ): Promise<RevokeRoleResult | AccessChangeRefusal> {
    const { data } = this;
    const { keepLastHolder = false, grantor, scope = GLOBAL_SCOPE } = conditions;
    if (!data.users.has(userId)) return 'unknown_user';
    if (!data.roles.has(role)) return 'unknown_role';
    if (grantor !== undefined && grantor === userId) return 'own_access';
    if (keepLastHolder && isLastEnabledHolder(data, userId, role, scope)) return 'last_holder';
    const held = rolesOf(data, userId, scope);
    if (held.has(role)) setRoles(data, userId, scope, new Set([...held].filter((name) => name !== role)));
    return 'ok';
  }
}

const NONE: ReadonlySet<string> = new Set();

/** The roles granted to the user in `scope` (global when absent). */
export function rolesOf(data: MemoryData, userId: string, scope: GrantScope = GLOBAL_SCOPE): ReadonlySet<string> {
  return data.userRoles.get(userId)?.get(scope) ?? NONE;
}

/** Replaces the user's roles in `scope`, keeping its other scopes; a scope left without roles is no longer kept. */
function setRoles(data: MemoryData, userId: string, scope: GrantScope, roles: ReadonlySet<string>): void {
  const scopes = new Map(data.userRoles.get(userId));
  if (roles.size > 0) scopes.set(scope, roles);
  else scopes.delete(scope);
  if (scopes.size > 0) data.userRoles.set(userId, scopes);
  else data.userRoles.delete(userId);
}

export function roleAnswer(data: MemoryData, userId: string, role: string): AccessAnswer {
  if (!data.roles.has(role)) return 'unknown';
  return rolesOf(data, userId).has(role) ? 'granted' : 'denied';
}

export function permissionAnswer(data: MemoryData, userId: string, permission: string): AccessAnswer {
  if (!data.permissions.has(permission)) return 'unknown';
  for (const role of rolesOf(data, userId)) {
    if (data.roles.get(role)?.has(permission)) return 'granted';
  }
  return 'denied';
}

/** Whether the user holds the role in `scope` (global when absent) and no other enabled user does there. */
export function isLastEnabledHolder(
  data: MemoryData,
  userId: string,
  role: string,
  scope: GrantScope = GLOBAL_SCOPE,
): boolean {
  if (!rolesOf(data, userId, scope).has(role)) return false;
  for (const [holderId, scopes] of data.userRoles.entries()) {
    const held = holderId !== userId && scopes.get(scope)?.has(role) === true;
    if (held && data.users.get(holderId)?.disabledAt === null) return false;
  }
  return true;
}
