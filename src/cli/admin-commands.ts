import { ADMIN_ROLE } from '../services/admin-permissions';
import type { CommandGroup } from './command-group';
import { UsageProblem } from './command-options';

/**
 * `gatehouse admin grant <username>`: the first administrator (and any later one made without the admin routes).
 * The core creates `ADMIN_ROLE` with every Gatehouse permission if it is missing, grants it, and audits it as the
 * operator's act.
 */
export const ADMIN_COMMANDS: CommandGroup<{ username: string }> = {
  usage: [
    ['admin grant <username>', `make the user an administrator (role ${ADMIN_ROLE}, with every admin permission)`],
  ],
  notes: [],
  parse(args) {
    const [subcommand, ...rest] = args;
    if (subcommand !== 'grant')
      throw new UsageProblem(subcommand ? `unknown admin command "${subcommand}"` : 'admin needs grant');
    if (rest.length !== 1) throw new UsageProblem('admin grant takes <username>');
    return { username: rest[0] };
  },
  async run({ username }, { accounts, out }) {
    const granted = await accounts.admin.makeAdministrator(username);
    out(
      granted
        ? `${username} is now an administrator (role ${ADMIN_ROLE})`
        : `${username} already is an administrator (role ${ADMIN_ROLE}); nothing changed`,
    );
  },
};
