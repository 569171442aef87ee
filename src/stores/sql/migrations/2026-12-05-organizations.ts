import { Kysely } from 'kysely';

// Organizations, their members and invitations (issue 41). Frozen once released, like every migration (it imports
// nothing from the app).
//
// - `organizations`: an opaque id (a uuid) and a name; `created_by` names its creator until that account goes (SET
//   NULL). Writers of an organization's members and invitations lock its row first (PostgreSQL: FOR UPDATE).
// - `organization_members`: one role of the template per (organization, user), the primary key; the user's rows (the
//   registry of user-owned tables), found by `user_id` through its index; both foreign keys cascade. Not `user_roles`:
//   its `role` references the global `roles`, and the template is apart from them.
// - `organization_invitations`: pending invitations, one per (organization, canonical address); the token only as a
//   keyed hash (unique); `invited_by` names the inviter until that account goes (SET NULL). Accepting, declining,
//   cancelling or replacing one deletes its row; the clean-up removes them past `expires_at` (indexed).
//
// down() drops the three tables: the previous release knows no organizations.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('created_by', 'varchar(255)', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('organizations_created_by_index').on('organizations').column('created_by').execute();

  await db.schema
    .createTable('organization_members')
    .addColumn('organization_id', 'varchar(255)', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'varchar(255)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('organization_members_pk', ['organization_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('organization_members_user_id_index')
    .on('organization_members')
    .column('user_id')
    .execute();

  await db.schema
    .createTable('organization_invitations')
    .addColumn('id', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('organization_id', 'varchar(255)', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('email', 'varchar(255)', (col) => col.notNull())
    .addColumn('email_key', 'varchar(255)', (col) => col.notNull())
    .addColumn('role', 'varchar(255)', (col) => col.notNull())
    .addColumn('token_hash', 'varchar(255)', (col) => col.notNull().unique())
    .addColumn('invited_by', 'varchar(255)', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('organization_invitations_address_unique', ['organization_id', 'email_key'])
    .execute();
  await db.schema
    .createIndex('organization_invitations_invited_by_index')
    .on('organization_invitations')
    .column('invited_by')
    .execute();
  await db.schema
    .createIndex('organization_invitations_expires_at_index')
    .on('organization_invitations')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('organization_invitations').execute();
  await db.schema.dropTable('organization_members').execute();
  await db.schema.dropTable('organizations').execute();
}
