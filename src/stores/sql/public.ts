// What `gatehouse/sqlite` and `gatehouse/postgres` both export: the SQL store itself, its migrations and the
// schema's tables, whichever database a host is on.
export { SqlUserStore } from './sql-user-store';
export type { SqlCapabilities, WriteOptions } from './sql-capabilities';
export type { DirectRead } from './precompiled-query';
export { migrateToLatest, migrations } from './migrate';
// The tables of the schema, for a host that reads them with Kysely (reports, its own joins).
export type {
  ApiKeysTable,
  AuditEventsTable,
  CredentialsTable,
  Database,
  EmailChangesTable,
  EpochMs,
  Flag,
  LoginChallengesTable,
  NullableEpochMs,
  OidcFlowsTable,
  OidcHandoffsTable,
  OrganizationInvitationsTable,
  OrganizationMembersTable,
  OrganizationsTable,
  OutboxTable,
  PasskeyChallengesTable,
  PermissionsTable,
  RolePermissionsTable,
  RolesTable,
  ServiceAccountsTable,
  SessionsTable,
  TokensTable,
  UserRolesTable,
  UsersTable,
} from './schema';
