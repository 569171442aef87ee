// The public pieces of the stores. The conformance suite is deliberately not here: it declares mocha tests, so it is
// imported from its own path (`gatehouse/build/src/stores/conformance`) by test code only.
export type {
  AccessAnswer,
  CreateUserResult,
  GrantResult,
  NewUser,
  RoleSummary,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
  UserStore,
} from '../services/user-store';
export { MemoryUserStore } from './memory-user-store';
export { SqliteUserStore, type SqliteUserStoreOptions } from './sqlite-user-store';
export { PostgresUserStore, type PostgresUserStoreOptions } from './postgres-user-store';
export { StoreUnavailableError, isStoreUnavailable } from '../errors/store-unavailable-error';
export { SqlUserStore } from './sql/sql-user-store';
export type { SqlCapabilities } from './sql/sql-capabilities';
export { sqliteCapabilities } from './sql/sqlite-capabilities';
export { postgresCapabilities } from './sql/postgres-capabilities';
export { migrateToLatest, migrations } from './sql/migrate';
export type { Database } from './sql/schema';
