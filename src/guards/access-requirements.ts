import { ConfigurationError } from '../errors/configuration-error';

/** One name of `@Authorized(...)`, read as a role, a permission, or the second factor. */
export type AccessRequirement = { kind: 'role' | 'permission'; name: string } | { kind: 'mfa' };

/** The requirement that the session was made with a second factor. */
export const SECOND_FACTOR_REQUIREMENT = 'mfa';

/**
 * Reads `'mfa'` (the session was made with a second factor), `'role:<name>'` and `'perm:<name>'`; any other name is
 * a role name, as routing-controllers' own examples use `@Authorized('admin')`. So `'mfa'` cannot name a role here
 * (`'role:mfa'` still can).
 */
export function parseRequirement(requirement: unknown): AccessRequirement {
  if (typeof requirement !== 'string') {
    throw new ConfigurationError('Gatehouse: @Authorized() takes role and permission names as strings');
  }
  if (requirement === SECOND_FACTOR_REQUIREMENT) return { kind: 'mfa' };
  if (requirement.startsWith('perm:')) return { kind: 'permission', name: requirement.slice('perm:'.length) };
  if (requirement.startsWith('role:')) return { kind: 'role', name: requirement.slice('role:'.length) };
  return { kind: 'role', name: requirement };
}
