import { Kysely, KyselyConfig, PostgresDialect, PostgresPool } from 'kysely';
import { Pool, PoolClient } from 'pg';
import { DialectGuard, guardDialect, retryableOnce, unavailableOnFailure } from './sql/guarded-dialect';
import { migrateToLatest } from './sql/migrate';
import { postgresCapabilities } from './sql/postgres-capabilities';
import { postgresDirectReads } from './sql/postgres-direct-reads';
import { PreparedStatements, preparingView } from './sql/postgres-prepared-statements';
import { isPostgresConnectionFailure } from './sql/postgres-errors';
import { Database } from './sql/schema';
import { SqlUserStore } from './sql/sql-user-store';

export interface PostgresUserStoreOptions {
  /** `postgres://user:password@host:5432/database`; the store creates its own pool and ends it on `close()`. */
  connectionString?: string;
  /**
   * Your own `pg.Pool` instead, for its TLS, credentials or sizing; `close()` leaves it open. Give it a
   * `connectionTimeoutMillis` and a `query_timeout`, or a request may wait as long as the network does.
   */
  pool?: Pool;
  /** Size of the pool the store creates; default 10 connections per process. */
  maxConnections?: number;
  /**
   * How long to wait for a connection before the store reports itself unavailable (503); default 2000 ms. Covers
   * both a new connection to a database that does not answer and a wait for a free one in a busy pool.
   */
  connectionTimeoutMillis?: number;
  /**
   * How long one query may go unanswered on an open connection before the store reports itself unavailable (503);
   * default 3000 ms. Without it a database that stops answering without closing anything (a frozen host, a
   * partitioned network) holds every request for as long as the outage lasts. Gatehouse's queries take
   * milliseconds; the batched cleanup stays far below it too.
   */
  queryTimeoutMillis?: number;
  /**
   * Told about errors of connections the pool held idle (a database restart ends them all). They cannot fail any
   * request, and the pool replaces them; by default they are ignored.
   */
  onConnectionError?: (error: Error) => void;
  /** Kysely's query log (every statement's SQL and duration, and failures): for diagnostics and query-count tests. */
  log?: KyselyConfig['log'];
  /**
   * Run the reads of every request (session validation, role and permission checks, login's lookup) as named
   * prepared statements, parsed and planned once per connection; default true. Turn it off behind a pooler that
   * hands each transaction a different server connection and does not track prepared statements (PgBouncer in
   * transaction mode before 1.21, or with `max_prepared_statements = 0`).
   */
  preparedStatements?: boolean;
}

const DEFAULT_MAX_CONNECTIONS = 10;
const DEFAULT_CONNECTION_TIMEOUT_MS = 2_000;
const DEFAULT_QUERY_TIMEOUT_MS = 3_000;

const UNAVAILABLE: DialectGuard = { database: 'PostgreSQL', isConnectionFailure: isPostgresConnectionFailure };

/**
 * The SQL store on PostgreSQL (node-postgres), for one or several stateless instances sharing one database. The
 * queries are the SQLite store's; only the capabilities differ (see `postgresCapabilities`).
 *
 * The schema is migrated before the first query runs, under an advisory lock, so instances may start together;
 * `PostgresUserStore.open` (or `await store.migrate()`) does it at once and fails early on a broken schema.
 *
 * A database that is down or restarting makes operations throw `StoreUnavailableError` (503 with `Retry-After` from
 * the HTTP layer) within `connectionTimeoutMillis`; nothing crashes the process, and the pool reconnects by itself
 * once the database is back. Other database errors pass through unchanged.
 *
 * @example
 * const store = await PostgresUserStore.open({ connectionString: process.env.DATABASE_URL });
 * // or, with a pool of your own, left open by store.close():
 * const store = new PostgresUserStore({ pool: new pg.Pool({ connectionString, connectionTimeoutMillis: 2000 }) });
 */
export class PostgresUserStore extends SqlUserStore {
  /** The pool the store queries through (its own, or the one passed in). */
  readonly pool: Pool;
  private readonly migrateOnce: () => Promise<void>;
  private readonly detachListeners: () => void;

  constructor(options: PostgresUserStoreOptions) {
    const { pool, owned } = poolFrom(options);
    const detach = listenForConnectionErrors(pool, options.onConnectionError);
    // An own pool keeps its listeners: its connections finish closing after `end()` resolves, and an error of one of
    // them (the server ending it first) must not find the pool without one. A host's pool gets its own state back.
    const detachOnClose = owned ? () => {} : detach;
    // Migrations run through a second Kysely on the same pool, unguarded by the migration gate below (which waits for
    // them); it is never destroyed, so it never ends the pool.
    const migrationDb = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: unendingView(pool) }) });
    const statements = options.preparedStatements === false ? undefined : new PreparedStatements();
    const capabilities = postgresCapabilities(statements);
    const migrateOnce = retryableOnce(() => migrateToLatest(migrationDb, capabilities));
    const queryPool = owned ? pool : unendingView(pool);
    const guard: DialectGuard = { ...UNAVAILABLE, beforeFirstQuery: migrateOnce };
    const dialect = guardDialect(
      new PostgresDialect({ pool: statements ? preparingView(queryPool, statements) : queryPool }),
      guard,
    );
    const readDirect = statements && postgresDirectReads(pool, statements, guard, options.log);
    super(new Kysely<Database>({ dialect, log: options.log }), { ...capabilities, readDirect });
    this.pool = pool;
    this.migrateOnce = migrateOnce;
    this.detachListeners = detachOnClose;
  }

  /** Creates the store and migrates the schema before handing it out; closes the store again if that fails. */
  static async open(options: PostgresUserStoreOptions): Promise<PostgresUserStore> {
    const store = new PostgresUserStore(options);
    try {
      await store.migrate();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /**
   * Brings the schema up to date now rather than before the first query; once that is done, calls resolve at once.
   * Throws `StoreUnavailableError` when the database cannot be reached (a later call, or the next query, tries again).
   */
  migrate(): Promise<void> {
    return unavailableOnFailure(UNAVAILABLE, this.migrateOnce);
  }

  override async close(): Promise<void> {
    await super.close();
    this.detachListeners();
  }
}

function poolFrom(options: PostgresUserStoreOptions): { pool: Pool; owned: boolean } {
  if (options.pool && options.connectionString) {
    throw new TypeError('PostgresUserStore: pass either connectionString or pool, not both');
  }
  if (options.pool) return { pool: options.pool, owned: false };
  if (!options.connectionString) throw new TypeError('PostgresUserStore: connectionString or pool is required');
  const pool = new Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? DEFAULT_CONNECTION_TIMEOUT_MS,
    query_timeout: options.queryTimeoutMillis ?? DEFAULT_QUERY_TIMEOUT_MS,
    // Finds connections a vanished server or a dropped network path left half-open.
    keepAlive: true,
    fallback_application_name: 'gatehouse',
  });
  return { pool, owned: true };
}

/**
 * node-postgres emits `error` on a client whose connection ends, and an `error` nobody listens to ends the process.
 * The pool listens while a client is idle and re-emits on itself (so the pool needs a listener too); while a client is
 * checked out, nothing does, and a restart in the middle of a request would crash the process. The failed query is
 * rejected with the error anyway, so the client listener only has to exist; pg-pool discards the broken client.
 */
function listenForConnectionErrors(pool: Pool, report: (error: Error) => void = () => {}): () => void {
  const onPoolError = (error: Error) => report(error);
  const ignore = () => {};
  const onConnect = (client: PoolClient) => client.on('error', ignore);
  pool.on('error', onPoolError);
  pool.on('connect', onConnect);
  return () => {
    pool.off('error', onPoolError);
    pool.off('connect', onConnect);
  };
}

/** The pool as Kysely sees it, except that destroying the Kysely does not end it. */
function unendingView(pool: Pool): PostgresPool {
  return { connect: () => pool.connect(), end: async () => {} };
}
