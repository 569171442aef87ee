import { ADMIN_GROUPS } from './admin-groups';
import { OUTBOX_USAGE } from './outbox-commands';
import { SECOND_FACTOR_USAGE } from './second-factor-commands';
import { SESSIONS_USAGE } from './session-commands';
import { AccountService } from '../services/account-service';

/** One admin command: its argument names (for usage) and what it does with the core. */
interface Command {
  args: string[];
  summary: string;
  run(accounts: AccountService, args: string[], out: (line: string) => void): Promise<void>;
}

/**
 * The admin work the spec keeps off HTTP: roles, permissions and grants. Each command is a thin call into the
 * account core, so the rules (name validity, unknown role or permission) are the same as for a host calling it.
 */
export const COMMANDS: Record<string, Command> = {
  'create-role': {
    args: ['role'],
    summary: 'create a role (no change if it exists)',
    async run(accounts, [role], out) {
      out((await accounts.access.createRole(role)) ? `created role ${role}` : `role ${role} already exists`);
    },
  },
  'create-permission': {
    args: ['permission'],
    summary: 'create a permission (no change if it exists)',
    async run(accounts, [permission], out) {
      out(
        (await accounts.access.createPermission(permission))
          ? `created permission ${permission}`
          : `permission ${permission} already exists`,
      );
    },
  },
  'grant-permission': {
    args: ['role', 'permission'],
    summary: 'give a permission to a role',
    async run(accounts, [role, permission], out) {
      await accounts.access.grantPermission(role, permission);
      out(`granted ${permission} to role ${role}`);
    },
  },
  'revoke-permission': {
    args: ['role', 'permission'],
    summary: 'take a permission from a role',
    async run(accounts, [role, permission], out) {
      await accounts.access.revokePermission(role, permission);
      out(`revoked ${permission} from role ${role}`);
    },
  },
  'grant-role': {
    args: ['username', 'role'],
    summary: 'give a role to a user',
    async run(accounts, [username, role], out) {
      await accounts.access.grantRole(username, role);
      out(`granted role ${role} to ${username}`);
    },
  },
  'revoke-role': {
    args: ['username', 'role'],
    summary: 'take a role from a user',
    async run(accounts, [username, role], out) {
      await accounts.access.revokeRole(username, role);
      out(`revoked role ${role} from ${username}`);
    },
  },
  'list-roles': {
    args: [],
    summary: 'list roles with their permissions',
    async run(accounts, _args, out) {
      for (const role of await accounts.access.listRoles()) out(`${role.name}\t${role.permissions.join(',')}`);
    },
  },
  'list-permissions': {
    args: [],
    summary: 'list permissions',
    async run(accounts, _args, out) {
      for (const permission of await accounts.access.listPermissions()) out(permission);
    },
  },
  'list-user-roles': {
    args: ['username'],
    summary: "list a user's roles",
    async run(accounts, [username], out) {
      for (const role of await accounts.access.listUserRoles(username)) out(role);
    },
  },
};

/** Commands on the database itself rather than through the core; they take no arguments. */
interface DatabaseCommand {
  summary: string;
  run(accounts: AccountService, out: (line: string) => void): Promise<void>;
}

export const DATABASE_COMMANDS: Record<string, DatabaseCommand> = {
  migrate: {
    summary: 'create or upgrade the database schema',
    // Opening the store runs the migrations, which is all there is to do.
    async run(_store, out) {
      out('database schema is up to date');
    },
  },
  cleanup: {
    summary: 'remove expired sessions, tokens, registrations, old sent or failed email and old audit events (for cron)',
    async run(accounts, out) {
      const removed = await accounts.removeExpired();
      out(`removed ${removed} expired sessions, tokens, registrations, old sent or failed email and old audit events`);
    },
  },
};

export function usage(): string {
  const width = Math.max(
    ...Object.entries(COMMANDS).map(([name, c]) => commandLine(name, c.args).length),
    ...OUTBOX_USAGE.map(([synopsis]) => synopsis.length),
    ...SESSIONS_USAGE.map(([synopsis]) => synopsis.length),
    ...SECOND_FACTOR_USAGE.map(([synopsis]) => synopsis.length),
    ...Object.values(ADMIN_GROUPS).flatMap((group) => group.usage.map(([synopsis]) => synopsis.length)),
  );
  return [
    'usage: gatehouse <command> [arguments]',
    '',
    'Commands (on the database of GATEHOUSE_DATABASE_URL):',
    ...Object.entries(DATABASE_COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '  ' + 'help'.padEnd(width) + '  show this list',
    '',
    'Email delivery:',
    '  ' +
      'worker'.padEnd(width) +
      '  deliver queued email until SIGTERM (servers then run GATEHOUSE_OUTBOX_WORKER=off)',
    ...OUTBOX_USAGE.map(([synopsis, summary]) => `  ${synopsis.padEnd(width)}  ${summary}`),
    '',
    'Sessions:',
    ...SESSIONS_USAGE.map(([synopsis, summary]) => `  ${synopsis.padEnd(width)}  ${summary}`),
    '',
    'Two-factor sign-in:',
    ...SECOND_FACTOR_USAGE.map(([synopsis, summary]) => `  ${synopsis.padEnd(width)}  ${summary}`),
    '',
    'Administration (audited as the operator):',
    ...Object.values(ADMIN_GROUPS).flatMap((group) =>
      group.usage.map(([synopsis, summary]) => `  ${synopsis.padEnd(width)}  ${summary}`),
    ),
    ...Object.values(ADMIN_GROUPS).flatMap((group) => group.notes.map((note) => `  ${note}`)),
    '',
    'Roles and permissions:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${commandLine(name, c.args).padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

function commandLine(name: string, args: string[]): string {
  return [name, ...args.map((arg) => `<${arg}>`)].join(' ');
}
