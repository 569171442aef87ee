import { Kysely, sql } from 'kysely';
import { isPostgresConflict, PG_UNIQUE_VIOLATION } from './postgres-errors';
import type { PreparedStatements } from './postgres-prepared-statements';
import { SqlCapabilities } from './sql-capabilities';
import { transactionOn } from './transaction-on';

/**
 * Key of the advisory lock that serialises Gatehouse migrations on one database (advisory locks are per database).
 * An arbitrary constant; it only has to differ from the keys other applications on the same database use.
 */
const MIGRATION_LOCK_KEY = 7_146_518_221_906_157n;

/** Key of the advisory lock that serialises changes of roles, permissions and their grants (`lockAccessChanges`). */
const ACCESS_LOCK_KEY = 7_146_518_221_906_158n;

/** How often a transaction the server aborted to break a deadlock is run again before the error is reported. */
const CONFLICT_ATTEMPTS = 4;

/**
 * Capabilities of PostgreSQL through node-postgres. Transactions run at READ COMMITTED, PostgreSQL's default: every
 * statement of the store that depends on a row's current value re-checks it (`UPDATE ... WHERE credential_epoch = ...`,
 * `DELETE ... RETURNING`), and `FOR SHARE` covers the one check that is a read (creating a session). With
 * `statements`, the request-path reads run as named statements through a `preparingView` of the pool.
 */
export function postgresCapabilities(statements?: PreparedStatements): SqlCapabilities {
  return {
    writeTransaction: (db, work, options) =>
      runAgainOnConflict(() => (options?.oneStatement ? work(db) : transaction(db, work, options?.durable !== false))),
    migrationScope,
    isUniqueViolation: (error) => (error as { code?: unknown } | null)?.code === PG_UNIQUE_VIOLATION,
    rowLocks: true,
    insertsTogether: true,
    lockAccessChanges: async (trx) => {
      await sql`select pg_advisory_xact_lock(${sql.lit(ACCESS_LOCK_KEY)})`.execute(trx);
    },
    ...(statements ? { prepare: (text: string) => statements.add(text) } : {}),
  };
}

/**
 * Kysely's transaction sends BEGIN alone; a commit that need not wait for the disk then needs one more round trip to
 * say so. Here both go in one simple query (LOCAL: for this transaction only; the pooled connection keeps the
 * server's setting for the next).
 */
function transaction<DB, T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>, durable: boolean): Promise<T> {
  return db
    .connection()
    .execute((connection) =>
      transactionOn(connection, durable ? 'begin' : 'begin; set local synchronous_commit = off', work),
    );
}

/**
 * Holds a session-level advisory lock on one connection for the whole run, so instances starting together migrate
 * one after the other (the later ones find nothing left to do). The lock goes with the connection if the process dies.
 */
function migrationScope<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(connection);
    try {
      return await work(connection);
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(connection).catch(() => undefined);
    }
  });
}

/**
 * Two transactions that lock the same rows in opposite orders (deleting a user while a reset of theirs runs) make
 * PostgreSQL abort one of them after `deadlock_timeout`. Nothing of it was committed, so running it again is safe and
 * is what the PostgreSQL manual asks of applications.
 */
async function runAgainOnConflict<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= CONFLICT_ATTEMPTS || !isPostgresConflict(error)) throw error;
    }
  }
}
