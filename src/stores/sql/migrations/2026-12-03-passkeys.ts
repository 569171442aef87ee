import { Kysely, sql } from 'kysely';

// Passkeys (WebAuthn, issue 39). Frozen once released, like every migration (it imports nothing from the app).
//
// - A passkey is a `credentials` row of kind `passkey`, its `secret` the credential public key (base64url). The new
//   columns are null for every other kind, so existing rows and an instance of the previous release (which names only
//   the old columns) are untouched: `identifier` is the WebAuthn credential id (base64url; authenticators may make
//   ids of up to 1023 bytes), `counter` the signature counter last accepted, `label` the name its owner gave it,
//   `details` what registration reported of it (JSON: user handle, transports, AAGUID, backup flags, user verified).
// - A credential id is unique across every account, per kind: the unique index, not a read before the insert, decides
//   between racing registrations of one authenticator (exactly one succeeds).
// - `passkey_challenges` holds each ceremony's challenge by its keyed hash, so that any instance can finish what
//   another started; one naming a user goes with it (the foreign key cascades), a passwordless sign-in's names none.
//   The clean-up removes them past their expiry.
//
// down() deletes the passkeys (the previous release knows no such kind) and drops what up() made.

export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite adds one at a time.
  await db.schema.alterTable('credentials').addColumn('identifier', 'varchar(1024)').execute();
  await db.schema.alterTable('credentials').addColumn('counter', 'bigint').execute();
  await db.schema.alterTable('credentials').addColumn('label', 'varchar(255)').execute();
  await db.schema.alterTable('credentials').addColumn('details', 'text').execute();
  await db.schema
    .createIndex('credentials_identifier_index')
    .on('credentials')
    .columns(['kind', 'identifier'])
    .unique()
    .where(sql.ref('identifier'), 'is not', null)
    .execute();

  await db.schema
    .createTable('passkey_challenges')
    .addColumn('challenge_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('ceremony', 'varchar(32)', (col) => col.notNull())
    .addColumn('user_id', 'varchar(255)', (col) => col.references('users.id').onDelete('cascade'))
    .addColumn('session_id', 'varchar(255)')
    .addColumn('login_challenge_hash', 'varchar(255)')
    .addColumn('user_handle', 'varchar(255)')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  // Deleting a user (its registry and the cascade) finds its challenges by user; the clean-up by expiry.
  await db.schema.createIndex('passkey_challenges_user_id_index').on('passkey_challenges').column('user_id').execute();
  await db.schema
    .createIndex('passkey_challenges_expires_at_index')
    .on('passkey_challenges')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('passkey_challenges').execute();
  await sql`delete from credentials where kind = 'passkey'`.execute(db);
  // SQLite drops a column in place only once no index names it.
  await db.schema.dropIndex('credentials_identifier_index').execute();
  for (const column of ['details', 'label', 'counter', 'identifier']) {
    await db.schema.alterTable('credentials').dropColumn(column).execute();
  }
}
