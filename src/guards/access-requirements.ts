import { ConfigurationError } from '../errors/configuration-error';

/** One name of `@Authorized(...)`, read as a role or a permission. */
export interface AccessRequirement {
  kind: 'role' | 'permission';
  name: string;
}

/**
 * Reads `'role:<name>'` and `'perm:<name>'`; a name without either prefix is a role name, as routing-controllers'
 * own examples use `@Authorized('admin')`.
 */
export function parseRequirement(requirement: unknown): AccessRequirement {
  if (typeof requirement !== 'string') {
    throw new ConfigurationError('Gatehouse: @Authorized() takes role and permission names as strings');
  }
  if (requirement.startsWith('perm:')) return { kind: 'permission', name: requirement.slice('perm:'.length) };
  if (requirement.startsWith('role:')) return { kind: 'role', name: requirement.slice('role:'.length) };
  return { kind: 'role', name: requirement };
}
