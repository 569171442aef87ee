import { Kysely, sql } from 'kysely';

// Sessions record how they were authenticated and the credential state they were issued under (issue 38). Frozen once
// released, like every migration (it imports nothing from the app).
//
// - `users.credential_epoch` is the state of the account's credentials: every change of a credential that ends the
//   account's sessions moves it on by one. `sessions.credential_epoch` is the state a session was issued under; the
//   session check accepts a session only while the two are equal. Every existing row starts at 0, so every live
//   session stays valid.
// - `sessions.amr` lists how the session was authenticated, as RFC 8176 `amr` values separated by single spaces (as
//   OAuth separates scopes): `pwd`, or `pwd otp mfa` for a password and a code. It is filled from `second_factor`,
//   which goes. SQLite adds a NOT NULL column only with a default: `pwd`, what a session without a second factor was.
// - `login_challenges.credential_epoch` binds a challenge to the credential state its password was checked in, in
//   place of `password_binding` (a keyed hash of the password hash). A waiting challenge stays valid (epoch 0).
//
// down() restores `second_factor` from `amr` (set when it holds `mfa`) and drops the new columns. First it deletes
// what the new columns had already ended (sessions of an earlier epoch than their user's), so that nothing ended
// comes back. A challenge's password binding needs the secret key, which a migration does not have: down() drops the
// waiting challenges (a person half-way through a sign-in signs in again) and makes the table as
// 2026-11-27-second-factor made it.

export async function up(db: Kysely<any>): Promise<void> {
  const epoch = (table: string) =>
    db.schema
      .alterTable(table)
      .addColumn('credential_epoch', 'integer', (col) => col.notNull().defaultTo(0))
      .execute();
  await epoch('users');
  await epoch('sessions');
  await db.schema
    .alterTable('sessions')
    .addColumn('amr', 'text', (col) => col.notNull().defaultTo('pwd'))
    .execute();
  await db.updateTable('sessions').set({ amr: 'pwd otp mfa' }).where('second_factor', '=', 1).execute();
  await db.schema.alterTable('sessions').dropColumn('second_factor').execute();
  await epoch('login_challenges');
  await db.schema.alterTable('login_challenges').dropColumn('password_binding').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where(({ selectFrom, exists, not }) =>
      not(
        exists(
          selectFrom('users as u')
            .select('u.id')
            .whereRef('u.id', '=', 'sessions.user_id')
            .whereRef('u.credential_epoch', '=', 'sessions.credential_epoch'),
        ),
      ),
    )
    .execute();
  await db.schema
    .alterTable('sessions')
    .addColumn('second_factor', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db
    .updateTable('sessions')
    .set({ second_factor: 1 })
    .where(sql<boolean>`' ' || amr || ' ' like '% mfa %'`)
    .execute();
  await db.schema.alterTable('sessions').dropColumn('amr').execute();
  await db.schema.alterTable('sessions').dropColumn('credential_epoch').execute();
  await db.schema.alterTable('users').dropColumn('credential_epoch').execute();

  await db.schema.dropTable('login_challenges').execute();
  // As 2026-11-27-second-factor made it.
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
  await db.schema.createIndex('login_challenges_user_id_index').on('login_challenges').column('user_id').execute();
  await db.schema
    .createIndex('login_challenges_expires_at_index')
    .on('login_challenges')
    .column('expires_at')
    .execute();
}
