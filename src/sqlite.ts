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
export type { SqlCapabilities, WriteOptions } from './stores/sql/sql-capabilities';
export type { DirectRead } from './stores/sql/precompiled-query';
export { migrateToLatest, migrations } from './stores/sql/migrate';
// The tables of the schema, for a host that reads them with Kysely (reports, its own joins).
export type {
  AuditEventsTable,
  Database,
  EmailChangesTable,
  EpochMs,
  Flag,
  LoginChallengesTable,
  NullableEpochMs,
  OutboxTable,
  PermissionsTable,
  RecoveryCodesTable,
  RolePermissionsTable,
  RolesTable,
  SecondFactorsTable,
  SessionsTable,
  TokensTable,
  UserRolesTable,
  UsersTable,
} from './stores/sql/schema';
