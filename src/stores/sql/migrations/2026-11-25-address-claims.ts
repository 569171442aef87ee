import { Kysely, PostgresAdapter, sql } from 'kysely';

// An address belongs to whoever proves it. Until now `users.email_key` was unique, so the first registration of an
// address held it and a second one could not exist; now an address may be claimed by several unverified
// registrations, and only verified users are unique by address (the confirmation of one ends the others). Frozen once
// released, like every migration (it imports nothing from the app). Existing rows are kept as they are.
//
// PostgreSQL drops the constraint in place. SQLite cannot drop a table constraint, so `users` is rebuilt; with foreign
// keys on (and the pragma is fixed inside the migration's transaction) dropping `users` would cascade to its
// dependents, so those are set aside, dropped first and rebuilt too, their definitions as the earlier migrations left
// them.

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.alterTable('users').dropConstraint('users_email_key_unique').execute();
  } else {
    await rebuildSqliteUsers(db);
  }
  // One verified owner per address; the database refuses a second, whatever the application does.
  await db.schema
    .createIndex('users_verified_email_key_unique')
    .on('users')
    .column('email_key')
    .unique()
    .where(sql.ref('verified'), '=', 1)
    .execute();
  // The registrations of an address: the owner, and the unverified claims that resend and confirmation look up.
  await db.schema.createIndex('users_email_key_index').on('users').column('email_key').execute();
  // The clean-up removes unverified registrations past their expiry.
  await db.schema
    .createIndex('users_unverified_created_at_index')
    .on('users')
    .column('created_at')
    .where(sql.ref('verified'), '=', 0)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [
    'users_unverified_created_at_index',
    'users_email_key_index',
    'users_verified_email_key_unique',
  ]) {
    await db.schema.dropIndex(index).execute();
  }
  // Fails, as it should, while two registrations share an address.
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.alterTable('users').addUniqueConstraint('users_email_key_unique', ['email_key']).execute();
  } else {
    await db.schema.createIndex('users_email_key_unique').on('users').column('email_key').unique().execute();
  }
}

const DEPENDENTS = ['user_roles', 'tokens', 'sessions'] as const;

async function rebuildSqliteUsers(db: Kysely<any>): Promise<void> {
  for (const table of ['users', ...DEPENDENTS]) {
    await sql`create temp table ${sql.id(`kept_${table}`)} as select * from ${sql.id(table)}`.execute(db);
  }
  for (const table of [...DEPENDENTS, 'users']) await db.schema.dropTable(table).execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('username', 'varchar(255)', (col) => col.notNull())
    .addColumn('username_key', 'varchar(255)', (col) => col.notNull())
    .addColumn('email', 'varchar(255)', (col) => col.notNull())
    .addColumn('email_key', 'varchar(255)', (col) => col.notNull())
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('verified', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('users_username_key_unique', ['username_key'])
    .execute();
  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('tokens')
    .addColumn('token_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'varchar(32)', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addCheckConstraint('tokens_purpose_check', sql`purpose in ('verify_email', 'reset_password')`)
    .execute();
  await db.schema
    .createTable('user_roles')
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'varchar(255)', (col) => col.notNull().references('roles.name').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_roles_pk', ['user_id', 'role'])
    .execute();

  for (const table of ['users', ...[...DEPENDENTS].reverse()]) {
    await sql`insert into ${sql.id(table)} select * from ${sql.id(`kept_${table}`)}`.execute(db);
    await sql`drop table ${sql.id(`kept_${table}`)}`.execute(db);
  }

  // The indexes of the dependents went with their tables (2026-11-22-initial, 2026-11-23-expiry-indexes).
  await db.schema.createIndex('sessions_user_id_index').on('sessions').column('user_id').execute();
  await db.schema.createIndex('tokens_user_id_purpose_index').on('tokens').columns(['user_id', 'purpose']).execute();
  await db.schema.createIndex('user_roles_role_index').on('user_roles').column('role').execute();
  await db.schema.createIndex('sessions_expires_at_index').on('sessions').column('expires_at').execute();
  await db.schema.createIndex('sessions_last_seen_at_index').on('sessions').column('last_seen_at').execute();
  await db.schema.createIndex('tokens_expires_at_index').on('tokens').column('expires_at').execute();
}
