/**
 * `gatehouse/postgres`: the PostgreSQL store (node-postgres). Imported on its own, so that a host on SQLite never
 * loads pg.
 *
 * @example
 * import { PostgresUserStore } from 'gatehouse/postgres';
 * Container.set(USER_STORE, await PostgresUserStore.open({ connectionString: process.env.DATABASE_URL! }));
 */
export { PostgresUserStore, type PostgresUserStoreOptions } from './stores/postgres-user-store';
export { postgresCapabilities } from './stores/sql/postgres-capabilities';
export * from './stores/sql/public';
