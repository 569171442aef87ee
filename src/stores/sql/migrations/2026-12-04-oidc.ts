import { Kysely, sql } from 'kysely';

// Sign-in with OpenID providers (issue 40). Frozen once released, like every migration (it imports nothing from the
// app).
//
// - An identity is a `credentials` row of kind `oidc`: `identifier` is `${issuer} ${subject}` (an issuer is a URL, so
//   it has no space: the first space splits them), `label` the provider's id, `details` JSON `{ email }`, `secret`
//   ''. The unique index on (kind, identifier) that 2026-12-03-passkeys made covers every kind whose identifier is
//   set, so it already makes an identity unique across accounts: no index here.
// - `oidc_flows` holds each started flow by the keyed hash of its state, so that any instance can take the
//   callback; `oidc_handoffs` each callback's decision by the keyed hash of the one-time code it handed back. A
//   link's flow, and a handoff naming an account, go with the account (the foreign keys cascade); a sign-in's flow
//   names none. The clean-up removes both past their expiry.
// - `login_challenges.first_factor` says what the first step proved (`pwd`, or `fed` for a provider), so that the
//   session a second factor completes records it. Existing challenges were all a password's: the default.
//
// down() deletes the identities (the previous release knows no such kind; an account that had nothing else signs in
// again by a password reset) and the login challenges a provider's sign-in gave (the previous release would complete
// them as a password's), and drops what up() made.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_flows')
    .addColumn('state_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('provider', 'varchar(64)', (col) => col.notNull())
    .addColumn('browser_hash', 'varchar(255)', (col) => col.notNull())
    .addColumn('sealed', 'text', (col) => col.notNull())
    .addColumn('intent', 'varchar(16)', (col) => col.notNull())
    .addColumn('user_id', 'varchar(255)', (col) => col.references('users.id').onDelete('cascade'))
    .addColumn('session_id', 'varchar(255)')
    .addColumn('return_to', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  // Deleting a user (its registry and the cascade) finds its rows by user; the clean-up by expiry.
  await db.schema.createIndex('oidc_flows_user_id_index').on('oidc_flows').column('user_id').execute();
  await db.schema.createIndex('oidc_flows_expires_at_index').on('oidc_flows').column('expires_at').execute();

  await db.schema
    .createTable('oidc_handoffs')
    .addColumn('code_hash', 'varchar(255)', (col) => col.primaryKey())
    .addColumn('outcome', 'varchar(32)', (col) => col.notNull())
    .addColumn('user_id', 'varchar(255)', (col) => col.references('users.id').onDelete('cascade'))
    .addColumn('identity_id', 'varchar(255)')
    .addColumn('methods', 'text', (col) => col.notNull())
    .addColumn('skip_second_factor', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('ip', 'varchar(255)')
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('oidc_handoffs_user_id_index').on('oidc_handoffs').column('user_id').execute();
  await db.schema.createIndex('oidc_handoffs_expires_at_index').on('oidc_handoffs').column('expires_at').execute();

  await db.schema
    .alterTable('login_challenges')
    .addColumn('first_factor', 'varchar(16)', (col) => col.notNull().defaultTo('pwd'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from login_challenges where first_factor <> 'pwd'`.execute(db);
  await db.schema.alterTable('login_challenges').dropColumn('first_factor').execute();
  await db.schema.dropTable('oidc_handoffs').execute();
  await db.schema.dropTable('oidc_flows').execute();
  await sql`delete from credentials where kind = 'oidc'`.execute(db);
}
