/**
 * `gatehouse/sqlite`: the embedded SQLite store (better-sqlite3). Imported on its own, so that a host on PostgreSQL
 * never loads better-sqlite3.
 *
 * @example
 * import { SqliteUserStore } from 'gatehouse/sqlite';
 * Container.set(USER_STORE, await SqliteUserStore.open({ filename: './data/gatehouse.db' }));
 */
export { SqliteUserStore, type SqliteUserStoreOptions } from './stores/sqlite-user-store';
export { sqliteCapabilities } from './stores/sql/sqlite-capabilities';
export { SqlUserStore } from './stores/sql/sql-user-store';
export type { SqlCapabilities } from './stores/sql/sql-capabilities';
export { migrateToLatest, migrations } from './stores/sql/migrate';
export type { Database } from './stores/sql/schema';
