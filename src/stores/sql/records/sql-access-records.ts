import type { Kysely } from 'kysely';
import {
  type AccessChangeRefusal,
  type AccessReads,
  type AccessRecords,
  GLOBAL_SCOPE,
  type GrantResult,
  type GrantRoleConditions,
  type GrantScope,
  type RevokeRoleConditions,
  type RevokeRoleResult,
  type RoleSummary,
} from '../../../services/store/access-records';
import type { AccessAnswer } from '../../../services/types';
import type { RequestPathQueries } from '../request-path-queries';
import type { Database } from '../schema';
import type { SqlUnit } from './unit-of-work';
import { isLastEnabledHolder } from './user-rows';

/** Roles, permissions and grants, read on `db` (the store's, or a transaction's). */
export class SqlAccessReads implements AccessReads {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly queries: RequestPathQueries,
  ) {}

  async checkRole(userId: string, role: string): Promise<AccessAnswer> {
    // One query on the request path: the role's row (absent: unknown) and the user's grant of it, if any.
    const [row] = await this.queries.role.execute(this.db, userId, role);
    if (!row) return 'unknown';
    return row.holder === null ? 'denied' : 'granted';
  }

  async checkPermission(userId: string, permission: string): Promise<AccessAnswer> {
    // One query on the request path: the permission's row (absent: unknown) and whether a role of the user carries it.
    const [row] = await this.queries.permission.execute(this.db, userId, permission);
    if (!row) return 'unknown';
    // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
    return row.granted ? 'granted' : 'denied';
  }

  async listRoles(): Promise<RoleSummary[]> {
    const rows = await this.db
      .selectFrom('roles as r')
      .leftJoin('role_permissions as rp', 'rp.role', 'r.name')
      .select(['r.name as role', 'rp.permission'])
      .execute();
    const permissionsByRole = new Map<string, string[]>();
    for (const { role, permission } of rows) {
      const permissions = permissionsByRole.get(role) ?? [];
      if (permission !== null) permissions.push(permission);
      permissionsByRole.set(role, permissions);
    }
    return sortNames([...permissionsByRole.keys()]).map((name) => ({
      name,
      permissions: sortNames(permissionsByRole.get(name) ?? []),
    }));
  }

  async listPermissions(): Promise<string[]> {
    const rows = await this.db.selectFrom('permissions').select('name').execute();
    return sortNames(rows.map((row) => row.name));
  }

  async listUserRoles(userId: string, scope: GrantScope = GLOBAL_SCOPE): Promise<string[]> {
    return userRoleNames(this.db, userId, scope);
  }
}

/**
 * Roles, permissions and grants, inside a transaction. Every change first waits for the others
 * (`lockAccessChanges`), so a check of who holds what and the change that depends on it cannot interleave with a
 * concurrent change of either.
 *
 * Inserts that may meet the row already there say so with ON CONFLICT DO NOTHING rather than by failing: the
 * transaction goes on (to its audit event), and a unique violation of anything else is still an error.
 */
export class SqlAccessRecords implements AccessRecords {
  constructor(private readonly unit: SqlUnit) {}

  async checkRole(userId: string, role: string): Promise<AccessAnswer> {
    return (await this.reads()).checkRole(userId, role);
  }

  async checkPermission(userId: string, permission: string): Promise<AccessAnswer> {
    return (await this.reads()).checkPermission(userId, permission);
  }

  async listRoles(): Promise<RoleSummary[]> {
    return (await this.reads()).listRoles();
  }

  async listPermissions(): Promise<string[]> {
    return (await this.reads()).listPermissions();
  }

  async listUserRoles(userId: string, scope?: GrantScope): Promise<string[]> {
    return (await this.reads()).listUserRoles(userId, scope);
  }

  createRole(name: string): Promise<boolean> {
    return this.createName('roles', name);
  }

  createPermission(name: string): Promise<boolean> {
    return this.createName('permissions', name);
  }

  /** Inserts the name unless it exists; true when it was created now. */
  private async createName(table: 'roles' | 'permissions', name: string): Promise<boolean> {
    const trx = await this.unit.ready();
    const created = await trx
      .insertInto(table)
      .values({ name })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    return Number(created.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async grantPermission(
    role: string,
    permission: string,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal> {
    const trx = await this.lockedForChange();
    const unknown = await unknownRoleOrPermission(trx, role, permission);
    if (unknown) return unknown;
    if (grantor !== undefined) {
      if (await holdsRole(trx, grantor, role)) return 'own_access';
      if ((await permissionsNotHeld(trx, grantor, [permission])).length > 0) return 'not_held';
    }
    await trx
      .insertInto('role_permissions')
      .values({ role, permission })
      .onConflict((oc) => oc.columns(['role', 'permission']).doNothing())
      .execute();
    return 'ok';
  }

  async revokePermission(
    role: string,
    permission: string,
    grantor?: string,
  ): Promise<GrantResult | AccessChangeRefusal> {
    const trx = await this.lockedForChange();
    const unknown = await unknownRoleOrPermission(trx, role, permission);
    if (unknown) return unknown;
    if (grantor !== undefined && (await holdsRole(trx, grantor, role))) return 'own_access';
    await trx.deleteFrom('role_permissions').where('role', '=', role).where('permission', '=', permission).execute();
    return 'ok';
  }

  async grantRole(
    userId: string,
    role: string,
    conditions: GrantRoleConditions = {},
  ): Promise<GrantResult | AccessChangeRefusal> {
    const { grantor, scope = GLOBAL_SCOPE } = conditions;
    const trx = await this.lockedForChange();
    const unknown = await unknownUserOrRole(trx, userId, role, this.unit.capabilities.rowLocks);
    if (unknown) return unknown;
    if (grantor !== undefined) {
      if (grantor === userId) return 'own_access';
      const carried = await trx.selectFrom('role_permissions').select('permission').where('role', '=', role).execute();
      const missing = await permissionsNotHeld(
        trx,
        grantor,
        carried.map((row) => row.permission),
      );
      if (missing.length > 0) return 'not_held';
    }
    await trx
      .insertInto('user_roles')
      .values({ user_id: userId, role, scope })
      .onConflict((oc) => oc.columns(['user_id', 'scope', 'role']).doNothing())
      .execute();
    return 'ok';
  }

  async revokeRole(
    userId: string,
    role: string,
    conditions: RevokeRoleConditions = {},
  ): Promise<RevokeRoleResult | AccessChangeRefusal> {
    const { keepLastHolder = false, grantor, scope = GLOBAL_SCOPE } = conditions;
    const { rowLocks } = this.unit.capabilities;
    const trx = await this.lockedForChange();
    const unknown = await unknownUserOrRole(trx, userId, role, rowLocks);
    if (unknown) return unknown;
    if (grantor !== undefined && grantor === userId) return 'own_access';
    if (keepLastHolder && (await isLastEnabledHolder(trx, userId, role, rowLocks, scope))) return 'last_holder';
    await trx
      .deleteFrom('user_roles')
      .where('user_id', '=', userId)
      .where('scope', '=', scope)
      .where('role', '=', role)
      .execute();
    return 'ok';
  }

  /** The transaction, once no other change of access is under way (`SqlCapabilities.lockAccessChanges`). */
  private async lockedForChange(): Promise<Kysely<Database>> {
    const trx = await this.unit.ready();
    await this.unit.capabilities.lockAccessChanges?.(trx);
    return trx;
  }

  private async reads(): Promise<SqlAccessReads> {
    return new SqlAccessReads(await this.unit.ready(), this.unit.queries);
  }
}

async function unknownRoleOrPermission(
  trx: Kysely<Database>,
  role: string,
  permission: string,
): Promise<GrantResult | null> {
  if (!(await rowExists(trx, 'roles', role))) return 'unknown_role';
  if (!(await rowExists(trx, 'permissions', permission))) return 'unknown_permission';
  return null;
}

async function unknownUserOrRole(
  trx: Kysely<Database>,
  userId: string,
  role: string,
  rowLocks: boolean,
): Promise<GrantResult | null> {
  // PostgreSQL text holds no NUL, so no user or role has one, and asking would be an error there (22021).
  if (userId.includes('\u0000')) return 'unknown_user';
  if (role.includes('\u0000')) return 'unknown_role';
  // FOR KEY SHARE: a deletion of the user waits for the grant (and then removes it) or has already happened.
  const user = await trx
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .$if(rowLocks, (query) => query.forKeyShare())
    .executeTakeFirst();
  if (!user) return 'unknown_user';
  if (!(await rowExists(trx, 'roles', role))) return 'unknown_role';
  return null;
}

/** Whether the user holds the role globally (a grantor's access is its global grants). */
async function holdsRole(trx: Kysely<Database>, userId: string, role: string): Promise<boolean> {
  const row = await trx
    .selectFrom('user_roles')
    .select('role')
    .where('user_id', '=', userId)
    .where('scope', '=', GLOBAL_SCOPE)
    .where('role', '=', role)
    .executeTakeFirst();
  return row !== undefined;
}

/** The names of the roles granted to the user in `scope`, sorted. */
export async function userRoleNames(db: Kysely<Database>, userId: string, scope: GrantScope): Promise<string[]> {
  const rows = await db
    .selectFrom('user_roles')
    .select('role')
    .where('user_id', '=', userId)
    .where('scope', '=', scope)
    .execute();
  return sortNames(rows.map((row) => row.role));
}

/** Those of `permissions` that no global role of the user carries. */
async function permissionsNotHeld(
  trx: Kysely<Database>,
  userId: string,
  permissions: readonly string[],
): Promise<string[]> {
  if (permissions.length === 0) return [];
  const rows = await trx
    .selectFrom('user_roles as ur')
    .innerJoin('role_permissions as rp', 'rp.role', 'ur.role')
    .select('rp.permission')
    .where('ur.user_id', '=', userId)
    .where('ur.scope', '=', GLOBAL_SCOPE)
    .where('rp.permission', 'in', [...permissions])
    .execute();
  const held = new Set(rows.map((row) => row.permission));
  return permissions.filter((permission) => !held.has(permission));
}

async function rowExists(trx: Kysely<Database>, table: 'roles' | 'permissions', name: string): Promise<boolean> {
  return (await trx.selectFrom(table).select('name').where('name', '=', name).executeTakeFirst()) !== undefined;
}

/** Sorted in JS rather than by ORDER BY, so the order never depends on a database collation. */
export function sortNames(names: string[]): string[] {
  return [...names].sort();
}
