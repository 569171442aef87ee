import { Kysely, PostgresAdapter, sql } from 'kysely';

// Sessions a person can see and end, and a change of address confirmed by a link to the new one. Frozen once released,
// like every migration (it imports nothing from the app).
//
// - `sessions.id` is a session's public name (what a list shows and a revoke names), never its token. Existing
//   sessions get a random one and stay valid; `authenticated_at` starts as their login (`created_at`).
// - The new session columns have defaults so that an instance of the previous release, still running while this one
//   migrates, can go on creating sessions (it names only the old columns). Its sessions count as never
//   re-authenticated (`authenticated_at` 0), which asks for the password before a sensitive change: the safe side.
// - `email_changes` holds one pending change per user (the link's token stored as its keyed hash, like every other);
//   it goes with its user.
// - The outbox may now carry the four messages of an address change.
//
// PostgreSQL changes both tables in place (gen_random_uuid() is built in from PostgreSQL 13). SQLite cannot add a
// column with a non-constant default nor change a CHECK constraint, so it rebuilds `sessions` and `outbox`, keeping
// their rows; neither has dependents, so nothing else has to be set aside (compare 2026-11-25-address-claims).

const OLD_KINDS = sql`kind in ('verification', 'passwordReset', 'emailVerified', 'passwordChanged', 'accountDeleted', 'registrationAttempt')`;
const NEW_KINDS = sql`kind in ('verification', 'passwordReset', 'emailVerified', 'passwordChanged', 'accountDeleted', 'registrationAttempt', 'emailChange', 'emailChangeRequested', 'emailChanged', 'emailChangeAttempt')`;

/** A random version 4 UUID in SQLite, as lower-case text, evaluated anew for every row. */
const SQLITE_UUID = sql`(lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||
  substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) ||
  substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))))`;

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // A volatile default is evaluated for every existing row: each session gets an id of its own.
    await db.schema
      .alterTable('sessions')
      .addColumn('id', 'varchar(255)', (col) => col.notNull().defaultTo(sql`gen_random_uuid()::text`))
      .execute();
    await db.schema
      .alterTable('sessions')
      .addColumn('authenticated_at', 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('sessions').addColumn('ip', 'varchar(255)').execute();
    await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
    await sql`update sessions set authenticated_at = created_at`.execute(db);

    await db.schema.alterTable('outbox').dropConstraint('outbox_kind_check').execute();
    await db.schema.alterTable('outbox').addCheckConstraint('outbox_kind_check', NEW_KINDS).execute();
  } else {
    await rebuildSqliteSessions(db);
    await rebuildSqliteOutbox(db, NEW_KINDS);
  }
  // A revoke names a session by its id; the user's sessions are listed through `sessions_user_id_index`.
  await db.schema.createIndex('sessions_id_unique').on('sessions').column('id').unique().execute();

  await db.schema
    .createTable('email_changes')
    .addColumn('token_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('new_email', 'varchar(255)', (col) => col.notNull())
    .addColumn('new_email_key', 'varchar(255)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('end_other_sessions', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('keep_session_id', 'varchar(255)')
    // One pending change per user: a new request replaces the old one.
    .addUniqueConstraint('email_changes_user_id_unique', ['user_id'])
    .execute();
  // The clean-up removes changes past their expiry.
  await db.schema.createIndex('email_changes_expires_at_index').on('email_changes').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('email_changes').execute();
  await db.schema.dropIndex('sessions_id_unique').execute();
  // Fails, as it should, while the outbox holds a message of a new kind.
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.alterTable('outbox').dropConstraint('outbox_kind_check').execute();
    await db.schema.alterTable('outbox').addCheckConstraint('outbox_kind_check', OLD_KINDS).execute();
  } else {
    await rebuildSqliteOutbox(db, OLD_KINDS);
  }
  for (const column of ['user_agent', 'ip', 'authenticated_at', 'id']) {
    await db.schema.alterTable('sessions').dropColumn(column).execute();
  }
}

async function setAside(db: Kysely<any>, table: string): Promise<void> {
  await sql`create temp table ${sql.id(`kept_${table}`)} as select * from ${sql.id(table)}`.execute(db);
  await db.schema.dropTable(table).execute();
}

async function dropSetAside(db: Kysely<any>, table: string): Promise<void> {
  await sql`drop table ${sql.id(`kept_${table}`)}`.execute(db);
}

async function rebuildSqliteSessions(db: Kysely<any>): Promise<void> {
  await setAside(db, 'sessions');
  // As 2026-11-22-initial made it, with the new columns at the end (where PostgreSQL's ALTER TABLE puts them).
  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
    .addColumn('id', 'varchar(255)', (col) => col.notNull().defaultTo(SQLITE_UUID))
    .addColumn('authenticated_at', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('ip', 'varchar(255)')
    .addColumn('user_agent', 'text')
    .execute();
  await sql`insert into sessions (token_hash, user_id, created_at, expires_at, last_seen_at, id, authenticated_at)
    select token_hash, user_id, created_at, expires_at, last_seen_at, ${SQLITE_UUID}, created_at
    from kept_sessions`.execute(db);
  await dropSetAside(db, 'sessions');
  // Its indexes went with it (2026-11-22-initial, 2026-11-23-expiry-indexes).
  await db.schema.createIndex('sessions_user_id_index').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires_at_index').on('sessions').column('expires_at').execute();
  await db.schema.createIndex('sessions_last_seen_at_index').on('sessions').column('last_seen_at').execute();
}

async function rebuildSqliteOutbox(db: Kysely<any>, kinds: ReturnType<typeof sql>): Promise<void> {
  await setAside(db, 'outbox');
  // As 2026-11-24-outbox made it, but for the kinds.
  await db.schema
    .createTable('outbox')
    .addColumn('id', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('kind', 'varchar(32)', (col) => col.notNull())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull())
    .addColumn('username', 'varchar(255)', (col) => col.notNull())
    .addColumn('email', 'varchar(255)', (col) => col.notNull())
    .addColumn('sealed_token', 'text')
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (col) => col.notNull())
    .addColumn('give_up_at', 'bigint', (col) => col.notNull())
    .addColumn('claim_id', 'varchar(255)')
    .addColumn('last_error', 'varchar(64)')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addColumn('sent_at', 'bigint')
    .addCheckConstraint('outbox_status_check', sql`status in ('pending', 'sent', 'failed')`)
    .addCheckConstraint('outbox_kind_check', kinds)
    .addCheckConstraint('outbox_sealed_token_check', sql`status = 'pending' or sealed_token is null`)
    .execute();
  await sql`insert into outbox select * from kept_outbox`.execute(db);
  await dropSetAside(db, 'outbox');
  await db.schema.createIndex('outbox_status_due_index').on('outbox').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('outbox_user_kind_index').on('outbox').columns(['user_id', 'kind']).execute();
  await db.schema.createIndex('outbox_updated_at_index').on('outbox').column('updated_at').execute();
}
