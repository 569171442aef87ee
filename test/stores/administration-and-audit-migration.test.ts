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

const THIS = '2026-11-28-administration-and-audit';
/** The schema as the release before this migration left it. */
const BEFORE = Object.keys(migrations).slice(0, Object.keys(migrations).indexOf(THIS));
const T = Date.UTC(2030, 0, 1);

/** Two users, one signed in, written as the previous release would (naming only the columns it knows). */
async function seedPreviousRelease(db: Kysely<any>): Promise<void> {
  const user = (id: string, created: number) => ({
    id,
    username: id,
    username_key: id,
    email: `${id}@example.com`,
    email_key: `${id}@example.com`,
    password_hash: `$argon2id$fake$${id}`,
    verified: 1,
    created_at: created,
    updated_at: created,
  });
  await db
    .insertInto('users')
    .values([user('alice', T), user('bob', T + 1)])
    .execute();
  await db
    .insertInto('sessions')
    .values({
      token_hash: 's1',
      user_id: 'alice',
      created_at: T,
      expires_at: T + 9e9,
      last_seen_at: T,
      id: 'id-of-s1',
      authenticated_at: T,
      ip: null,
      user_agent: null,
    })
    .execute();
}

async function migrateTo(db: Kysely<any>, names: string[]): Promise<void> {
  const provider = { getMigrations: async () => Object.fromEntries(names.map((name) => [name, migrations[name]])) };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error;
}

async function migrateDown(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo(BEFORE[BEFORE.length - 1]);
  if (error) throw error;
}

/** What the upgrade must keep and now allow, on a store opened over the upgraded schema. */
async function checkUpgraded(store: SqlUserStore): Promise<void> {
  // Existing users are enabled and never signed in as far as the new columns know; their sessions still validate.
  const alice = await store.users.findById('alice');
  assert.equal(alice?.disabledAt, null);
  assert.equal((await store.sessions.findWithUser('s1'))?.user.id, 'alice');
  assert.equal((await store.admin.userDetails('alice', new Date(T), new Date(T - 1)))?.lastSignInAt, null);
  assert.deepEqual(
    (await store.admin.listUsers({ limit: 10 })).map((user) => user.id),
    ['bob', 'alice'],
  );

  // An instance of the previous release, still running, inserts users naming only the old columns (the password is
  // a credential of its own since 2026-12-02-credentials).
  await sql`insert into users (id, username, username_key, email, email_key, verified, created_at,
    updated_at) values ('carol', 'carol', 'carol', 'c@example.com', 'c@example.com', 0, ${T}, ${T})`.execute(store.db);
  assert.equal((await store.users.findById('carol'))?.disabledAt, null);

  // The new columns and the trail work through the store.
  assert.equal(await store.transaction((tx) => tx.users.disable('alice', new Date(T + 5))), 'ok');
  assert.equal(await store.sessions.findWithUser('s1'), null);
  const event = {
    id: 'e1',
    at: new Date(T),
    type: 'login' as const,
    outcome: 'success',
    actorType: 'user' as const,
    actorId: 'bob',
    subjectId: 'bob',
    ip: null,
    requestId: null,
    details: { method: 'password' },
  };
  await store.transaction((tx) => tx.audit.add(event));
  assert.deepEqual(await store.audit.list({ limit: 10 }), [event]);

  // Append-only: an UPDATE is refused by the database itself, a DELETE (the clean-up) is not.
  await assert.rejects(
    store.db.updateTable('audit_events').set({ outcome: 'forged' }).where('id', '=', 'e1').execute(),
    /append-only/,
  );
  await assert.rejects(
    sql`insert into audit_events (id, at, type, outcome, actor_type) values
    ('e2', 0, 'login', 'success', 'somebody')`.execute(store.db),
  );
  assert.equal(
    await store.deleteExpired({ now: new Date(T), sessionIdleBefore: new Date(0), auditBefore: new Date(T) }),
    1,
  );
}

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-admin-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  function previousRelease(filename: string): Kysely<any> {
    // Through openSqlite: a statement left to the garbage collector aborts Node 24 (see sqlite-statement-cache).
    const database = openSqlite(filename);
    database.exec('PRAGMA foreign_keys = ON');
    return new Kysely<any>({ dialect: new SqliteDialect({ database }) });
  }

  it('keeps every user enabled and every session valid, and adds the append-only trail with its indexes', async () => {
    const filename = join(folder, 'gatehouse.db');
    const previous = previousRelease(filename);
    await migrateTo(previous, BEFORE);
    await seedPreviousRelease(previous);
    await previous.destroy();

    const store = await SqliteUserStore.open({ filename });
    try {
      const indexes = await sql<{ name: string }>`select name from sqlite_master
        where type = 'index' and tbl_name in ('audit_events', 'users') and name not like 'sqlite_%'
        order by name`.execute(store.db);
      assert.deepEqual(
        indexes.rows.map((row) => row.name),
        [
          'audit_events_actor_index',
          'audit_events_at_id_index',
          'audit_events_subject_index',
          'audit_events_type_index',
          'users_created_at_id_index',
          'users_email_key_index',
          'users_unverified_created_at_index',
          'users_verified_email_key_unique',
        ],
      );
      const plan = await sql<{ detail: string }>`explain query plan
        select id from users order by created_at desc, id desc limit 10`.execute(store.db);
      assert.match(plan.rows.map((row) => row.detail).join('\n'), /users_created_at_id_index/);
      await checkUpgraded(store);
    } finally {
      await store.close();
    }
  });

  it('goes down again to the previous schema, keeping users and sessions', async () => {
    const db = previousRelease(join(folder, 'gatehouse.db'));
    try {
      await migrateTo(db, BEFORE);
      await seedPreviousRelease(db);
      const before = await db.selectFrom('users').selectAll().orderBy('id').execute();
      await migrateTo(db, [...BEFORE, THIS]);
      await migrateDown(db);
      assert.deepEqual(await db.selectFrom('users').selectAll().orderBy('id').execute(), before);
      const { rows } = await sql`select name from sqlite_master where name = 'audit_events'`.execute(db);
      assert.deepEqual(rows, []);
    } finally {
      await db.destroy();
    }
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it('keeps every user enabled and every session valid, adds the append-only trail, and goes down again', async () => {
    const database = await createTestDatabase('admin_migration');
    try {
      const previous = new Kysely<any>({
        dialect: new PostgresDialect({ pool: new Pool({ connectionString: database.url }) }),
      });
      await migrateTo(previous, BEFORE);
      await seedPreviousRelease(previous);
      await previous.destroy();

      const store = await PostgresUserStore.open({ connectionString: database.url });
      try {
        await checkUpgraded(store);
      } finally {
        await store.close();
      }
      const db = new Kysely<any>({
        dialect: new PostgresDialect({ pool: new Pool({ connectionString: database.url }) }),
      });
      try {
        await migrateDown(db);
        const { rows } = await sql<{ column_name: string }>`select column_name from information_schema.columns
          where table_name = 'users' and column_name in ('disabled_at', 'last_sign_in_at')`.execute(db);
        assert.deepEqual(rows, []);
        const tables = await sql`select table_name from information_schema.tables
          where table_name = 'audit_events'`.execute(db);
        assert.deepEqual(tables.rows, []);
        const functions = await sql`select proname from pg_proc where proname = 'audit_events_refuse_update'`.execute(
          db,
        );
        assert.deepEqual(functions.rows, []);
      } finally {
        await db.destroy();
      }
    } finally {
      await database.drop();
    }
  });
});
