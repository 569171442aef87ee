import { Kysely, PostgresAdapter, sql } from 'kysely';

// Message kinds are checked in code, not by the database. Frozen once released, like every migration (it imports
// nothing from the app).
//
// - `outbox.kind` loses its CHECK constraint (`outbox_kind_check`), so a new kind of message needs no table rebuild:
//   the stores refuse a kind the release does not know where they write one, and the delivery worker fails a message
//   of an unknown kind (a row written by a later release) with a clear error instead of stopping.
// - `audit_events.type` never had one (2026-11-28-administration-and-audit): nothing to do there.
//
// SQLite cannot drop a CHECK constraint, so it rebuilds `outbox` one last time, keeping its rows and indexes (it has no
// dependents). PostgreSQL drops the constraint in place. `down()` puts the constraint back as 2026-11-27-second-factor
// left it, and refuses, changing nothing, while the outbox holds a message of a kind it does not name.

/** The kinds 2026-11-27-second-factor allowed: what `down()` constrains the column to again. */
const KINDS = [
  'verification',
  'passwordReset',
  'emailVerified',
  'passwordChanged',
  'accountDeleted',
  'registrationAttempt',
  'emailChange',
  'emailChangeRequested',
  'emailChanged',
  'emailChangeAttempt',
  'secondFactorEnabled',
  'secondFactorDisabled',
  'recoveryCodesRegenerated',
  'recoveryCodeUsed',
];
// Literals, not parameters: a CHECK constraint cannot take parameters.
const KINDS_CHECK = sql`kind in (${sql.join(KINDS.map((kind) => sql.lit(kind)))})`;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await db.schema.alterTable('outbox').dropConstraint('outbox_kind_check').execute();
  } else {
    await rebuildSqliteOutbox(db, null);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  // Checked first, so that the refusal touches nothing even where the migration runs outside a transaction.
  const unknown = await db.selectFrom('outbox').select('id').where('kind', 'not in', KINDS).limit(1).execute();
  if (unknown.length > 0) {
    throw new Error('the outbox holds messages of kinds the previous release does not know: delete them first');
  }
  if (isPostgres(db)) {
    await db.schema.alterTable('outbox').addCheckConstraint('outbox_kind_check', KINDS_CHECK).execute();
  } else {
    await rebuildSqliteOutbox(db, KINDS_CHECK);
  }
}

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Rebuilds `outbox` with its rows and indexes, with the kinds constrained to `kinds`, or not at all (null). */
async function rebuildSqliteOutbox(db: Kysely<any>, kinds: ReturnType<typeof sql> | null): Promise<void> {
  await sql`create temp table kept_outbox as select * from outbox`.execute(db);
  await db.schema.dropTable('outbox').execute();
  // As 2026-11-27-second-factor made it, but for the kinds.
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
    .$call((table) => (kinds === null ? table : table.addCheckConstraint('outbox_kind_check', kinds)))
    .addCheckConstraint('outbox_sealed_token_check', sql`status = 'pending' or sealed_token is null`)
    .execute();
  await sql`insert into outbox select * from kept_outbox`.execute(db);
  await sql`drop table kept_outbox`.execute(db);
  // Its indexes went with it (2026-11-24-outbox).
  await db.schema.createIndex('outbox_status_due_index').on('outbox').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('outbox_user_kind_index').on('outbox').columns(['user_id', 'kind']).execute();
  await db.schema.createIndex('outbox_updated_at_index').on('outbox').column('updated_at').execute();
}
