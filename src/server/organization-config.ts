import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigurationError } from '../errors/configuration-error';
import { organizationTemplate, type OrganizationOptions } from '../services/organizations/organization-options';

type Env = Record<string, string | undefined>;

/** The largest a count of `GATEHOUSE_ORG_MAX_*` may be (the core's bound). */
const MAX_COUNT = 1_000_000;
/** A roles file is a few lines; this only keeps a wrong path (a log, a dump) from being read whole. */
const MAX_ROLES_FILE_BYTES = 256 * 1024;

/** The variables of organizations besides the switch: set while it is off, they stop the start (a typo). */
const SETTINGS = [
  'GATEHOUSE_ORG_ROLES_FILE',
  'GATEHOUSE_ORG_CREATION',
  'GATEHOUSE_ORG_INVITATION_TTL',
  'GATEHOUSE_ORG_MAX_PER_USER',
  'GATEHOUSE_ORG_MAX_MEMBERS',
  'GATEHOUSE_ORG_MAX_PENDING_INVITATIONS',
] as const;

/**
 * Organizations from the environment (docs/reference/configuration.md, docs/organizations.md):
 * `GATEHOUSE_ORGANIZATIONS` (on by default), the role template from the JSON file `GATEHOUSE_ORG_ROLES_FILE`
 * (`{ "roles": { "admin": [...], "member": [...] } }`), who may create them, the invitations' lifetime and the
 * limits. Each variable set wrong stops the start with a message naming it. `false` when off.
 *
 * `invitationTtlMs` is read by the loader (a duration like the others) and handed over.
 */
export function parseOrganizations(
  env: Env,
  cwd: string,
  read: { enabled: boolean; invitationTtlMs: number | undefined },
): OrganizationOptions | false {
  if (!read.enabled) {
    const stray = SETTINGS.filter((name) => nonEmpty(env[name]) !== undefined);
    if (stray.length > 0) throw new ConfigurationError(`${stray[0]} is set, but GATEHOUSE_ORGANIZATIONS is off`);
    return false;
  }
  const options: OrganizationOptions = {};
  const rolesFile = nonEmpty(env.GATEHOUSE_ORG_ROLES_FILE);
  if (rolesFile !== undefined) options.roles = readRolesFile(resolve(cwd, rolesFile));
  const creation = nonEmpty(env.GATEHOUSE_ORG_CREATION);
  if (creation !== undefined) {
    if (creation !== 'users' && creation !== 'administrators') {
      throw new ConfigurationError(`GATEHOUSE_ORG_CREATION must be users or administrators, got "${creation}"`);
    }
    options.creation = creation;
  }
  if (read.invitationTtlMs !== undefined) options.invitationTtlMs = read.invitationTtlMs;
  const perUser = count('GATEHOUSE_ORG_MAX_PER_USER', env.GATEHOUSE_ORG_MAX_PER_USER);
  if (perUser !== undefined) options.maxOrganizationsPerUser = perUser;
  const members = count('GATEHOUSE_ORG_MAX_MEMBERS', env.GATEHOUSE_ORG_MAX_MEMBERS);
  if (members !== undefined) options.maxMembers = members;
  const pending = count('GATEHOUSE_ORG_MAX_PENDING_INVITATIONS', env.GATEHOUSE_ORG_MAX_PENDING_INVITATIONS);
  if (pending !== undefined) options.maxPendingInvitations = pending;
  return options;
}

/** The roles below `owner` from the file, checked as the core checks them at start; any fault names the variable. */
function readRolesFile(path: string): Record<string, string[]> {
  const fail = (why: string) =>
    new ConfigurationError(
      `GATEHOUSE_ORG_ROLES_FILE (${path}): ${why}; expected JSON like ` +
        '{ "roles": { "admin": ["gatehouse.members.read", ...], "member": ["gatehouse.members.read"] } }',
    );
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_ROLES_FILE_BYTES) throw fail(`larger than ${MAX_ROLES_FILE_BYTES} bytes`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    throw fail(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fail('is not JSON');
  }
  const roles = (parsed as { roles?: unknown } | null)?.roles;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || Object.keys(parsed).some((key) => key !== 'roles')) {
    throw fail('must be an object with the one key "roles"');
  }
  if (roles === null || typeof roles !== 'object' || Array.isArray(roles)) {
    throw fail('"roles" must map role names to lists of permissions');
  }
  try {
    organizationTemplate(roles as Record<string, string[]>);
  } catch (error) {
    throw fail(error instanceof Error ? error.message.replace(/^Gatehouse: organizations\./, '') : String(error));
  }
  return roles as Record<string, string[]>;
}

function count(name: string, raw: string | undefined): number | undefined {
  const value = nonEmpty(raw);
  if (value === undefined) return undefined;
  const number = /^\d{1,7}$/.test(value) ? Number(value) : NaN;
  if (!(number >= 1 && number <= MAX_COUNT)) {
    throw new ConfigurationError(`${name} must be a whole number from 1 to ${MAX_COUNT}, got "${value}"`);
  }
  return number;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === '' ? undefined : trimmed;
}
