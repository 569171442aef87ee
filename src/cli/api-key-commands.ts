import { ConfigurationError } from '../errors/configuration-error';
import { OPERATOR } from '../services/admin-views';
import {
  API_KEY_BODY_LENGTH,
  DEFAULT_API_KEY_PREFIX,
  hasValidChecksum,
  isApiKeyShaped,
} from '../services/api-keys/api-key-format';
import type { ApiKeyView, ServiceAccountView } from '../services/api-keys/api-key-views';
import { parseApiKeys } from '../server/api-key-config';
import { USER_ID, type CommandGroup, type CommandIo } from './command-group';
import { parseOptions, UsageProblem } from './command-options';
import { printable, table } from './terminal-text';

type ApiKeyRequest =
  | { subcommand: 'list'; user: string }
  | { subcommand: 'revoke'; user: string; keyId: string }
  | { subcommand: 'revoke-all'; user: string }
  | { subcommand: 'create'; user: string; name: string; scopes: string[]; days?: number };

type ServiceAccountRequest = { subcommand: 'create'; username: string; roles: string[] } | { subcommand: 'list' };

/** The longest lifetime the CLI reads from `--days`; the core holds it to `apiKeyMaxLifetimeDays`. */
const MAX_DAYS_OPTION = 100_000;

/**
 * `gatehouse api-keys list|revoke|create`: the operator's side of the administrators' key routes, through the same
 * core calls as the operator (no permission asked; every revocation and creation audited as the operator's).
 * `api-keys check` is apart (`runApiKeyCheck`): it never opens the database. Users are named by username or id.
 */
export const API_KEY_COMMANDS: CommandGroup<ApiKeyRequest> = {
  usage: [
    ['api-keys check <string>', 'whether a string is a well-formed key of this prefix (offline; exit 0 yes, 1 no)'],
    ['api-keys list <user>', "a user's API keys: id, name, last four, scopes, expiry, last use (never a key)"],
    ['api-keys revoke <user> (<key-id>|--all)', "revoke one or every API key of a user (audited, the user is told)"],
    [
      'api-keys create <service-account> --name <name> --scope <permission>... [--days <days>]',
      'create a key for a service account; prints the key once (audited)',
    ],
  ],
  notes: ['--scope is repeatable and takes commas (--scope posts.read,posts.write)'],
  parse(args) {
    const [subcommand, ...rest] = args;
    if (subcommand === 'list') {
      if (rest.length !== 1 || rest[0].startsWith('--')) throw new UsageProblem('api-keys list takes <user>');
      return { subcommand, user: rest[0] };
    }
    if (subcommand === 'revoke') {
      if (rest.length === 2 && !rest[0].startsWith('--') && rest[1] === '--all') {
        return { subcommand: 'revoke-all', user: rest[0] };
      }
      if (rest.length !== 2 || rest.some((arg) => arg.startsWith('--'))) {
        throw new UsageProblem('api-keys revoke takes <user> <key-id>, or <user> --all');
      }
      return { subcommand, user: rest[0], keyId: rest[1] };
    }
    if (subcommand === 'create') {
      const options = parseOptions(rest, { name: 'single', scope: 'list', days: 'single' });
      if (typeof options === 'string') throw new UsageProblem(`api-keys create: ${options}`);
      if (options.positional.length !== 1) throw new UsageProblem('api-keys create takes one <service-account>');
      const name = options.single.get('name');
      if (name === undefined) throw new UsageProblem('api-keys create needs --name <name>');
      const scopes = options.list.get('scope') ?? [];
      if (scopes.length === 0) throw new UsageProblem('api-keys create needs at least one --scope <permission>');
      const days = options.single.get('days');
      if (days !== undefined && !/^\d{1,6}$/.test(days)) {
        throw new UsageProblem(`--days must be a whole number of days, got "${days}"`);
      }
      return {
        subcommand,
        user: options.positional[0],
        name,
        scopes,
        ...(days === undefined ? {} : { days: Math.min(Number(days), MAX_DAYS_OPTION) }),
      };
    }
    if (subcommand === 'check') throw new UsageProblem('api-keys check takes one <string>');
    throw new UsageProblem(
      subcommand ? `unknown api-keys command "${subcommand}"` : 'api-keys needs check, list, revoke or create',
    );
  },
  async run(request, { accounts, out }) {
    const admin = accounts.apiKeys.admin;
    const userId = await userIdOf(request.user, { accounts, out });
    if (request.subcommand === 'list') {
      const views = await admin.list(OPERATOR, userId);
      if (views.length === 0) {
        out(`${request.user} has no API keys`);
        return;
      }
      const header = ['ID', 'NAME', 'LAST FOUR', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'FROM'];
      for (const line of table([header, ...views.map(keyColumns)])) out(line);
      return;
    }
    if (request.subcommand === 'revoke') {
      await admin.revoke(OPERATOR, userId, request.keyId);
      out(`revoked API key ${request.keyId} of ${request.user}`);
      return;
    }
    if (request.subcommand === 'revoke-all') {
      const revoked = await admin.revokeAll(OPERATOR, userId);
      out(`revoked ${revoked} API key${revoked === 1 ? '' : 's'} of ${request.user}`);
      return;
    }
    const created = await admin.createKey(OPERATOR, userId, {
      name: request.name,
      scopes: request.scopes,
      ...(request.days === undefined ? {} : { expiresInDays: request.days }),
    });
    // The one time the key is shown: alone on its line, so that a script can take it (`| tail -1`).
    out(
      `created API key ${created.apiKey.id} "${printable(created.apiKey.name)}" for ${request.user}, ` +
        `scopes ${created.apiKey.scopes.join(',')}, expires ${created.apiKey.expiresAt.toISOString()}; ` +
        'the key is shown this once:',
    );
    out(created.key);
  },
};

/** `gatehouse service-accounts create|list`: accounts for machines, whose keys only administrators manage. */
export const SERVICE_ACCOUNT_COMMANDS: CommandGroup<ServiceAccountRequest> = {
  usage: [
    ['service-accounts create <username> [--role <role>]...', 'create a service account: no password, no mail'],
    ['service-accounts list', 'every service account: id, username, roles, created, disabled'],
  ],
  notes: [],
  parse(args) {
    const [subcommand, ...rest] = args;
    if (subcommand === 'list') {
      if (rest.length !== 0) throw new UsageProblem('service-accounts list takes no arguments');
      return { subcommand };
    }
    if (subcommand === 'create') {
      const options = parseOptions(rest, { role: 'list' });
      if (typeof options === 'string') throw new UsageProblem(`service-accounts create: ${options}`);
      if (options.positional.length !== 1) throw new UsageProblem('service-accounts create takes one <username>');
      return { subcommand, username: options.positional[0], roles: options.list.get('role') ?? [] };
    }
    throw new UsageProblem(
      subcommand ? `unknown service-accounts command "${subcommand}"` : 'service-accounts needs create or list',
    );
  },
  async run(request, { accounts, out }) {
    const admin = accounts.apiKeys.admin;
    if (request.subcommand === 'create') {
      const view = await admin.createServiceAccount(OPERATOR, {
        username: request.username,
        ...(request.roles.length === 0 ? {} : { roles: request.roles }),
      });
      out(`created service account ${view.username} (${view.id})${rolesText(view)}`);
      return;
    }
    const views = await admin.listServiceAccounts(OPERATOR);
    if (views.length === 0) {
      out('no service accounts');
      return;
    }
    const header = ['ID', 'USERNAME', 'ROLES', 'CREATED', 'CREATED BY', 'DISABLED'];
    for (const line of table([header, ...views.map(serviceAccountColumns)])) out(line);
  },
};

/**
 * `gatehouse api-keys check <string>`: whether the string is a key of the configured prefix
 * (`GATEHOUSE_API_KEY_PREFIX`, default `gatehouse`) with a good checksum, said part by part. Offline: it reads no
 * database and no secret, so it answers for a string found anywhere (a scanner's hit, a support ticket) without
 * telling whether the key lives. Exit 0 when well-formed, 1 when not, 2 for a usage or configuration error.
 */
export function runApiKeyCheck(
  args: string[],
  env: Record<string, string | undefined>,
  out: (line: string) => void,
  err: (line: string) => void,
): number {
  if (args.length !== 1) {
    err('gatehouse: api-keys check takes one <string>');
    return 2;
  }
  let prefix: string;
  try {
    prefix = parseApiKeys(env).apiKeyPrefix ?? DEFAULT_API_KEY_PREFIX;
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    err(`gatehouse: ${error.message}`);
    return 2;
  }
  const [text] = args;
  const problem = shapeProblem(text, prefix);
  if (problem !== undefined) {
    out(`not a key of prefix ${prefix}: ${problem}`);
    return 1;
  }
  if (!hasValidChecksum(text)) {
    out(`prefix ${prefix}: right; shape: right; checksum: WRONG (mistyped, cut, or not one of ours)`);
    return 1;
  }
  out(`prefix ${prefix}: right; shape: right; checksum: right (well-formed; whether it is live is not checked)`);
  return 0;
}

/** What is wrong with the string's shape, in words that never repeat it; undefined when it is key-shaped. */
function shapeProblem(text: string, prefix: string): string | undefined {
  if (isApiKeyShaped(text, prefix)) return undefined;
  if (!text.startsWith(`${prefix}_`)) return `it does not start with "${prefix}_"`;
  const body = text.slice(prefix.length + 1);
  if (body.length !== API_KEY_BODY_LENGTH) {
    return `${API_KEY_BODY_LENGTH} characters must follow "${prefix}_", not ${body.length}`;
  }
  return `only 0-9, A-Z and a-z may follow "${prefix}_"`;
}

async function userIdOf(user: string, { accounts }: CommandIo): Promise<string> {
  return USER_ID.test(user) ? user.toLowerCase() : accounts.admin.userIdOf(user);
}

function keyColumns(view: ApiKeyView): string[] {
  return [
    view.id,
    // The name is the person's text: shown as one line, whatever they typed.
    printable(view.name),
    view.lastFour,
    view.scopes.join(','),
    view.createdAt.toISOString(),
    view.expired ? `expired ${view.expiresAt.toISOString()}` : view.expiresAt.toISOString(),
    view.lastUsedAt === null ? 'never' : view.lastUsedAt.toISOString(),
    view.lastUsedIp ?? '-',
  ];
}

function serviceAccountColumns(view: ServiceAccountView): string[] {
  return [
    view.id,
    view.username,
    view.roles.join(',') || '-',
    view.createdAt.toISOString(),
    view.createdBy?.username ?? '-',
    view.disabled ? 'yes' : 'no',
  ];
}

function rolesText(view: ServiceAccountView): string {
  return view.roles.length === 0 ? ', no roles' : `, roles ${view.roles.join(',')}`;
}
