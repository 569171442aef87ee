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
