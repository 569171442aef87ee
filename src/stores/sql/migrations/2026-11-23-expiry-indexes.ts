import { Kysely } from 'kysely';

// Indexes for removing expired sessions and tokens (`deleteExpired`, run periodically and by `gatehouse cleanup`), so
// that each batch is found by an index range instead of a scan of every session. Frozen once released, like every
// migration.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('sessions_expires_at_index').on('sessions').column('expires_at').execute();
  await db.schema.createIndex('sessions_last_seen_at_index').on('sessions').column('last_seen_at').execute();
  await db.schema.createIndex('tokens_expires_at_index').on('tokens').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['tokens_expires_at_index', 'sessions_last_seen_at_index', 'sessions_expires_at_index']) {
    await db.schema.dropIndex(index).execute();
  }
}
