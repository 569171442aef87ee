import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, KyselyConfig, LogEvent } from 'kysely';
import type { DirectRead } from './precompiled-query';
import { openSqlite } from './sqlite-statement-cache';

/** The reads of `SqlCapabilities.readDirect` on SQLite, and the connection they hold. */
export interface SqliteDirectReads {
  read: DirectRead;
  close(): void;
}

/**
 * The request path's reads on SQLite, run synchronously on a read-only connection of their own.
 *
 * Why: through Kysely a primary-key read queues for the store's one connection, then passes through the executor,
 * the driver's mutex and a promise per step: on `GET /me` that cost more than the read. A second connection in WAL
 * mode reads the last committed state without waiting for the writer, and never sees a write transaction that is
 * still open (the shared connection would: its own uncommitted rows). better-sqlite3 runs the read in one
 * synchronous call, so nothing interleaves with it in this process.
 *
 * Null where a second connection cannot see the same database (`:memory:` opens a new, empty one) or where the
 * query log is Kysely's own console logger (it would miss these reads); a log function is called for each read.
 */
export function sqliteDirectReads(filename: string, log: KyselyConfig['log']): SqliteDirectReads | null {
  if (filename === '' || filename === ':memory:' || filename.startsWith('file::memory:')) return null;
  if (log !== undefined && typeof log !== 'function') return null;
  const database = openSqlite(filename, { readonly: true, fileMustExist: true });
  // A reader waits for a lock only in rare moments (a checkpoint restarting the WAL); wait like the writer does.
  database.exec('PRAGMA busy_timeout = 5000');
  const reads = new Map<string, RawRead>();
  const readFor = (sql: string) => {
    let read = reads.get(sql);
    if (!read) {
      read = rawRead(database.prepare(sql));
      reads.set(sql, read);
    }
    return read;
  };
  const run = <Row>(query: CompiledQuery<Row>) => readFor(query.sql).all(query.parameters) as Row[];
  return {
    read: log ? (query) => logged(log, query, run) : run,
    close: () => database.close(),
  };
}

/** A prepared read that answers rows keyed by column name, as `all()` does. */
interface RawRead {
  all(parameters: readonly unknown[]): Record<string, unknown>[];
}

/**
 * Why raw: given a row as an object, better-sqlite3 sets each property through V8's API, looking the column's name
 * up in V8's string table on every row, about 1 µs a column on the bench machine (12 columns on a guarded route's
 * session check). As arrays, the rows come back without that, and the objects are built here, where the JIT keeps
 * one shape for every row of the statement.
 */
function rawRead(statement: BetterSqlite3.Statement): RawRead {
  const names = statement.columns().map((column) => column.name);
  statement.raw(true);
  const toRow = (values: unknown[]) => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < names.length; index++) row[names[index]] = values[index];
    return row;
  };
  return { all: (parameters) => (statement.all(...parameters) as unknown[][]).map(toRow) };
}

function logged<Row>(
  log: (event: LogEvent) => void,
  query: CompiledQuery<Row>,
  run: (query: CompiledQuery<Row>) => Row[],
): Row[] {
  const started = performance.now();
  try {
    const rows = run(query);
    log({ level: 'query', query, queryDurationMillis: performance.now() - started });
    return rows;
  } catch (error) {
    log({ level: 'error', error, query, queryDurationMillis: performance.now() - started });
    throw error;
  }
}
