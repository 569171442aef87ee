import path from 'node:path';
import { Kysely, sql } from 'kysely';
import { KeyedMutex } from './keyed-mutex';
import type { SqlCapabilities, WriteOptions } from './sql-capabilities';
import { transactionOn } from './transaction-on';

/**
 * Write transactions of every store in this process, per database file. better-sqlite3 waits for a lock
 * synchronously (up to `busy_timeout`), blocking the whole thread: if two stores of one process opened the same file
 * and one waited for the other's lock, the holder could never resume to release it. Queuing them here first means a
 * busy wait only ever happens across processes, where the holder keeps running.
 */
const fileWriteLocks = new KeyedMutex();

/**
 * The level every commit waits for by default: FULL, so that a commit is on disk when it returns, power loss included
 * (in WAL mode NORMAL would wait for the disk only at checkpoints). Set when the store opens; `WriteOptions` may lower
 * it for one transaction.
 */
export const SQLITE_SYNCHRONOUS = 'FULL';

const UNIQUE_VIOLATION_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** Capabilities of SQLite through better-sqlite3, for the database file `filename`. */
export function sqliteCapabilities(filename: string): SqlCapabilities {
  const lockKey = path.resolve(filename);

  // Kysely's `db.transaction()` issues a plain (deferred) BEGIN: a transaction that reads first and writes later must
  // then upgrade its lock, and in WAL mode that upgrade fails at once with SQLITE_BUSY when another connection wrote
  // meanwhile, without waiting for busy_timeout. BEGIN IMMEDIATE takes the write lock up front, where waiting works.
  const immediateTransaction = <DB, T>(
    db: Kysely<DB>,
    work: (trx: Kysely<DB>) => Promise<T>,
    options?: WriteOptions,
  ): Promise<T> =>
    fileWriteLocks.run(lockKey, () =>
      db.connection().execute(async (connection) => {
        // The level is the connection's, so it is lowered for this one transaction and set back after it, while the
        // connection is still held: no other transaction can commit in between.
        const light = options?.durable === false;
        if (light) await sql`pragma synchronous = normal`.execute(connection);
        try {
          return await transactionOn(connection, 'begin immediate', work);
        } finally {
          if (light) await sql.raw(`pragma synchronous = ${SQLITE_SYNCHRONOUS}`).execute(connection);
        }
      }),
    );

  return {
    writeTransaction: immediateTransaction,
    // Kysely takes no migration lock on SQLite; one immediate transaction around the whole run is that lock, and makes
    // the run all-or-nothing as well.
    migrationScope: immediateTransaction,
    isUniqueViolation,
    rowLocks: false,
    insertsTogether: false,
  };
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && UNIQUE_VIOLATION_CODES.has((error as Error & { code?: string }).code ?? '');
}
