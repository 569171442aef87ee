import type { WriteOptions } from '../sql-capabilities';

/**
 * Commits that do not wait for the disk (`WriteOptions.durable`): those that a crash of the machine can only undo into
 * work done again. The outbox's claims and delivery marks (the message is sent again). A new session with its
 * sign-in record (`TransactionOptions.durable: false`: the user signs in again; an undone session is refused, never
 * revived; and any later write that does wait flushes it first, both logs being sequential). A session's idle window
 * moved forward (it may end a little sooner). Whatever ends a session, changes a credential or creates an account
 * waits for the disk.
 */
export const UNFLUSHED: WriteOptions = { durable: false };

/** Those of them that are one statement each (`WriteOptions.oneStatement`). */
export const UNFLUSHED_STATEMENT: WriteOptions = { durable: false, oneStatement: true };
