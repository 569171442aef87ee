import type { AccountService } from '../services/account-service';
import type { SessionView } from '../services/types';

/** The subcommands, as [synopsis, summary], for `gatehouse help`. */
export const SESSIONS_USAGE: [string, string][] = [
  ['sessions list <username>', "a user's live sessions, newest first (never their tokens)"],
  ['sessions end <username> <session-id>', 'end one session of a user (it is signed out at its next request)'],
  ['sessions end <username> --all', 'end every session of a user'],
];

/** What a subcommand needs: the core, and where to write. */
interface Io {
  accounts: AccountService;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** `sessions list|end ...` is well formed: checked before the database is opened. Returns the problem, or null. */
export function sessionsUsageProblem(args: string[]): string | null {
  const [subcommand, ...rest] = args;
  if (subcommand === 'list') return rest.length === 1 ? null : 'sessions list takes <username>';
  if (subcommand === 'end') return rest.length === 2 ? null : 'sessions end takes <username> <session-id>, or --all';
  return subcommand ? `unknown sessions command "${subcommand}"` : 'sessions needs list or end';
}

/**
 * `gatehouse sessions list` and `gatehouse sessions end`: an operator's view of where a user is signed in, and the
 * way to end it (a stolen laptop, a support request), through the same core calls an admin API would make. A
 * listing shows the sessions' public ids, never a token or its hash. Errors (unknown user or session) are the
 * core's AccountErrors, which the caller prints. Expects arguments `sessionsUsageProblem` accepted.
 */
export async function runSessionsCommand(args: string[], io: Io): Promise<void> {
  const [subcommand, username, target] = args;
  if (subcommand === 'list') return list(username, io);
  if (target === '--all') {
    const ended = await io.accounts.sessions.endAllOf(username);
    io.out(`ended ${ended} session${ended === 1 ? '' : 's'} of ${username}`);
    return;
  }
  await io.accounts.sessions.endOf(username, target);
  io.out(`ended session ${target} of ${username}`);
}

async function list(username: string, io: Io): Promise<void> {
  const sessions = await io.accounts.sessions.listOf(username);
  if (sessions.length === 0) {
    io.out(`${username} has no live sessions`);
    return;
  }
  const rows = [['ID', 'CREATED', 'LAST USED', 'IP', 'USER AGENT'], ...sessions.map(columns)];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows)
    io.out(
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    );
}

function columns(session: SessionView): string[] {
  return [
    session.id,
    session.createdAt.toISOString(),
    session.lastUsedAt.toISOString(),
    session.ip ?? '-',
    // A terminal shows what the client sent, as one line: control characters could rewrite the operator's screen.
    session.userAgent === null ? '-' : session.userAgent.replace(/\p{Cc}/gu, '?'),
  ];
}
