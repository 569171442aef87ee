import type { IdentityView } from '../services/oidc/identity-view';
import type { CommandGroup } from './command-group';
import { UsageProblem } from './command-options';
import { printable, table } from './terminal-text';

type OidcRequest =
  { subcommand: 'list'; username: string } | { subcommand: 'unlink'; username: string; identityId: string };

/**
 * `gatehouse oidc list|unlink`: the operator's view of the provider identities linked to an account, and their
 * removal (an identity at a provider the person lost, a support request), through the core as the operator:
 * audited, and the owner is told of an unlink by email. The rule that an account keeps a way to sign in holds here
 * too (`last_sign_in_method`). Users are named by username; an unknown user or identity is the core's AccountError,
 * which the CLI prints.
 */
export const OIDC_COMMANDS: CommandGroup<OidcRequest> = {
  usage: [
    [
      'oidc list <username>',
      "a user's linked provider identities: id, provider, address at link time, linked, last used",
    ],
    [
      'oidc unlink <username> <identity-id>',
      'unlink one identity of a user; never their last way to sign in (audited, the user is told)',
    ],
  ],
  notes: [],
  parse(args) {
    const [subcommand, ...rest] = args;
    const positional = rest.every((arg) => !arg.startsWith('--'));
    if (subcommand === 'list') {
      if (rest.length !== 1 || !positional) throw new UsageProblem('oidc list takes <username>');
      return { subcommand, username: rest[0] };
    }
    if (subcommand === 'unlink') {
      if (rest.length !== 2 || !positional) throw new UsageProblem('oidc unlink takes <username> <identity-id>');
      return { subcommand, username: rest[0], identityId: rest[1] };
    }
    throw new UsageProblem(subcommand ? `unknown oidc command "${subcommand}"` : 'oidc needs list or unlink');
  },
  async run(request, { accounts, out }) {
    // The account first, as every command names one: an unknown user is `user_not_found`, whatever the providers.
    await accounts.admin.userIdOf(request.username);
    if (request.subcommand === 'unlink') {
      await accounts.oidc.unlinkFor(request.username, request.identityId);
      out(`unlinked identity ${request.identityId} of ${request.username}`);
      return;
    }
    const identities = await accounts.oidc.identitiesOf(request.username);
    if (identities.length === 0) {
      out(`${request.username} has no linked identities`);
      return;
    }
    const header = ['ID', 'PROVIDER', 'EMAIL', 'LINKED', 'LAST USED'];
    for (const line of table([header, ...identities.map(columns)])) out(line);
  },
};

function columns(identity: IdentityView): string[] {
  return [
    identity.id,
    // A provider no longer configured signs nobody in: said beside its id.
    identity.configured ? identity.provider : `${identity.provider} (removed)`,
    // The provider's text: shown as one line, whatever it holds.
    identity.email === null ? '-' : printable(identity.email),
    identity.linkedAt,
    identity.lastUsedAt ?? 'never',
  ];
}
