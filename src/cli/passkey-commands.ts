import { OPERATOR } from '../services/admin-views';
import type { PasskeyView } from '../services/passkeys/passkey-view';
import type { CommandGroup } from './command-group';
import { UsageProblem } from './command-options';
import { printable, table } from './terminal-text';

type PasskeysRequest =
  { subcommand: 'list'; username: string } | { subcommand: 'remove'; username: string; passkeyId: string };

/**
 * `gatehouse passkeys list|remove`: the operator's side of the admin passkey routes (a lost device, a support
 * request), through the same core calls, as the operator: audited, and the owner is told of a removal by email. The
 * rule that an account keeps a way to sign in holds here too (`last_sign_in_method`). Users are named by username;
 * an unknown user or passkey is the core's AccountError, which the CLI prints.
 */
export const PASSKEY_COMMANDS: CommandGroup<PasskeysRequest> = {
  usage: [
    ['passkeys list <username>', "a user's passkeys: id, name, added, last used, synced or device-bound"],
    [
      'passkeys remove <username> <passkey-id>',
      'remove one passkey of a user; never their last way to sign in (audited, the user is told)',
    ],
  ],
  notes: [],
  parse(args) {
    const [subcommand, ...rest] = args;
    const positional = rest.every((arg) => !arg.startsWith('--'));
    if (subcommand === 'list') {
      if (rest.length !== 1 || !positional) throw new UsageProblem('passkeys list takes <username>');
      return { subcommand, username: rest[0] };
    }
    if (subcommand === 'remove') {
      if (rest.length !== 2 || !positional) throw new UsageProblem('passkeys remove takes <username> <passkey-id>');
      return { subcommand, username: rest[0], passkeyId: rest[1] };
    }
    throw new UsageProblem(subcommand ? `unknown passkeys command "${subcommand}"` : 'passkeys needs list or remove');
  },
  async run(request, { accounts, out }) {
    const userId = await accounts.admin.userIdOf(request.username);
    if (request.subcommand === 'remove') {
      await accounts.passkeys.removeOf(OPERATOR, userId, request.passkeyId);
      out(`removed passkey ${request.passkeyId} of ${request.username}`);
      return;
    }
    const passkeys = await accounts.passkeys.listOf(OPERATOR, userId);
    if (passkeys.length === 0) {
      out(`${request.username} has no passkeys`);
      return;
    }
    for (const line of table([['ID', 'NAME', 'ADDED', 'LAST USED', 'TYPE'], ...passkeys.map(columns)])) out(line);
  },
};

function columns(passkey: PasskeyView): string[] {
  return [
    passkey.id,
    // The name is the person's text: shown as one line, whatever they typed.
    printable(passkey.name),
    passkey.createdAt.toISOString(),
    passkey.lastUsedAt === null ? 'never' : passkey.lastUsedAt.toISOString(),
    passkey.deviceType === 'synced' ? 'synced' : 'device-bound',
  ];
}
