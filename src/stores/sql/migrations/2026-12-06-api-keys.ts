import { Kysely } from 'kysely';

// API keys and service accounts (issue 42). Frozen once released, like every migration (it imports nothing from the
// app).
//
// - `api_keys`: a key only as its keyed hash (`key_hash`, unique: the request path finds a key by it); the owner's
//   rows (the registry of user-owned tables), gone with the owner (CASCADE); `name` unique per owner, which also
//   finds an owner's keys; `scopes` a JSON array of permission names; `expires_at` indexed for the clean-up;
//   `created_by` names the creator (the owner, or the administrator who made it for a service account) until that
//   account goes (SET NULL, indexed so that the deletion finds them). Revoking a key deletes its row.
// - `service_accounts`: the mark of a user that is a service account (no password, no mailbox, no sign-in), gone
//   with its user; `created_by` as above (null: the operator's CLI).
//
// down() drops both tables: the previous release knows no keys.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('key_hash', 'varchar(255)', (col) => col.notNull().unique())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('last_four', 'varchar(255)', (col) => col.notNull())
    .addColumn('scopes', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('last_used_ip', 'varchar(255)')
    .addColumn('created_by', 'varchar(255)', (col) => col.references('users.id').onDelete('set null'))
    .addUniqueConstraint('api_keys_user_name_unique', ['user_id', 'name'])
    .execute();
  await db.schema.createIndex('api_keys_expires_at_index').on('api_keys').column('expires_at').execute();
  await db.schema.createIndex('api_keys_created_by_index').on('api_keys').column('created_by').execute();

  await db.schema
    .createTable('service_accounts')
    .addColumn('user_id', 'varchar(255)', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'varchar(255)', (col) => col.references('users.id').onDelete('set null'))
    .execute();
  await db.schema
    .createIndex('service_accounts_created_by_index')
    .on('service_accounts')
    .column('created_by')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('service_accounts').execute();
  await db.schema.dropTable('api_keys').execute();
}
