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
export * from './stores/sql/public';
