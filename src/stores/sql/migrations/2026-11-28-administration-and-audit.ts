import { Kysely, PostgresAdapter, sql } from 'kysely';

// Administration and the audit trail. Frozen once released, like every migration (it imports nothing from the app).
//
// - `users.disabled_at` is set while an administrator has disabled the account; `users.last_sign_in_at` is the
//   creation of its latest session. Both are nullable without a default, so every existing row stays valid (enabled,
//   never signed in as far as this release knows), and an instance of the previous release, still running while this
//   one migrates, goes on inserting users that name only the old columns.
// - `users (created_at, id)` is the order of the administrator's user list: each keyset page is an index range.
// - `audit_events` holds one row per security event. It has no foreign key to users: an event outlives its user (an
//   account's deletion is itself an event). Each index is one way the trail is read, newest first: all of it, by
//   subject, by actor, by type; `(at, id)` also serves the retention clean-up.
// - The trail is append-only: a trigger refuses every UPDATE, in both databases. DELETE stays allowed, for the
//   clean-up past the retention.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('last_sign_in_at', 'bigint').execute();
  await db.schema.createIndex('users_created_at_id_index').on('users').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('type', 'varchar(64)', (col) => col.notNull())
    .addColumn('outcome', 'varchar(64)', (col) => col.notNull())
    .addColumn('actor_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('actor_id', 'varchar(255)')
    .addColumn('subject_id', 'varchar(255)')
    .addColumn('ip', 'varchar(255)')
    .addColumn('request_id', 'varchar(255)')
    .addColumn('details', 'text')
    .addCheckConstraint('audit_events_actor_type_check', sql`actor_type in ('user', 'admin', 'operator', 'anonymous')`)
    .execute();
  await db.schema.createIndex('audit_events_at_id_index').on('audit_events').columns(['at', 'id']).execute();
  await db.schema
    .createIndex('audit_events_subject_index')
    .on('audit_events')
    .columns(['subject_id', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_events_actor_index')
    .on('audit_events')
    .columns(['actor_id', 'at', 'id'])
    .execute();
  await db.schema.createIndex('audit_events_type_index').on('audit_events').columns(['type', 'at', 'id']).execute();

  if (isPostgres(db)) {
    await sql`create function audit_events_refuse_update() returns trigger language plpgsql as $$
      begin
        raise exception 'audit events are append-only';
      end
      $$`.execute(db);
    await sql`create trigger audit_events_append_only before update on audit_events
      for each row execute function audit_events_refuse_update()`.execute(db);
  } else {
    await sql`create trigger audit_events_append_only before update on audit_events
      begin select raise(abort, 'audit events are append-only'); end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
  if (isPostgres(db)) await sql`drop function audit_events_refuse_update()`.execute(db);
  await db.schema.dropIndex('users_created_at_id_index').execute();
  await db.schema.alterTable('users').dropColumn('last_sign_in_at').execute();
  await db.schema.alterTable('users').dropColumn('disabled_at').execute();
}

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
