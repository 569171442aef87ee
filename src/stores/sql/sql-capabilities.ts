import { Kysely } from 'kysely';
import type { DirectRead } from './precompiled-query';

/** How a write transaction commits. */
export interface WriteOptions {
  /**
   * Default true: the commit returns once it is on disk. False: it returns without waiting for the disk (SQLite in WAL
   * mode: `synchronous = NORMAL` for that commit; PostgreSQL: `SET LOCAL synchronous_commit = off`). Either way it is
   * atomic, ordered before every later commit, and survives the process being killed; only a crash of the machine (or
   * of the PostgreSQL server) may lose it, with whatever committed after it and was not yet on disk. For writes whose
   * loss only repeats work (`UNFLUSHED` in records/unflushed.ts: the outbox's bookkeeping, a new session), a flush each
   * costs more than the work it records (about 1.5 ms of the event loop per commit on the bench VM, with the loop
   * blocked meanwhile on SQLite).
   */
  durable?: boolean;
  /**
   * The work is one statement. A database where a statement on its own is already atomic may then run it outside a
   * transaction, when the round trips of BEGIN and COMMIT cost more than waiting for the disk (PostgreSQL: about 0.1
   * ms of its CPU and of the event loop's against 0.03 ms for the flush); such a commit may then be durable even when
   * `durable` is false.
   */
  oneStatement?: boolean;
}

/**
 * What differs between the databases the SQL store runs on. The store's queries are written once; everything
 * dialect-specific is one of these few operations, so a new database is a new capabilities object, not a new branch.
 */
export interface SqlCapabilities {
  /**
   * Runs `work` as one transaction that writes, and commits it, or rolls it back if `work` throws. Implementations
   * take whatever lock the database needs so that concurrent writers wait rather than fail (SQLite: `BEGIN IMMEDIATE`),
   * and may run `work` again when the database aborted it only to resolve a conflict (PostgreSQL: a deadlock), so
   * `work` must do nothing but queries on `trx`. See `WriteOptions` for a commit that does not wait for the disk.
   */
  writeTransaction<DB, T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * Within a write transaction, waits until no other transaction changes roles, permissions or their grants, and
   * keeps them out until this one ends (PostgreSQL: a transaction-level advisory lock). A check of who holds what
   * and the grant that depends on it then cannot interleave with a concurrent change of either. Absent where one
   * writer at a time holds the whole database (SQLite).
   */
  lockAccessChanges?<DB>(trx: Kysely<DB>): Promise<void>;
  /** Runs the migrator so that several processes migrating the same database at once cannot collide. */
  migrationScope<DB, T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  /** Whether a driver error is a violated UNIQUE or PRIMARY KEY constraint. */
  isUniqueViolation(error: unknown): boolean;
  /**
   * Whether to take PostgreSQL's row locks (`FOR SHARE`, `FOR NO KEY UPDATE`, `FOR KEY SHARE`, `SKIP LOCKED`). Where
   * writers lock rows rather than the whole database, the store uses them so that a check and the write that depends
   * on it cannot interleave with a concurrent change of the checked row, and so that every transaction locks a user
   * before their sessions and tokens (one lock order, no deadlocks). SQLite has no such clauses and needs none: one
   * writer at a time holds the whole database.
   */
  rowLocks: boolean;
  /**
   * Whether several INSERTs may run as one statement (PostgreSQL's data-modifying WITH; see `insertTogether`), which
   * saves a round trip per row where the database is reached over a socket. SQLite has no such statement and no round
   * trips to save.
   */
  insertsTogether: boolean;
  /**
   * Marks a statement the store runs on every request of its kind (session validation, guards, login's lookup), to be
   * prepared once per connection where that saves the database work (PostgreSQL: a named statement, parsed and
   * planned once instead of on every run). Absent where it would not (SQLite prepares every statement anyway).
   */
  prepare?(sql: string): void;
  /**
   * Runs the request path's reads (`requestPathQueries`: session checks, role and permission checks) outside Kysely,
   * where the database has a cheaper way that sees exactly what Kysely would: every committed write, nothing
   * uncommitted. Those reads run on every request, and Kysely's connection handling costs more than a primary-key
   * lookup. Absent: they run through Kysely like every other query.
   */
  readDirect?: DirectRead;
  /** Releases what `readDirect` holds; called by the store's `close()`. */
  close?(): Promise<void> | void;
}
