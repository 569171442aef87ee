import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import { Pool } from 'pg';
import { migrations } from '../../src/stores/sql/migrate';
import { openSqlite } from '../../src/stores/sql/sqlite-statement-cache';

// The steps a migration test takes: the schema as the release before a migration left it, up to a list of
// migrations, and down again.

/** A database whose schema is that of any release, as migrations see it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- no one schema type fits every release
type AnySchema = any;
export type AnyReleaseDb = Kysely<AnySchema>;

/** The names of the migrations before `name`: the schema of the release before it. */
export function migrationsBefore(name: string): string[] {
  const names = Object.keys(migrations);
  return names.slice(0, names.indexOf(name));
}

/** Runs exactly `names`, in order, as a release that knew only those would. */
export async function migrateTo(db: AnyReleaseDb, names: string[]): Promise<void> {
  const provider = { getMigrations: async () => Object.fromEntries(names.map((name) => [name, migrations[name]])) };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error;
}

/** Back to the schema `name` left, undoing whatever later migrations did first. */
export async function migrateDownTo(db: AnyReleaseDb, name: string): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
}

/** A SQLite file opened as an earlier release would, foreign keys on. */
export function sqliteAsPreviousRelease(filename: string): AnyReleaseDb {
  // Through openSqlite: a statement left to the garbage collector aborts Node 24 (see sqlite-statement-cache).
  const database = openSqlite(filename);
  database.exec('PRAGMA foreign_keys = ON');
  return new Kysely<AnySchema>({ dialect: new SqliteDialect({ database }) });
}

/** A PostgreSQL database opened as an earlier release would. */
export function postgresAsPreviousRelease(connectionString: string): AnyReleaseDb {
  return new Kysely<AnySchema>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString }) }) });
}

/** A login event of alice, at `at`, as every release since the audit trail writes it. */
export function aliceLoginEvent(at: number) {
  return {
    id: 'e1',
    at,
    type: 'login',
    outcome: 'success',
    actor_type: 'user',
    actor_id: 'alice',
    subject_id: 'alice',
    ip: '192.0.2.1',
    request_id: 'r1',
    details: null,
  };
}

/** A notice of `kind` to alice waiting in the outbox since `at`, as every release since the outbox writes it. */
export function queuedNoticeToAlice(id: string, kind: string, at: number) {
  return {
    id,
    kind,
    user_id: 'alice',
    username: 'alice',
    email: 'alice@example.com',
    sealed_token: null,
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    give_up_at: at + 9e9,
    claim_id: null,
    last_error: null,
    created_at: at,
    updated_at: at,
    sent_at: null,
  };
}

/**
 * The rows of `table` in the shape the releases before `2026-12-02-credentials` gave them (`users.password_hash`,
 * `second_factors`, `recovery_codes`), read from a database at that release or a later one: the tests of earlier
 * migrations check that their rows survive every later one.
 */
export async function rowsInShapeBeforeCredentials(
  db: AnyReleaseDb,
  table: string,
): Promise<Record<string, unknown>[]> {
  const tables = await db.introspection.getTables();
  if (!tables.some((one) => one.name === 'credentials')) return db.selectFrom(table).selectAll().execute();
  if (table === 'users') {
    return db
      .selectFrom('users as u')
      .leftJoin('credentials as c', (join) => join.onRef('c.user_id', '=', 'u.id').on('c.kind', '=', 'password'))
      .selectAll('u')
      .select('c.secret as password_hash')
      .execute();
  }
  if (table === 'second_factors') {
    return db
      .selectFrom('credentials')
      .select(['user_id', 'secret as sealed_secret', 'enabled', 'created_at', 'enabled_at', 'last_used_step'])
      .where('kind', '=', 'totp')
      .execute();
  }
  if (table === 'recovery_codes') {
    return db
      .selectFrom('credentials')
      .select(['secret as code_hash', 'user_id', 'created_at'])
      .where('kind', '=', 'recovery_code')
      .where('last_used_at', 'is', null)
      .execute();
  }
  return db.selectFrom(table).selectAll().execute();
}
