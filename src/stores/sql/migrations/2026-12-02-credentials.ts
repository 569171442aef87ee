import { Kysely, PostgresAdapter, sql } from 'kysely';

// An account has credentials of typed kinds, one row each, in place of a password column (issue 38). Frozen once
// released, like every migration (it imports nothing from the app).
//
// - `credentials.kind` is checked in code (CREDENTIAL_KINDS), not by a CHECK constraint: a new kind (passkeys,
//   provider identities) needs no table rebuild. `secret` is what proves the credential: the argon2 hash of a password,
//   the sealed TOTP secret, the keyed hash of a recovery code. `enabled` is 0 for a TOTP factor waiting for its first
//   code (1 for every other kind); `enabled_at` and `last_used_step` are the factor's, as `second_factors` had them.
// - At most one password and one TOTP factor per user (partial unique indexes); a recovery code's hash is unique, as
//   it was the primary key of `recovery_codes`.
// - up() copies `users.password_hash`, `second_factors` and `recovery_codes` into it and drops them. Nothing indexes
//   `password_hash`, so SQLite drops it in place (3.35+) and no table is rebuilt: `users` keeps its dependents.
//
// down() puts them back. An account without a password credential (possible from this release on) gets a well-formed
// argon2 hash of random bytes: no password verifies against it, which is how the new code answers for such an account.
// On SQLite the restored NOT NULL column carries that hash as its default (SQLite adds a NOT NULL column only with
// one); otherwise the old shape comes back exactly. Credentials of a kind the old release does not know are dropped.

/** A valid argon2id encoding whose hash is random bytes: nothing is known that verifies against it. */
const NEVER_VERIFIES =
  '$argon2id$v=19$m=19456,t=2,p=1$beJr0JpyEQ+Y0AAO/RqGSw$kyIDPvdtK5pP8xD+5stRyYqIuxUsRw3yoW9cd3N5xA8';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('credentials')
    .addColumn('id', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(255)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(32)', (col) => col.notNull())
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('enabled', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('enabled_at', 'bigint')
    .addColumn('last_used_step', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  // A user's credentials of a kind are read, counted and replaced together.
  await db.schema.createIndex('credentials_user_kind_index').on('credentials').columns(['user_id', 'kind']).execute();
  await db.schema
    .createIndex('credentials_one_per_user_index')
    .on('credentials')
    .columns(['user_id', 'kind'])
    .unique()
    .where(sql.ref('kind'), 'in', ['password', 'totp'])
    .execute();
  await db.schema
    .createIndex('credentials_recovery_code_index')
    .on('credentials')
    .column('secret')
    .unique()
    .where(sql.ref('kind'), '=', 'recovery_code')
    .execute();

  const newId = randomIdSql(db);
  await sql`insert into credentials (id, user_id, kind, secret, enabled, created_at)
    select ${newId}, id, 'password', password_hash, 1, created_at from users`.execute(db);
  await sql`insert into credentials (id, user_id, kind, secret, enabled, enabled_at, last_used_step, created_at)
    select ${newId}, user_id, 'totp', sealed_secret, enabled, enabled_at, last_used_step, created_at
    from second_factors`.execute(db);
  await sql`insert into credentials (id, user_id, kind, secret, enabled, created_at)
    select ${newId}, user_id, 'recovery_code', code_hash, 1, created_at from recovery_codes`.execute(db);

  await db.schema.dropTable('recovery_codes').execute();
  await db.schema.dropTable('second_factors').execute();
  await db.schema.alterTable('users').dropColumn('password_hash').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .alterTable('users')
    .addColumn('password_hash', 'text', (col) => (postgres ? col : col.notNull().defaultTo(NEVER_VERIFIES)))
    .execute();
  await sql`update users set password_hash = coalesce(
    (select c.secret from credentials c where c.user_id = users.id and c.kind = 'password'),
    ${NEVER_VERIFIES})`.execute(db);
  if (postgres)
    await db.schema
      .alterTable('users')
      .alterColumn('password_hash', (col) => col.setNotNull())
      .execute();

  // As 2026-11-27-second-factor made them.
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
  await db.schema.createIndex('recovery_codes_user_id_index').on('recovery_codes').column('user_id').execute();

  await sql`insert into second_factors (user_id, sealed_secret, enabled, created_at, enabled_at, last_used_step)
    select user_id, secret, enabled, created_at, enabled_at, last_used_step from credentials
    where kind = 'totp'`.execute(db);
  await sql`insert into recovery_codes (code_hash, user_id, created_at)
    select secret, user_id, created_at from credentials where kind = 'recovery_code'`.execute(db);
  await db.schema.dropTable('credentials').execute();
}

/** A fresh random id per row, in the database's own SQL. */
function randomIdSql(db: Kysely<any>) {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql`gen_random_uuid()::text`
    : sql`lower(hex(randomblob(16)))`;
}
