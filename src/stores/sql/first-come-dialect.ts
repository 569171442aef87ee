import type { DatabaseConnection, Dialect, Driver } from 'kysely';

/**
 * Wraps a single-connection dialect (SQLite) so that its one connection is handed out first come, first served.
 *
 * Why: Kysely's SQLite driver guards its connection with a mutex that wakes every waiter when it is released, and
 * whoever runs first takes it. A caller whose next query follows its last one in fewer steps than a waiter needs to
 * wake up takes it again, and again: with a few such readers (session checks, precompiled so that they are short), a
 * write transaction waiting for the connection could wait for as long as they keep reading. Here the connection passes
 * straight to the oldest waiter, so a write waits for the queries ahead of it and no more.
 */
export function firstComeDialect(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => new FirstComeDriver(dialect.createDriver()),
  };
}

class FirstComeDriver implements Driver {
  private held = false;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.held = true;
    // Only one caller at a time gets here, so the inner driver's own mutex is always free.
    return this.inner.acquireConnection();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await this.inner.releaseConnection(connection);
    // Handed to the oldest waiter while still held, so no newcomer can slip in between.
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }

  beginTransaction: Driver['beginTransaction'] = (connection, settings) =>
    this.inner.beginTransaction(connection, settings);
  commitTransaction: Driver['commitTransaction'] = (connection) => this.inner.commitTransaction(connection);
  rollbackTransaction: Driver['rollbackTransaction'] = (connection) => this.inner.rollbackTransaction(connection);
  savepoint: Driver['savepoint'] = (connection, name, compile) => this.inner.savepoint!(connection, name, compile);
  rollbackToSavepoint: Driver['rollbackToSavepoint'] = (connection, name, compile) =>
    this.inner.rollbackToSavepoint!(connection, name, compile);
  releaseSavepoint: Driver['releaseSavepoint'] = (connection, name, compile) =>
    this.inner.releaseSavepoint!(connection, name, compile);

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
