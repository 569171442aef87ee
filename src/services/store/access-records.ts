import type { AccessAnswer } from '../types';

/**
 * Where a role grant applies. Every grant today is global (`GLOBAL_SCOPE`): it is what `@Authorized('role:x')` and
 * `perm:x`, the admin views and the last-holder protections read. A slice that grants roles within something (an
 * organization) gives its grants a scope of its own, any other non-empty string; such a grant answers no global check.
 */
export type GrantScope = string;

/**
 * The scope of global grants: the empty string, which no organization id or other scope can ever be, so no scope a
 * slice makes up can be mistaken for it (a word such as `'global'` could be); also what a row written without a scope
 * (by an instance of an earlier release, during an upgrade) gets.
 */
export const GLOBAL_SCOPE: GrantScope = '';

export type GrantResult = 'ok' | 'unknown_role' | 'unknown_permission' | 'unknown_user';

/**
 * A change of access made by an administrator (`grantor`, a user id) that the store refused, nothing changed:
 * `own_access` when it would change the grantor's own roles or permissions (the user is the grantor, or the role is
 * one the grantor holds), `not_held` when it would hand on a permission the grantor does not hold itself.
 */
export type AccessChangeRefusal = 'own_access' | 'not_held';

/** `keepLastHolder`: `last_holder` when the user is the last enabled holder; nothing changed. */
export type RevokeRoleResult = GrantResult | 'last_holder';

export interface RoleSummary {
  name: string;
  permissions: string[];
}

/** How `AccessRecords.grantRole` is decided. */
export interface GrantRoleConditions {
  /** The administrator making the change (see `AccessRecords`). */
  grantor?: string;
  /** Where the grant applies; `GLOBAL_SCOPE` when absent. */
  scope?: GrantScope;
}

/** How `AccessRecords.revokeRole` is decided. */
export interface RevokeRoleConditions extends GrantRoleConditions {
  /** Refused (`last_holder`) when the user is the last enabled user holding the role in the grant's scope. */
  keepLastHolder?: boolean;
}

/**
 * Roles, permissions and grants, read outside a transaction or in one. The checks read global grants only: a grant in
 * any other scope never answers them.
 */
export interface AccessReads {
  /** Whether the user holds the role globally; `unknown` when no role of that name exists. */
  checkRole(userId: string, role: string): Promise<AccessAnswer>;
  /** Whether any global role of the user carries the permission; `unknown` when no permission of that name exists. */
  checkPermission(userId: string, permission: string): Promise<AccessAnswer>;
  /** Every role by name, each with its permissions; all lists are sorted (by UTF-16 code units, as `Array#sort`). */
  listRoles(): Promise<RoleSummary[]>;
  listPermissions(): Promise<string[]>;
  /** The user's roles in `scope` (global when absent), sorted; empty for an unknown user. */
  listUserRoles(userId: string, scope?: GrantScope): Promise<string[]>;
}

/**
 * Roles, permissions and grants, inside a transaction (`UserStoreTransaction.access`).
 *
 * The grant and revoke methods are idempotent: granting twice, or revoking what is not granted, is `ok`. Unknown
 * names are reported in argument order: with both unknown, the first one is named. With `grantor` (the
 * administrator making the change), the store also refuses what would escalate (`AccessChangeRefusal`): any change
 * of the grantor's own access (a grant or revoke of a role the grantor holds, or a grant or revoke of a role to or
 * from the grantor), and a grant that hands on a permission the grantor does not hold (granting a role hands on all
 * its permissions). Concurrent changes of access are decided one after the other, so a grantor demoted meanwhile,
 * or a role changed meanwhile, cannot slip through. Unknown names are reported before a refusal.
 *
 * A grant is the user, the role and its scope (`GrantScope`); the same role may be granted to a user in several
 * scopes, each granted and revoked apart. What the grantor holds, for the refusals, is what it holds globally.
 */
export interface AccessRecords extends AccessReads {
  /** Creates the role if missing; true when it was created now. */
  createRole(name: string): Promise<boolean>;
  createPermission(name: string): Promise<boolean>;
  grantPermission(role: string, permission: string, grantor?: string): Promise<GrantResult | AccessChangeRefusal>;
  revokePermission(role: string, permission: string, grantor?: string): Promise<GrantResult | AccessChangeRefusal>;
  grantRole(userId: string, role: string, conditions?: GrantRoleConditions): Promise<GrantResult | AccessChangeRefusal>;
  /** Concurrent revokes of the last two holders cannot both succeed under `keepLastHolder`. */
  revokeRole(
    userId: string,
    role: string,
    conditions?: RevokeRoleConditions,
  ): Promise<RevokeRoleResult | AccessChangeRefusal>;
}
