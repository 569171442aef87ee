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
