import { Kysely, sql } from 'kysely';

// The first schema (DESIGN.md "Data"). A migration is frozen once released: it imports nothing from the app, so later
// changes to app types can never change what it does. Instants are epoch milliseconds in `bigint` columns; `verified`
// is an integer 0/1. Identifier columns are varchar(255) so that every dialect can index them.

export async function up(db: Kysely<any>): Promise<void> {
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
    .addUniqueConstraint('users_email_key_unique', ['email_key'])
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_id_index').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('tokens')
    .addColumn('token_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'varchar(32)', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addCheckConstraint('tokens_purpose_check', sql`purpose in ('verify_email', 'reset_password')`)
    .execute();
  await db.schema.createIndex('tokens_user_id_purpose_index').on('tokens').columns(['user_id', 'purpose']).execute();

  await db.schema
    .createTable('roles')
    .addColumn('name', 'varchar(255)', (col) => col.primaryKey())
    .execute();

  await db.schema
    .createTable('permissions')
    .addColumn('name', 'varchar(255)', (col) => col.primaryKey())
    .execute();

  await db.schema
    .createTable('role_permissions')
    .addColumn('role', 'varchar(255)', (col) => col.notNull().references('roles.name').onDelete('cascade'))
    .addColumn('permission', 'varchar(255)', (col) => col.notNull().references('permissions.name').onDelete('cascade'))
    .addPrimaryKeyConstraint('role_permissions_pk', ['role', 'permission'])
    .execute();
  // The primary key serves lookups by role; permission checks and cascades from `permissions` go by permission.
  await db.schema
    .createIndex('role_permissions_permission_index')
    .on('role_permissions')
    .column('permission')
    .execute();

  await db.schema
    .createTable('user_roles')
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'varchar(255)', (col) => col.notNull().references('roles.name').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_roles_pk', ['user_id', 'role'])
    .execute();
  await db.schema.createIndex('user_roles_role_index').on('user_roles').column('role').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['user_roles', 'role_permissions', 'permissions', 'roles', 'tokens', 'sessions', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
