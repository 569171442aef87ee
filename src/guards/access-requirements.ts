import { ConfigurationError } from '../errors/configuration-error';

/**
 * A requirement inside the organization the route names: any membership (`'org'`), exactly one role of the template
 * (`'org:role:<name>'`), or a permission the member's role holds (`'org:perm:<name>'`).
 */
export type OrganizationRequirement =
  { kind: 'org-member' } | { kind: 'org-role'; name: string } | { kind: 'org-permission'; name: string };

/**
 * One name of `@Authorized(...)`, read as a role, a permission, the second factor, a session (not an API key), or an
 * organization's.
 */
export type AccessRequirement =
  { kind: 'role' | 'permission'; name: string } | { kind: 'mfa' } | { kind: 'session' } | OrganizationRequirement;

/** The requirement that the session was made with a second factor. */
export const SECOND_FACTOR_REQUIREMENT = 'mfa';

/** The requirement that the request was made with a session, not an API key (`docs/api-keys.md`). */
export const SESSION_REQUIREMENT = 'session';

/** The requirement of any membership of the route's organization. */
export const ORGANIZATION_REQUIREMENT = 'org';

const ORGANIZATION_ROLE_PREFIX = 'org:role:';
const ORGANIZATION_PERMISSION_PREFIX = 'org:perm:';

/**
 * Reads `'mfa'` (the session was made with a second factor), `'session'` (a session, not an API key),
 * `'role:<name>'` and `'perm:<name>'`; `'org'`, `'org:role:<name>'` and `'org:perm:<name>'` (inside the organization
 * the route names); any other name is a role name, as routing-controllers' own examples use `@Authorized('admin')`.
 * So `'mfa'`, `'session'` and `'org'` cannot name a global role here (`'role:mfa'`, `'role:session'` and `'role:org'`
 * still can), nor can names starting `org:role:` or `org:perm:`.
 */
export function parseRequirement(requirement: unknown): AccessRequirement {
  if (typeof requirement !== 'string') {
    throw new ConfigurationError('Gatehouse: @Authorized() takes role and permission names as strings');
  }
  if (requirement === SECOND_FACTOR_REQUIREMENT) return { kind: 'mfa' };
  if (requirement === SESSION_REQUIREMENT) return { kind: 'session' };
  if (requirement === ORGANIZATION_REQUIREMENT) return { kind: 'org-member' };
  if (requirement.startsWith(ORGANIZATION_ROLE_PREFIX)) {
    return { kind: 'org-role', name: requirement.slice(ORGANIZATION_ROLE_PREFIX.length) };
  }
  if (requirement.startsWith(ORGANIZATION_PERMISSION_PREFIX)) {
    return { kind: 'org-permission', name: requirement.slice(ORGANIZATION_PERMISSION_PREFIX.length) };
  }
  if (requirement.startsWith('perm:')) return { kind: 'permission', name: requirement.slice('perm:'.length) };
  if (requirement.startsWith('role:')) return { kind: 'role', name: requirement.slice('role:'.length) };
  return { kind: 'role', name: requirement };
}

/** Whether the requirement is one inside an organization. */
export function isOrganizationRequirement(requirement: AccessRequirement): requirement is OrganizationRequirement {
  return requirement.kind === 'org-member' || requirement.kind === 'org-role' || requirement.kind === 'org-permission';
}

/**
 * Whether an API key can never pass the requirement: only `'perm:<name>'` can (within the key's scopes). A role, the
 * second factor and a session are a person's; organizations' requirements too, because a key is global, never an
 * organization's member.
 */
export function refusesApiKeys(requirement: AccessRequirement): boolean {
  return requirement.kind !== 'permission';
}
