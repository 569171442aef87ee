import {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { StoreUnavailableError } from '../../errors/store-unavailable-error';

export interface DialectGuard {
  /** Name of the database in the messages of `StoreUnavailableError` (for logs), e.g. `PostgreSQL`. */
  database: string;
  /** Whether a driver error means the database cannot be reached right now, as opposed to a query being wrong. */
  isConnectionFailure(error: unknown): boolean;
  /**
   * Work that must be done before any query of the store runs (migrations); awaited before every connection is
   * handed out, so it should settle once and answer at once afterwards (see `retryableOnce`).
   */
  beforeFirstQuery?: () => Promise<void>;
}

/**
 * Wraps a Kysely dialect so that a database that is down, restarting or out of connections surfaces as
 * `StoreUnavailableError` (answered 503 with `Retry-After` by the HTTP layer) from every query, transaction statement
 * and connection attempt, while every other error (a violated constraint, a wrong query) passes through unchanged.
 */
export function guardDialect(dialect: Dialect, guard: DialectGuard): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => new GuardedDriver(dialect.createDriver(), guard),
  };
}

/** Runs `guarded` and turns a connection-level failure into `StoreUnavailableError`. */
export async function unavailableOnFailure<T>(guard: DialectGuard, guarded: () => Promise<T>): Promise<T> {
  try {
    return await guarded();
  } catch (error) {
    if (error instanceof StoreUnavailableError || !guard.isConnectionFailure(error)) throw error;
    throw new StoreUnavailableError(`${guard.database} is unreachable: ${summarize(error)}`, 1, { cause: error });
  }
}

/**
 * Memoizes a successful run of `work`; a failed run is forgotten, so the next call tries again (a database that was
 * down when the first request came is migrated by the first request after it is back).
 */
export function retryableOnce(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= work().catch((error: unknown) => {
      running = undefined;
      throw error;
    });
    return running;
  };
}

function summarize(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code} ${error.message}` : error.message;
}

class GuardedConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly guard: DialectGuard,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return unavailableOnFailure(this.guard, () => this.inner.executeQuery<R>(query));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

function innerOf(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof GuardedConnection ? connection.inner : connection;
}

class GuardedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly guard: DialectGuard,
  ) {}

  init(): Promise<void> {
    return unavailableOnFailure(this.guard, () => this.inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await unavailableOnFailure(this.guard, async () => this.guard.beforeFirstQuery?.());
    const connection = await unavailableOnFailure(this.guard, () => this.inner.acquireConnection());
    return new GuardedConnection(connection, this.guard);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return unavailableOnFailure(this.guard, () => this.inner.beginTransaction(innerOf(connection), settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return unavailableOnFailure(this.guard, () => this.inner.commitTransaction(innerOf(connection)));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return unavailableOnFailure(this.guard, () => this.inner.rollbackTransaction(innerOf(connection)));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await unavailableOnFailure(this.guard, async () => this.inner.savepoint?.(innerOf(connection), name, compile));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await unavailableOnFailure(this.guard, async () =>
      this.inner.rollbackToSavepoint?.(innerOf(connection), name, compile),
    );
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await unavailableOnFailure(this.guard, async () =>
      this.inner.releaseSavepoint?.(innerOf(connection), name, compile),
    );
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(innerOf(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
