import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { migrations } from '../../src/stores/sql/migrate';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import type { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import { createTestDatabase } from '../support/postgres-database';
import { describeWithService } from '../support/services';
import { openSqlite } from '../../src/stores/sql/sqlite-statement-cache';
import { rowsInShapeBeforeCredentials } from './migration-steps';

/** The schema as the release before address claims left it. */
const BEFORE = ['2026-11-22-initial', '2026-11-23-expiry-indexes', '2026-11-24-outbox'];
const T = Date.UTC(2030, 0, 1);

/** Rows of every kind, written as the previous release would have: a verified and an unverified user, and what hangs off them. */
async function seedPreviousRelease(db: Kysely<any>): Promise<void> {
  const user = (id: string, verified: number) => ({
    id,
    username: id,
    username_key: id,
    email: `${id}@example.com`,
    email_key: `${id}@example.com`,
    password_hash: `$argon2id$fake$${id}`,
    verified,
    created_at: T,
    updated_at: T + 1,
  });
  await db
    .insertInto('users')
    .values([user('alice', 1), user('vera', 0)])
    .execute();
  await db
    .insertInto('sessions')
    .values({ token_hash: 's1', user_id: 'alice', created_at: T, expires_at: T + 9e9, last_seen_at: T })
    .execute();
  await db
    .insertInto('tokens')
    .values([
      { token_hash: 't1', user_id: 'vera', purpose: 'verify_email', expires_at: T + 9e9 },
      { token_hash: 't2', user_id: 'alice', purpose: 'reset_password', expires_at: T + 9e9 },
    ])
    .execute();
  await db.insertInto('roles').values({ name: 'admin' }).execute();
  await db.insertInto('user_roles').values({ user_id: 'alice', role: 'admin' }).execute();
}

const TABLES = ['users', 'sessions', 'tokens', 'user_roles', 'roles'] as const;

async function snapshot(db: Kysely<any>): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    const rows = await rowsInShapeBeforeCredentials(db, table);
    // Instants come back as numbers (SQLite) or strings (PostgreSQL int8): compared as numbers.
    out[table] = rows
      .map((row) =>
        Object.fromEntries(Object.entries(row).map(([key, value]) => [key, /_at$/.test(key) ? Number(value) : value])),
      )
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

/** `after` with only the columns each table had in `before`. */
function keepColumnsOf(after: Record<string, unknown[]>, before: Record<string, unknown[]>): Record<string, unknown[]> {
  return Object.fromEntries(
    Object.entries(after).map(([table, rows]) => {
      const columns = Object.keys((before[table]?.[0] as object | undefined) ?? {});
      return [
        table,
        rows.map((row) =>
          Object.fromEntries(Object.entries(row as object).filter(([column]) => columns.includes(column))),
        ),
      ];
    }),
  );
}

async function migrateToPreviousRelease(db: Kysely<any>): Promise<void> {
  const provider = { getMigrations: async () => Object.fromEntries(BEFORE.map((name) => [name, migrations[name]])) };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error;
}

/** What the upgrade must keep and what it must now allow and refuse, on a store opened over the upgraded schema. */
async function checkUpgraded(store: SqlUserStore, before: Record<string, unknown[]>): Promise<void> {
  // Later migrations add columns (sessions gained four in 2026-11-26); the columns this release knew are compared.
  assert.deepEqual(keepColumnsOf(await snapshot(store.db), before), before, 'every row kept as it was');
  assert.equal((await store.users.findVerifiedByEmailKey('alice@example.com'))?.id, 'alice');
  assert.deepEqual(
    (await store.users.findUnverifiedByEmailKey('vera@example.com', new Date(0), 5)).map((u) => u.id),
    ['vera'],
  );
  assert.ok(await store.sessions.findWithUser('s1'), 'sessions still join their users');
  assert.deepEqual(await store.access.listUserRoles('alice'), ['admin']);

  // A second registration of alice's owned address is stored (and can never be verified); vera's claim can still be
  // confirmed with the token issued before the upgrade.
  const claim = await store.transaction((tx) =>
    tx.users.create(
      {
        id: 'mallory',
        username: 'mallory',
        usernameKey: 'mallory',
        email: 'alice@example.com',
        emailKey: 'alice@example.com',
        passwordHash: 'x',
        createdAt: new Date(T),
      },
      { tokenHash: 't3', userId: 'mallory', purpose: 'verify_email', expiresAt: new Date(T + 9e9) },
    ),
  );
  assert.ok(claim.ok && claim.owner !== null);
  assert.equal(await store.transaction((tx) => tx.users.confirmAddress('t3', new Date(T))), null);
  assert.equal((await store.transaction((tx) => tx.users.confirmAddress('t1', new Date(T))))?.id, 'vera');
  // The database itself refuses a second verified owner and a taken username; foreign keys still cascade.
  await assert.rejects(store.db.updateTable('users').set({ verified: 1 }).where('id', '=', 'mallory').execute());
  const untyped = store.db as unknown as Kysely<any>;
  await assert.rejects(
    untyped
      .insertInto('users')
      .values({ ...(await rawUser(store, 'vera')), id: 'other' })
      .execute(),
  );
  await store.db.deleteFrom('users').where('id', '=', 'alice').execute();
  assert.equal(await store.sessions.findWithUser('s1'), null);
  assert.deepEqual(await store.db.selectFrom('user_roles').selectAll().execute(), []);
}

async function rawUser(store: SqlUserStore, id: string) {
  return store.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('migration 2026-11-25-address-claims (SQLite)', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-claims-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('keeps every existing account, session, token and grant, and rebuilds users with its dependents', async () => {
    const filename = join(folder, 'gatehouse.db');
    // Through openSqlite: a statement left to the garbage collector aborts Node 24 (see sqlite-statement-cache).
    const database = openSqlite(filename);
    database.exec('PRAGMA foreign_keys = ON');
    const previous = new Kysely<any>({ dialect: new SqliteDialect({ database }) });
    await migrateToPreviousRelease(previous);
    await seedPreviousRelease(previous);
    const before = await snapshot(previous);
    await previous.destroy();

    const store = await SqliteUserStore.open({ filename });
    try {
      const indexes = await sql<{
        name: string;
      }>`select name from sqlite_master where type = 'index' and name not like 'sqlite_%' order by name`.execute(
        store.db,
      );
      assert.deepEqual(
        indexes.rows.map((row) => row.name),
        [
          // API keys and service accounts since 2026-12-06-api-keys.
          'api_keys_created_by_index',
          'api_keys_expires_at_index',
          'audit_events_actor_index',
          'audit_events_at_id_index',
          'audit_events_subject_index',
          'audit_events_type_index',
          // Passkeys' credential ids since 2026-12-03-passkeys.
          'credentials_identifier_index',
          'credentials_one_per_user_index',
          'credentials_recovery_code_index',
          'credentials_user_kind_index',
          'email_changes_expires_at_index',
          'login_challenges_expires_at_index',
          'login_challenges_user_id_index',
          // Provider sign-in's flows and handoffs since 2026-12-04-oidc.
          'oidc_flows_expires_at_index',
          'oidc_flows_user_id_index',
          'oidc_handoffs_expires_at_index',
          'oidc_handoffs_user_id_index',
          // Organizations, their members and invitations since 2026-12-05-organizations.
          'organization_invitations_expires_at_index',
          'organization_invitations_invited_by_index',
          'organization_members_user_id_index',
          'organizations_created_by_index',
          'outbox_status_due_index',
          'outbox_updated_at_index',
          'outbox_user_kind_index',
          'passkey_challenges_expires_at_index',
          'passkey_challenges_user_id_index',
          'role_permissions_permission_index',
          'service_accounts_created_by_index',
          'sessions_expires_at_index',
          'sessions_id_unique',
          'sessions_last_seen_at_index',
          'sessions_user_id_index',
          'tokens_expires_at_index',
          'tokens_user_id_purpose_index',
          'user_roles_role_index',
          'users_created_at_id_index',
          'users_email_key_index',
          'users_unverified_created_at_index',
          'users_verified_email_key_unique',
        ],
      );
      const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_temp_master`.execute(store.db);
      assert.deepEqual(rows, [{ n: 0 }], 'no temporary table left behind');
      await checkUpgraded(store, before);
    } finally {
      await store.close();
    }
  });
});

describeWithService('postgres', 'migration 2026-11-25-address-claims (PostgreSQL)', function () {
  this.timeout(30_000);
  it('keeps every existing account, session, token and grant, and drops only the address constraint', async () => {
    const database = await createTestDatabase('claims_migration');
    try {
      const previous = new Kysely<any>({
        dialect: new PostgresDialect({ pool: new Pool({ connectionString: database.url }) }),
      });
      await migrateToPreviousRelease(previous);
      await seedPreviousRelease(previous);
      const before = await snapshot(previous);
      await previous.destroy();

      const store = await PostgresUserStore.open({ connectionString: database.url });
      try {
        await checkUpgraded(store, before);
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });
});
