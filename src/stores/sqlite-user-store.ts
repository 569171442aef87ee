import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Kysely, KyselyConfig, SqliteDialect } from 'kysely';
import { firstComeDialect } from './sql/first-come-dialect';
import { migrateToLatest } from './sql/migrate';
import { Database } from './sql/schema';
import { SqlCapabilities } from './sql/sql-capabilities';
import { SQLITE_SYNCHRONOUS, sqliteCapabilities } from './sql/sqlite-capabilities';
import { sqliteDirectReads } from './sql/sqlite-direct-reads';
import { SqlUserStore } from './sql/sql-user-store';
import { cachingStatements, openSqlite } from './sql/sqlite-statement-cache';

export interface SqliteUserStoreOptions {
  /** Path of the database file; its folder is created if missing. */
  filename: string;
  /** Kysely's query log (every statement's SQL and duration, and failures): for diagnostics and query-count tests. */
  log?: KyselyConfig['log'];
}

/**
 * The SQL store on an SQLite file (better-sqlite3), the embedded default. Create it with `SqliteUserStore.open`,
 * which migrates the schema before handing the store out, so no query can reach an unmigrated database.
 *
 * Durability and concurrency: WAL journal, `synchronous=FULL` (a commit is on disk when the call resolves),
 * `busy_timeout=5000` and `BEGIN IMMEDIATE` write transactions (several processes may share the file), foreign keys on.
 *
 * @example
 * const store = await SqliteUserStore.open({ filename: './data/gatehouse.db' });
 */
export class SqliteUserStore extends SqlUserStore {
  private constructor(
    db: Kysely<Database>,
    capabilities: SqlCapabilities,
    /** The database file, as given. */
    readonly filename: string,
  ) {
    super(db, capabilities);
  }

  /** Opens (creating if needed) the database file and migrates it to the latest schema. */
  static async open({ filename, log }: SqliteUserStoreOptions): Promise<SqliteUserStore> {
    await mkdir(path.dirname(path.resolve(filename)), { recursive: true });
    const database = openSqlite(filename);
    // busy_timeout first, so that switching to WAL waits for a process that holds the file.
    database.exec('PRAGMA busy_timeout = 5000');
    database.exec('PRAGMA journal_mode = WAL');
    database.exec(`PRAGMA synchronous = ${SQLITE_SYNCHRONOUS}`);
    database.exec('PRAGMA foreign_keys = ON');

    const db = new Kysely<Database>({
      dialect: firstComeDialect(new SqliteDialect({ database: cachingStatements(database) })),
      log,
    });
    const capabilities = sqliteCapabilities(filename);
    try {
      await migrateToLatest(db, capabilities);
    } catch (error) {
      await db.destroy();
      throw error;
    }
    // Opened after migrating: the reads' statements are prepared against the latest schema.
    const reads = sqliteDirectReads(filename, log);
    const withReads = reads ? { ...capabilities, readDirect: reads.read, close: reads.close } : capabilities;
    return new SqliteUserStore(db, withReads, filename);
  }
}
