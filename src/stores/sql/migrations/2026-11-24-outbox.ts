import { Kysely, sql } from 'kysely';

// The outbox: email decided by an account change, inserted in the same transaction, delivered later by a worker.
// Frozen once released, like every migration (it imports nothing from the app).
//
// - No foreign key to users: the account-deleted notice must outlive its user, so the recipient is a copy.
// - `sealed_token` is the raw token of a link message encrypted with a key derived from the secret key; the CHECK
//   makes the database itself refuse to keep it on a message that is no longer pending.
// - `next_attempt_at` doubles as the claim's lease: a claimed message is not due until its lease runs out.

export async function up(db: Kysely<any>): Promise<void> {
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
    .addCheckConstraint(
      'outbox_kind_check',
      sql`kind in ('verification', 'passwordReset', 'emailVerified', 'passwordChanged', 'accountDeleted', 'registrationAttempt')`,
    )
    .addCheckConstraint('outbox_sealed_token_check', sql`status = 'pending' or sealed_token is null`)
    .execute();
  // Claims: the due pending messages, oldest due first.
  await db.schema.createIndex('outbox_status_due_index').on('outbox').columns(['status', 'next_attempt_at']).execute();
  // A new link supersedes the pending ones of the same kind to the same user.
  await db.schema.createIndex('outbox_user_kind_index').on('outbox').columns(['user_id', 'kind']).execute();
  // Retention: sent and failed messages are removed some days after their last change.
  await db.schema.createIndex('outbox_updated_at_index').on('outbox').column('updated_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('outbox').execute();
}
