import { type CreateTableBuilder, Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

// Scoped role grants. Frozen once released, like every migration (it imports nothing from the app).
//
// - `user_roles.scope` says where a grant applies. Global is the empty string: no organization id (or other scope a
//   later slice makes up) can be empty, so none can be taken for global, and every existing row, and any row an
//   instance of the previous release still inserts without naming the column, gets it by the default. varchar(255),
//   as every identifier column, so that every dialect can index it.
// - The primary key becomes (user_id, scope, role): one role may be granted to a user in several scopes. A guard's
//   read names all three columns and stays one probe of it; the column order also serves the reads a scope will need
//   (a user's grants within one scope are a prefix of it). `user_roles_role_index` stays as it was.
// - PostgreSQL adds the column (a constant default: no rewrite of the table) and swaps the constraint. SQLite cannot
//   change a primary key, so `user_roles` is rebuilt beside the old one, filled from it, and renamed; nothing
//   references `user_roles`, so dropping it cascades nowhere.
// - An instance of the previous release still running while this one migrates keeps reading grants as before (they
//   are all global), but its role grant names the old key in ON CONFLICT and fails: grant roles once every instance
//   runs this release.
// - down() refuses, naming how many, while grants outside the global scope exist: going down would otherwise drop
//   access that someone holds. Remove them first (the release that made them says how).

const GLOBAL = '';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await db.schema
      .alterTable('user_roles')
      .addColumn('scope', 'varchar(255)', (col) => col.notNull().defaultTo(GLOBAL))
      .execute();
    await db.schema.alterTable('user_roles').dropConstraint('user_roles_pk').execute();
    await db.schema
      .alterTable('user_roles')
      .addPrimaryKeyConstraint('user_roles_pk', ['user_id', 'scope', 'role'])
      .execute();
    return;
  }
  await rebuildSqliteUserRoles(db, ['user_id', 'scope', 'role'], sql`select user_id, role, ${GLOBAL} from user_roles`);
}

export async function down(db: Kysely<any>): Promise<void> {
  const { count } = await db
    .selectFrom('user_roles')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('scope', '<>', GLOBAL)
    .executeTakeFirstOrThrow();
  if (Number(count) > 0) {
    throw new Error(
      `cannot undo scoped grants while ${Number(count)} role grant(s) outside the global scope exist; remove them first`,
    );
  }
  if (isPostgres(db)) {
    await db.schema.alterTable('user_roles').dropConstraint('user_roles_pk').execute();
    await db.schema.alterTable('user_roles').addPrimaryKeyConstraint('user_roles_pk', ['user_id', 'role']).execute();
    await db.schema.alterTable('user_roles').dropColumn('scope').execute();
    return;
  }
  await rebuildSqliteUserRoles(db, ['user_id', 'role'], sql`select user_id, role from user_roles`);
}

/**
 * `user_roles` again, with `scope` when the key names it, filled by `rows` (columns in the table's order), and its
 * index as 2026-11-22-initial made it (it goes with the old table).
 */
async function rebuildSqliteUserRoles(db: Kysely<any>, key: string[], rows: RawBuilder<unknown>): Promise<void> {
  // Typed loosely: which columns the key names depends on the direction.
  const table: CreateTableBuilder<string, string> = db.schema
    .createTable('user_roles_rebuilt')
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'varchar(255)', (col) => col.notNull().references('roles.name').onDelete('cascade'));
  const withScope = key.includes('scope')
    ? table.addColumn('scope', 'varchar(255)', (col) => col.notNull().defaultTo(GLOBAL))
    : table;
  await withScope.addPrimaryKeyConstraint('user_roles_pk', key).execute();
  await sql`insert into user_roles_rebuilt ${rows}`.execute(db);
  await db.schema.dropTable('user_roles').execute();
  await db.schema.alterTable('user_roles_rebuilt').renameTo('user_roles').execute();
  await db.schema.createIndex('user_roles_role_index').on('user_roles').column('role').execute();
}

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
