import type {
  AccessChangeRefusal,
  AccessRecords,
  GrantResult,
  RevokeRoleConditions,
  RevokeRoleResult,
  RoleSummary,
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

  async listUserRoles(userId: string): Promise<string[]> {
    return [...(this.data.userRoles.get(userId) ?? [])].sort();
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
    if (grantor !== undefined && data.userRoles.get(grantor)?.has(role)) return 'own_access';
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
    if (grantor !== undefined && data.userRoles.get(grantor)?.has(role)) return 'own_access';
    data.roles.set(role, new Set([...carried].filter((name) => name !== permission)));
    return 'ok';
  }

  async grantRole(userId: string, role: string, grantor?: string): Promise<GrantResult | AccessChangeRefusal> {
    const { data } = this;
    if (!data.users.has(userId)) return 'unknown_user';
    const carried = data.roles.get(role);
    if (!carried) return 'unknown_role';
    if (grantor !== undefined) {
      if (grantor === userId) return 'own_access';
      for (const permission of carried) {
        if (permissionAnswer(data, grantor, permission) !== 'granted') return 'not_held';
      }
    }
    data.userRoles.set(userId, new Set([...(data.userRoles.get(userId) ?? []), role]));
    return 'ok';
  }

  async revokeRole(
    userId: string,
    role: string,
    conditions: RevokeRoleConditions = {},
  ): Promise<RevokeRoleResult | AccessChangeRefusal> {
    const { data } = this;
    const { keepLastHolder = false, grantor } = conditions;
    if (!data.users.has(userId)) return 'unknown_user';
    if (!data.roles.has(role)) return 'unknown_role';
    if (grantor !== undefined && grantor === userId) return 'own_access';
    if (keepLastHolder && isLastEnabledHolder(data, userId, role)) return 'last_holder';
    const held = data.userRoles.get(userId);
    if (held) data.userRoles.set(userId, new Set([...held].filter((name) => name !== role)));
    return 'ok';
  }
}

export function roleAnswer(data: MemoryData, userId: string, role: string): AccessAnswer {
  if (!data.roles.has(role)) return 'unknown';
  return data.userRoles.get(userId)?.has(role) ? 'granted' : 'denied';
}

export function permissionAnswer(data: MemoryData, userId: string, permission: string): AccessAnswer {
  if (!data.permissions.has(permission)) return 'unknown';
  for (const role of data.userRoles.get(userId) ?? []) {
    if (data.roles.get(role)?.has(permission)) return 'granted';
  }
  return 'denied';
}

/** Whether the user holds the role and no other enabled user does. */
export function isLastEnabledHolder(data: MemoryData, userId: string, role: string): boolean {
  if (!data.userRoles.get(userId)?.has(role)) return false;
  for (const [holderId, roles] of data.userRoles.entries()) {
    if (holderId !== userId && roles.has(role) && data.users.get(holderId)?.disabledAt === null) return false;
  }
  return true;
}
