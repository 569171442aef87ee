import { OUTBOX_STATUSES, type OutboxEntry, type OutboxStatus, type RetryTarget } from '../services/outbox-message';
import type { OutboxConfig } from '../server/config';
import type { UserStore } from '../services/user-store';
import { maskAddress } from './mask-address';

/** The subcommands, as [synopsis, summary], for `gatehouse help`. */
export const OUTBOX_USAGE: [string, string][] = [
  ['outbox list [--status s] [--limit n]', 'queued email, newest first; s: pending, sent or failed (addresses masked)'],
  ['outbox retry <id>|--failed', 'make a message due now; --failed: every failed notice'],
];

/** What a subcommand needs: the store, the outbox settings, and where to write. */
interface Io {
  store: UserStore;
  outbox: OutboxConfig;
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * `gatehouse outbox list` and `gatehouse outbox retry`: the operator's view of queued email. It never prints a token
 * (the store does not even hand one to a listing) nor a whole address. Returns the exit code.
 */
export async function runOutboxCommand(args: string[], io: Io): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === 'list') return list(rest, io);
  if (subcommand === 'retry') return retry(rest, io);
  return usageError(io, subcommand ? `unknown outbox command "${subcommand}"` : 'outbox needs list or retry');
}

async function list(args: string[], io: Io): Promise<number> {
  let status: OutboxStatus | undefined;
  let limit = 100;
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === '--status' && (OUTBOX_STATUSES as readonly string[]).includes(value)) status = value as OutboxStatus;
    else if (flag === '--limit' && /^\d{1,5}$/.test(value ?? '') && Number(value) > 0) limit = Number(value);
    else return usageError(io, `outbox list: unexpected "${[flag, value].filter(Boolean).join(' ')}"`);
  }
  const entries = await io.store.outbox.list({ status, limit });
  const rows = [['ID', 'STATUS', 'KIND', 'TRIES', 'NEXT / SENT', 'TO', 'LAST ERROR'], ...entries.map(columns)];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows)
    io.out(
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    );
  if (entries.length === 0) io.out(status ? `no ${status} messages` : 'the outbox is empty');
  return 0;
}

function columns(entry: OutboxEntry): string[] {
  const status = entry.status === 'pending' && entry.claimed ? 'sending' : entry.status;
  const when =
    entry.status === 'sent' && entry.sentAt
      ? entry.sentAt.toISOString()
      : entry.status === 'pending'
        ? entry.nextAttemptAt.toISOString()
        : '-';
  return [entry.id, status, entry.kind, String(entry.attempts), when, maskAddress(entry.email), entry.lastError ?? '-'];
}

async function retry(args: string[], io: Io): Promise<number> {
  if (args.length !== 1) return usageError(io, 'outbox retry takes one message id, or --failed');
  const target: RetryTarget = args[0] === '--failed' ? { status: 'failed' } : { id: args[0] };
  const now = new Date();
  const changed = await io.store.outbox.retry(target, now, new Date(now.getTime() + io.outbox.giveUpAfterMs));
  if ('status' in target) {
    io.out(`${changed} failed message${changed === 1 ? '' : 's'} queued again`);
    io.out('failed verification and reset emails are not: their tokens were erased; the users ask for new links');
    return 0;
  }
  if (changed === 0) {
    io.err(
      `gatehouse: nothing to retry for ${target.id}: no such message, being sent right now, already sent, or a ` +
        'failed verification or reset email (its token was erased; the user asks for a new link)',
    );
    return 1;
  }
  io.out(`message ${target.id} is due now; a running worker sends it within its poll interval`);
  return 0;
}

function usageError(io: Io, message: string): number {
  io.err(`gatehouse: ${message}`);
  for (const [synopsis, summary] of OUTBOX_USAGE) io.err(`  ${synopsis.padEnd(38)}  ${summary}`);
  return 2;
}
