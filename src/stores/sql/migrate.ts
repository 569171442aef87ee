import { Kysely, Migration, MigrationProvider, MigrationResult, Migrator } from 'kysely';
import * as initial from './migrations/2026-11-22-initial';
import * as expiryIndexes from './migrations/2026-11-23-expiry-indexes';
import * as outbox from './migrations/2026-11-24-outbox';
import * as addressClaims from './migrations/2026-11-25-address-claims';
import * as sessionsAndEmailChanges from './migrations/2026-11-26-sessions-and-email-changes';
import * as secondFactor from './migrations/2026-11-27-second-factor';
import * as administrationAndAudit from './migrations/2026-11-28-administration-and-audit';
import * as scopedGrants from './migrations/2026-11-29-scoped-grants';
import * as kindsCheckedInCode from './migrations/2026-11-30-kinds-checked-in-code';
import * as sessionMethods from './migrations/2026-12-01-session-methods';
import * as credentials from './migrations/2026-12-02-credentials';
import * as passkeys from './migrations/2026-12-03-passkeys';
import * as oidc from './migrations/2026-12-04-oidc';
import * as organizations from './migrations/2026-12-05-organizations';
import * as apiKeys from './migrations/2026-12-06-api-keys';
import { SqlCapabilities } from './sql-capabilities';

/**
 * Every migration, by name, in order. Listed statically rather than found by scanning a folder, so that it works the
 * same from `src/` (ts-node), from `build/` and from a bundle. Add new migrations at the end with a later date prefix.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  '2026-11-22-initial': initial,
  '2026-11-23-expiry-indexes': expiryIndexes,
  '2026-11-24-outbox': outbox,
  '2026-11-25-address-claims': addressClaims,
  '2026-11-26-sessions-and-email-changes': sessionsAndEmailChanges,
  '2026-11-27-second-factor': secondFactor,
  '2026-11-28-administration-and-audit': administrationAndAudit,
  '2026-11-29-scoped-grants': scopedGrants,
  '2026-11-30-kinds-checked-in-code': kindsCheckedInCode,
  '2026-12-01-session-methods': sessionMethods,
  '2026-12-02-credentials': credentials,
  '2026-12-03-passkeys': passkeys,
  '2026-12-04-oidc': oidc,
  '2026-12-05-organizations': organizations,
  '2026-12-06-api-keys': apiKeys,
};

const staticProvider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Brings the database schema of the SQL store up to date; safe to run on every start and from several processes at
 * once. Throws an error naming the failed migration; a failed run leaves the schema as it was where the database
 * supports transactional DDL (SQLite and PostgreSQL do).
 *
 * @example
 * await migrateToLatest(db, sqliteCapabilities(filename));
 */
export async function migrateToLatest(db: Kysely<any>, capabilities: SqlCapabilities): Promise<void> {
  await capabilities.migrationScope(db, async (scoped) => {
    const { error, results } = await new Migrator({ db: scoped, provider: staticProvider }).migrateToLatest();
    if (error !== undefined) throw migrationError(error, results);
  });
}

function migrationError(cause: unknown, results: MigrationResult[] | undefined): Error {
  const failed = results?.find((result) => result.status === 'Error')?.migrationName;
  const reason = cause instanceof Error ? cause.message : String(cause);
  const what = failed ? `migration "${failed}" failed` : 'migrations could not run';
  return new Error(`Gatehouse database ${what}: ${reason}`, { cause });
}
