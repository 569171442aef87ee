import { MAX_PAGE_SIZE, type AdminUserSummary, type AdminUserView, type UserFilters } from '../services/admin-views';
import { OPERATOR } from '../services/admin-views';
import type { CommandGroup, CommandIo } from './command-group';
import { booleanOption, dateOption, integerOption, parseOptions, UsageProblem } from './command-options';
import { printable, table } from './terminal-text';

type UsersRequest =
  { subcommand: 'list'; filters: UserFilters } | { subcommand: 'show' | 'disable' | 'enable'; username: string };

const LIST_FLAGS = {
  prefix: 'single',
  verified: 'single',
  disabled: 'single',
  role: 'single',
  'created-from': 'single',
  'created-before': 'single',
  limit: 'single',
  cursor: 'single',
} as const;

/**
 * `gatehouse users list|show|disable|enable`: the operator's side of the admin routes, through the same core calls
 * (as the operator: audited, no permission needed). Users are named by username; an unknown one is the core's
 * AccountError, which the CLI prints.
 */
export const USER_COMMANDS: CommandGroup<UsersRequest> = {
  usage: [
    ['users list [options]', 'accounts, newest first, a page at a time (full addresses: finding a user is the point)'],
    [
      'users show <username>',
      'one account: roles, permissions, verified, disabled, two-factor, sessions, last sign-in',
    ],
    ['users disable <username>', 'the account cannot sign in; its sessions end and its emailed links die (audited)'],
    ['users enable <username>', 'the account can sign in again (audited)'],
  ],
  notes: [
    'users list options: --prefix <username or email prefix>, --verified true|false, --disabled true|false,',
    `  --role <role>, --created-from <date>, --created-before <date>, --limit <1-${MAX_PAGE_SIZE}>, --cursor <next cursor>`,
  ],
  parse(args) {
    const [subcommand, ...rest] = args;
    if (subcommand === 'list') return { subcommand, filters: listFilters(rest) };
    if (subcommand === 'show' || subcommand === 'disable' || subcommand === 'enable') {
      if (rest.length !== 1 || rest[0].startsWith('--')) throw new UsageProblem(`users ${subcommand} takes <username>`);
      return { subcommand, username: rest[0] };
    }
    throw new UsageProblem(
      subcommand ? `unknown users command "${subcommand}"` : 'users needs list, show, disable or enable',
    );
  },
  async run(request, io) {
    if (request.subcommand === 'list') return list(request.filters, io);
    const { accounts, out } = io;
    const userId = await accounts.admin.userIdOf(request.username);
    if (request.subcommand === 'show') {
      for (const line of describe(await accounts.admin.getUser(OPERATOR, userId))) out(line);
    } else if (request.subcommand === 'disable') {
      await accounts.admin.disableUser(OPERATOR, userId);
      out(`disabled ${request.username}: signed out everywhere; sign-in is refused and emailed links no longer work`);
    } else {
      await accounts.admin.enableUser(OPERATOR, userId);
      out(`enabled ${request.username}: sign-in works again`);
    }
  },
};

function listFilters(args: string[]): UserFilters {
  const options = parseOptions(args, LIST_FLAGS);
  if (typeof options === 'string') throw new UsageProblem(`users list: ${options}`);
  if (options.positional.length > 0) throw new UsageProblem(`users list: unexpected "${options.positional[0]}"`);
  return {
    prefix: options.single.get('prefix'),
    verified: booleanOption(options, 'verified'),
    disabled: booleanOption(options, 'disabled'),
    role: options.single.get('role'),
    createdFrom: dateOption(options, 'created-from'),
    createdBefore: dateOption(options, 'created-before'),
    limit: integerOption(options, 'limit', 1, MAX_PAGE_SIZE),
    cursor: options.single.get('cursor'),
  };
}

async function list(filters: UserFilters, { accounts, out }: CommandIo): Promise<void> {
  const page = await accounts.admin.listUsers(OPERATOR, filters);
  if (page.items.length === 0) out('no users');
  else {
    const header = ['ID', 'USERNAME', 'EMAIL', 'VERIFIED', 'DISABLED', 'CREATED'];
    for (const line of table([header, ...page.items.map(columns)])) out(line);
  }
  // The last line, so a script can read it; absent on the last page.
  if (page.nextCursor !== null) out(`next cursor: ${page.nextCursor}`);
}

function columns(user: AdminUserSummary): string[] {
  return [
    user.id,
    user.username,
    printable(user.email),
    yesNo(user.verified),
    yesNo(user.disabled),
    user.createdAt.toISOString(),
  ];
}

function describe(user: AdminUserView): string[] {
  const fields: [string, string][] = [
    ['id', user.id],
    ['username', user.username],
    ['email', printable(user.email)],
    ['verified', yesNo(user.verified)],
    ['disabled', user.disabledAt ? `yes, since ${user.disabledAt.toISOString()}` : 'no'],
    ['two-factor', user.secondFactor ? 'on' : 'off'],
    ['roles', user.roles.join(', ') || '-'],
    ['permissions', user.permissions.join(', ') || '-'],
    ['live sessions', String(user.sessionCount)],
    ['created', user.createdAt.toISOString()],
    ['updated', user.updatedAt.toISOString()],
    ['last sign-in', user.lastSignInAt ? user.lastSignInAt.toISOString() : 'never'],
  ];
  const width = Math.max(...fields.map(([name]) => name.length)) + 1;
  return fields.map(([name, value]) => `${`${name}:`.padEnd(width)}  ${value}`);
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}
