import { Kysely, Migrator } from 'kysely';
import { migrations } from '../../src/stores/sql/migrate';

/** Applies exactly these migrations (a prefix of the list: the schema as that release left it). */
export async function migrateTo(db: Kysely<unknown>, names: string[]): Promise<void> {
  const provider = { getMigrations: async () => Object.fromEntries(names.map((name) => [name, migrations[name]])) };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error;
}

/** Back down to the schema `name` left, undoing every later migration, latest first. */
export async function migrateDownTo(db: Kysely<unknown>, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateTo(name);
  if (error) throw error;
}
