import type { AccountService } from '../services/account-service';

/** The subcommands, as [synopsis, summary], for `gatehouse help`. */
export const SECOND_FACTOR_USAGE: [string, string][] = [
  [
    'second-factor disable <username>',
    "turn off a user's two-factor sign-in and delete their recovery codes (a locked-out user; audited)",
  ],
];

/** `second-factor disable <username>` is well formed: checked before the database is opened. The problem, or null. */
export function secondFactorUsageProblem(args: string[]): string | null {
  const [subcommand, ...rest] = args;
  if (subcommand === 'disable') return rest.length === 1 ? null : 'second-factor disable takes <username>';
  return subcommand ? `unknown second-factor command "${subcommand}"` : 'second-factor needs disable';
}

/**
 * `gatehouse second-factor disable`: the way back in for a person who lost both the authenticator app and the
 * recovery codes, once an operator has made sure who they are. The core audits it and tells the person by email
 * (the notice waits in the outbox for a worker). An unknown user is the core's AccountError, which the caller prints.
 */
export async function runSecondFactorCommand(
  args: string[],
  io: { accounts: AccountService; out: (line: string) => void },
): Promise<void> {
  const [, username] = args;
  const wasOn = await io.accounts.secondFactors.disableFor(username);
  io.out(
    wasOn ? `turned off two-factor sign-in of ${username}` : `${username} had no two-factor sign-in; nothing changed`,
  );
}
