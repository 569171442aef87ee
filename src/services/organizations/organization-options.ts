import { ConfigurationError } from '../../errors/configuration-error';
import { isAccessName } from '../identity';

const DAY = 24 * 60 * 60_000;

/**
 * Gatehouse's own permissions inside an organization. Every other permission of the template is the host's
 * (`projects.write`); a name starting `gatehouse.` that is not one of these is refused at start.
 */
export const GATEHOUSE_ORGANIZATION_PERMISSIONS = [
  'gatehouse.members.read',
  'gatehouse.members.invite',
  'gatehouse.members.manage',
  'gatehouse.organization.update',
  'gatehouse.organization.delete',
] as const;

export type GatehouseOrganizationPermission = (typeof GATEHOUSE_ORGANIZATION_PERMISSIONS)[number];

/** The role a creator gets, and the one the last-owner rule protects: it holds every permission of the template. */
export const OWNER_ROLE = 'owner';

/**
 * The template's roles without `owner` (whose permissions are always all of the template's): `admin` may do all but
 * delete the organization (and, by rule, not touch owners); `member` reads the roster.
 */
export const DEFAULT_ORGANIZATION_ROLES: Readonly<Record<string, readonly string[]>> = {
  admin: [
    'gatehouse.members.read',
    'gatehouse.members.invite',
    'gatehouse.members.manage',
    'gatehouse.organization.update',
  ],
  member: ['gatehouse.members.read'],
};

/** `AccountOptions.organizations`: one role template for every organization, and the limits. */
export interface OrganizationOptions {
  /**
   * The roles below `owner`, each with its permissions (Gatehouse's and the host's). `owner` may not be listed: it
   * holds every permission any role here names, and Gatehouse's five. Default `DEFAULT_ORGANIZATION_ROLES`.
   * Global roles grant nothing inside an organization: these are apart from them.
   */
  roles?: Record<string, readonly string[]>;
  /** Who may create an organization: any verified user (default), or only holders of `gatehouse.organizations.manage`. */
  creation?: 'users' | 'administrators';
  /** How long an invitation works. Default 7 days, at most 30. */
  invitationTtlMs?: number;
  /** Memberships one user may hold (creating and accepting count). Default 100. */
  maxOrganizationsPerUser?: number;
  /** Members plus pending invitations of one organization. Default 1,000. */
  maxMembers?: number;
  /** Pending invitations of one organization. Default 100. */
  maxPendingInvitations?: number;
  /**
   * Called after an organization's deletion has committed (its members, invitations and grants are gone). A failure
   * is logged, never undoes the deletion.
   */
  onDeleted?: (organization: { id: string; name: string }) => void | Promise<void>;
}

/** The template as checked at start: every role with its permissions, `owner` included. */
export interface OrganizationTemplate {
  /** Role → its permissions; `owner` first, holding all of them. */
  readonly roles: ReadonlyMap<string, ReadonlySet<string>>;
  /** Every permission any role holds: `owner`'s. */
  readonly permissions: ReadonlySet<string>;
  /** Role → its permissions sorted, as views and `@CurrentOrganization()` show them: sorted once, at start. */
  readonly sortedPermissions: ReadonlyMap<string, readonly string[]>;
}

export interface OrganizationSettings {
  template: OrganizationTemplate;
  creation: 'users' | 'administrators';
  invitationTtlMs: number;
  maxOrganizationsPerUser: number;
  maxMembers: number;
  maxPendingInvitations: number;
  onDeleted: OrganizationOptions['onDeleted'] | null;
}

/** Checks `AccountOptions.organizations` at start; `false` turns organizations off (null). */
export function resolveOrganizationSettings(
  options: OrganizationOptions | false | undefined,
): OrganizationSettings | null {
  if (options === false) return null;
  const given = options ?? {};
  const settings: OrganizationSettings = {
    template: organizationTemplate(given.roles ?? DEFAULT_ORGANIZATION_ROLES),
    creation: given.creation ?? 'users',
    invitationTtlMs: given.invitationTtlMs ?? 7 * DAY,
    maxOrganizationsPerUser: given.maxOrganizationsPerUser ?? 100,
    maxMembers: given.maxMembers ?? 1_000,
    maxPendingInvitations: given.maxPendingInvitations ?? 100,
    onDeleted: given.onDeleted ?? null,
  };
  if (settings.creation !== 'users' && settings.creation !== 'administrators') {
    throw new ConfigurationError("Gatehouse: organizations.creation must be 'users' or 'administrators'");
  }
  const ttl = settings.invitationTtlMs;
  if (!Number.isFinite(ttl) || ttl < 60_000 || ttl > 30 * DAY) {
    throw new ConfigurationError('Gatehouse: organizations.invitationTtlMs must be between 1 minute and 30 days');
  }
  for (const key of ['maxOrganizationsPerUser', 'maxMembers', 'maxPendingInvitations'] as const) {
    const value = settings[key];
    if (!Number.isInteger(value) || value < 1 || value > 1_000_000) {
      throw new ConfigurationError(`Gatehouse: organizations.${key} must be a whole number from 1 to 1000000`);
    }
  }
  if (settings.onDeleted !== null && typeof settings.onDeleted !== 'function') {
    throw new ConfigurationError('Gatehouse: organizations.onDeleted must be a function');
  }
  return settings;
}

/** Role names: lower-case letters, digits, `_` and `-`, starting with a letter, at most 32. */
export const ORGANIZATION_ROLE_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

/** The template from the roles below `owner`; a bad name or permission stops the start, naming it. */
export function organizationTemplate(roles: Record<string, readonly string[]>): OrganizationTemplate {
  if (roles === null || typeof roles !== 'object' || Array.isArray(roles)) {
    throw new ConfigurationError('Gatehouse: organizations.roles must map role names to lists of permissions');
  }
  const all = new Set<string>(GATEHOUSE_ORGANIZATION_PERMISSIONS);
  const below = new Map<string, ReadonlySet<string>>();
  for (const [role, permissions] of Object.entries(roles)) {
    if (!ORGANIZATION_ROLE_PATTERN.test(role)) {
      throw new ConfigurationError(
        `Gatehouse: organizations.roles: "${role}" is not a role name (a-z, 0-9, _ and -, starting with a letter, at most 32)`,
      );
    }
    if (role === OWNER_ROLE) {
      throw new ConfigurationError('Gatehouse: organizations.roles: "owner" is implicit (it holds every permission)');
    }
    if (!Array.isArray(permissions)) {
      throw new ConfigurationError(`Gatehouse: organizations.roles.${role} must be a list of permissions`);
    }
    const held = new Set<string>();
    for (const permission of permissions) {
      if (!isAccessName(permission)) {
        throw new ConfigurationError(
          `Gatehouse: organizations.roles.${role}: "${String(permission)}" is not a permission name`,
        );
      }
      if (
        permission.startsWith('gatehouse.') &&
        !(GATEHOUSE_ORGANIZATION_PERMISSIONS as readonly string[]).includes(permission)
      ) {
        throw new ConfigurationError(
          `Gatehouse: organizations.roles.${role}: "${permission}" is not one of Gatehouse's organization permissions`,
        );
      }
      held.add(permission);
      all.add(permission);
    }
    below.set(role, held);
  }
  if (below.size === 0) throw new ConfigurationError('Gatehouse: organizations.roles must name at least one role');
  const byRole = new Map<string, ReadonlySet<string>>([[OWNER_ROLE, all], ...below]);
  const sortedPermissions = new Map(
    [...byRole].map(([role, held]) => [role, Object.freeze([...held].sort())] as const),
  );
  return { roles: byRole, permissions: all, sortedPermissions };
}

/** `permissionsOf`, sorted (shared and frozen: copy it to change it); empty for a name the template does not have. */
export function sortedPermissionsOf(template: OrganizationTemplate, role: string): readonly string[] {
  return template.sortedPermissions.get(role) ?? [];
}

/** The permissions of a role of the template; empty for a name it does not have (a role removed from the template). */
export function permissionsOf(template: OrganizationTemplate, role: string): ReadonlySet<string> {
  return template.roles.get(role) ?? new Set();
}
