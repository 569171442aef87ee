import { Kysely, PostgresAdapter, sql } from 'kysely';

// Two-factor sign-in: an authenticator-app factor per user, its recovery codes, and the short-lived challenge a right
// password gives an account that has one. Frozen once released, like every migration (it imports nothing from the
// app).
//
// - `second_factors` holds one factor per user, enabled or waiting for its first code; the secret is stored sealed
//   (the database never sees it in the clear). `last_used_step` is the time step of the last accepted code: a code of
//   that step or an earlier one is refused, so a code cannot be replayed.
// - `recovery_codes` holds only keyed hashes, one row each; using one deletes its row.
// - `login_challenges` holds the keyed hash of each challenge's token, like every other token; the clean-up removes
//   them past their expiry.
// - All three go with their user (foreign keys cascade).
// - `sessions.second_factor` says whether a session was made with a second factor. It has a default so that every
//   existing session stays valid (as made without one), and an instance of the previous release, still running while
//   this one migrates, can go on creating sessions (it names only the old columns).
// - The outbox may now carry the four notices of the second factor.
//
// SQLite can add a column with a constant default in place; it cannot change a CHECK constraint, so it rebuilds
// `outbox`, keeping its rows and indexes (it has no dependents). PostgreSQL changes both tables in place.

const OLD_KINDS = sql`kind in ('verification', 'passwordReset', 'emailVerified', 'passwordChanged', 'accountDeleted', 'registrationAttempt', 'emailChange', 'emailChangeRequested', 'emailChanged', 'emailChangeAttempt')`;
const NEW_KINDS = sql`kind in ('verification', 'passwordReset', 'emailVerified', 'passwordChanged', 'accountDeleted', 'registrationAttempt', 'emailChange', 'emailChangeRequested', 'emailChanged', 'emailChangeAttempt', 'secondFactorEnabled', 'secondFactorDisabled', 'recoveryCodesRegenerated', 'recoveryCodeUsed')`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .addColumn('second_factor', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await changeOutboxKinds(db, NEW_KINDS);

  await db.schema
    .createTable('second_factors')
    .addColumn('user_id', 'varchar(255)', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('sealed_secret', 'text', (col) => col.notNull())
    .addColumn('enabled', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('enabled_at', 'bigint')
    .addColumn('last_used_step', 'bigint')
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('code_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  // A user's codes are counted, replaced and deleted together.
  await db.schema.createIndex('recovery_codes_user_id_index').on('recovery_codes').column('user_id').execute();

  await db.schema
    .createTable('login_challenges')
    .addColumn('token_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('password_binding', 'varchar(255)', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('ip', 'varchar(255)')
    .addColumn('user_agent', 'text')
    .execute();
  // A password change, a reset or switching the factor off ends the user's challenges; the clean-up removes the
  // expired ones.
  await db.schema.createIndex('login_challenges_user_id_index').on('login_challenges').column('user_id').execute();
  await db.schema
    .createIndex('login_challenges_expires_at_index')
    .on('login_challenges')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('login_challenges').execute();
  await db.schema.dropTable('recovery_codes').execute();
  await db.schema.dropTable('second_factors').execute();
  // Fails, as it should, while the outbox holds a message of a new kind.
  await changeOutboxKinds(db, OLD_KINDS);
  await db.schema.alterTable('sessions').dropColumn('second_factor').execute();
}

async function changeOutboxKinds(db: Kysely<any>, kinds: ReturnType<typeof sql>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.alterTable('outbox').dropConstraint('outbox_kind_check').execute();
    await db.schema.alterTable('outbox').addCheckConstraint('outbox_kind_check', kinds).execute();
  } else {
    await rebuildSqliteOutbox(db, kinds);
  }
}

async function rebuildSqliteOutbox(db: Kysely<any>, kinds: ReturnType<typeof sql>): Promise<void> {
  await sql`create temp table kept_outbox as select * from outbox`.execute(db);
  await db.schema.dropTable('outbox').execute();
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
  await sql`drop table kept_outbox`.execute(db);
  // Its indexes went with it (2026-11-24-outbox).
  await db.schema.createIndex('outbox_status_due_index').on('outbox').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('outbox_user_kind_index').on('outbox').columns(['user_id', 'kind']).execute();
  await db.schema.createIndex('outbox_updated_at_index').on('outbox').column('updated_at').execute();
}
