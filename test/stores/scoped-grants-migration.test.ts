import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import type { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import { createTestDatabase } from '../support/postgres-database';
import { describeWithService } from '../support/services';
import {
  migrateDownTo,
  migrateTo,
  migrationsBefore,
  postgresAsPreviousRelease,
  sqliteAsPreviousRelease,
} from './migration-steps';

const THIS = '2026-11-29-scoped-grants';
/** The schema as the release before this migration left it. */
const BEFORE = migrationsBefore(THIS);
const migrateDown = (db: Kysely<any>) => migrateDownTo(db, BEFORE[BEFORE.length - 1]);
const T = Date.UTC(2030, 0, 1);

/**
 * Three users (carol disabled), two signed in, roles with a permission and grants, written as the previous release
 * would (naming only the columns it knows).
 */
async function seedPreviousRelease(db: Kysely<any>): Promise<void> {
  const user = (id: string, disabled: boolean) => ({
    id,
    username: id,
    username_key: id,
    email: `${id}@example.com`,
    email_key: `${id}@example.com`,
    password_hash: `$argon2id$fake$${id}`,
    verified: 1,
    created_at: T,
    updated_at: T,
    disabled_at: disabled ? T : null,
  });
  await db
    .insertInto('users')
    .values([user('alice', false), user('bob', false), user('carol', true)])
    .execute();
  const session = (token_hash: string, user_id: string) => ({
    token_hash,
    user_id,
    created_at: T,
    expires_at: T + 9e9,
    last_seen_at: T,
    id: `id-of-${token_hash}`,
    authenticated_at: T,
    ip: null,
    user_agent: null,
  });
  await db
    .insertInto('sessions')
    .values([session('s-alice', 'alice'), session('s-bob', 'bob')])
    .execute();
  await db
    .insertInto('roles')
    .values([{ name: 'admin' }, { name: 'editor' }])
    .execute();
  await db
    .insertInto('permissions')
    .values([{ name: 'posts.write' }, { name: 'posts.delete' }])
    .execute();
  await db.insertInto('role_permissions').values({ role: 'editor', permission: 'posts.write' }).execute();
  await db
    .insertInto('user_roles')
    .values([
      { user_id: 'alice', role: 'admin' },
      { user_id: 'alice', role: 'editor' },
      { user_id: 'bob', role: 'editor' },
      { user_id: 'carol', role: 'admin' },
    ])
    .execute();
}

/** The grants as the previous release keeps them, in one order. */
async function grants(db: Kysely<any>): Promise<{ user_id: string; role: string }[]> {
  return db.selectFrom('user_roles').select(['user_id', 'role']).orderBy('user_id').orderBy('role').execute();
}

/** What the guards answered before the upgrade, as `@Authorized` asks them: the session and the access, together. */
const GUARD_ANSWERS: [string, 'role' | 'permission', string, string][] = [
  ['s-alice', 'role', 'admin', 'granted'],
  ['s-alice', 'role', 'editor', 'granted'],
  ['s-alice', 'permission', 'posts.write', 'granted'],
  ['s-alice', 'permission', 'posts.delete', 'denied'],
  ['s-bob', 'role', 'admin', 'denied'],
  ['s-bob', 'role', 'editor', 'granted'],
  ['s-bob', 'role', 'ghost', 'unknown'],
  ['s-bob', 'permission', 'posts.write', 'granted'],
  ['s-bob', 'permission', 'ghost', 'unknown'],
];

async function checkGuards(store: SqlUserStore): Promise<void> {
  for (const [token, kind, name, answer] of GUARD_ANSWERS) {
    const check = await store.sessions.check(token, { kind, name });
    assert.equal(check?.access, answer, `${token} ${kind}:${name}`);
    const direct =
      kind === 'role'
        ? await store.access.checkRole(check!.user.id, name)
        : await store.access.checkPermission(check!.user.id, name);
    assert.equal(direct, answer, `${token} ${kind}:${name}, read alone`);
  }
}

/** What the upgrade must keep and now allow, on a store opened over the upgraded schema. */
async function checkUpgraded(store: SqlUserStore, before: { user_id: string; role: string }[]): Promise<void> {
  assert.deepEqual(await grants(store.db), before, 'every grant kept');
  const scopes = await store.db.selectFrom('user_roles').select('scope').distinct().execute();
  assert.deepEqual(scopes, [{ scope: '' }], 'every existing grant is global');
  await checkGuards(store);
  assert.deepEqual(await store.access.listUserRoles('alice'), ['admin', 'editor']);
  // carol (disabled) holds admin too, so alice is the last enabled holder, as before.
  assert.equal(
    await store.transaction((tx) => tx.access.revokeRole('alice', 'admin', { keepLastHolder: true })),
    'last_holder',
  );

  // An instance of the previous release, still running, inserts a grant naming only the old columns: it is global.
  await sql`insert into user_roles (user_id, role) values ('bob', 'admin')`.execute(store.db);
  assert.equal(await store.access.checkRole('bob', 'admin'), 'granted');
  await sql`delete from user_roles where user_id = 'bob' and role = 'admin'`.execute(store.db);

  // The same role in another scope is a grant of its own, and answers no global guard.
  assert.equal(await store.transaction((tx) => tx.access.grantRole('bob', 'admin', { scope: 'org-1' })), 'ok');
  assert.equal((await store.sessions.check('s-bob', { kind: 'role', name: 'admin' }))?.access, 'denied');
  assert.deepEqual(await store.access.listUserRoles('bob', 'org-1'), ['admin']);
}

/** Going down refuses while a grant outside the global scope exists, and then restores the old grants exactly. */
async function checkDown(db: Kysely<any>, before: { user_id: string; role: string }[]): Promise<void> {
  await assert.rejects(migrateDown(db), /1 role grant\(s\) outside the global scope/);
  assert.equal((await db.selectFrom('user_roles').select('scope').where('scope', '=', 'org-1').execute()).length, 1);
  await db.deleteFrom('user_roles').where('scope', '<>', '').execute();
  await migrateDown(db);
  assert.deepEqual(await grants(db), before);
}

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-grants-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  const tableShape = async (db: Kysely<any>) => ({
    columns: (await sql<{ name: string; pk: number }>`pragma table_info(user_roles)`.execute(db)).rows
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name),
    indexes: (
      await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'user_roles'
        and name not like 'sqlite_%' order by name`.execute(db)
    ).rows.map((row) => row.name),
    foreignKeys: (
      await sql<{ table: string; from: string; on_delete: string }>`pragma foreign_key_list(user_roles)`.execute(db)
    ).rows
      .map((key) => `${key.from} -> ${key.table} ${key.on_delete}`)
      .sort(),
  });

  it('keeps every grant, global, and every guard answer; the guard reads one probe of the new key', async () => {
    const filename = join(folder, 'gatehouse.db');
    const previous = sqliteAsPreviousRelease(filename);
    await migrateTo(previous, BEFORE);
    await seedPreviousRelease(previous);
    const before = await grants(previous);
    await previous.destroy();

    const store = await SqliteUserStore.open({ filename });
    try {
      assert.deepEqual(await tableShape(store.db), {
        columns: ['user_id', 'scope', 'role'],
        indexes: ['user_roles_role_index'],
        foreignKeys: ['role -> roles CASCADE', 'user_id -> users CASCADE'],
      });
      const plan = await sql<{ detail: string }>`explain query plan select 1 from users u where exists
        (select 1 from user_roles ur where ur.role = 'admin' and ur.scope = '' and ur.user_id = u.id)`.execute(
        store.db,
      );
      assert.match(
        plan.rows.map((row) => row.detail).join('\n'),
        /SEARCH ur EXISTS USING COVERING INDEX sqlite_autoindex_user_roles_1 \(user_id=\? AND scope=\? AND role=\?\)/,
      );
      await checkUpgraded(store, before);
    } finally {
      await store.close();
    }
  });

  it('goes down again to the previous table, keeping every grant, and refuses while scoped grants exist', async () => {
    const db = sqliteAsPreviousRelease(join(folder, 'gatehouse.db'));
    try {
      await migrateTo(db, BEFORE);
      await seedPreviousRelease(db);
      const before = await grants(db);
      const shape = await tableShape(db);
      await migrateTo(db, [...BEFORE, THIS]);
      await db.insertInto('user_roles').values({ user_id: 'bob', role: 'admin', scope: 'org-1' }).execute();
      await checkDown(db, before);
      assert.deepEqual(await tableShape(db), shape);
    } finally {
      await db.destroy();
    }
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it('keeps every grant and guard answer, refuses to go down over scoped grants, and goes down again', async () => {
    const database = await createTestDatabase('grants_migration');
    const connect = () => postgresAsPreviousRelease(database.url);
    const primaryKey = async (db: Kysely<any>) =>
      (
        await sql<{ column_name: string }>`select a.attname as column_name
          from pg_constraint c join unnest(c.conkey) with ordinality as k(attnum, n) on true
          join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
          where c.conname = 'user_roles_pk' order by k.n`.execute(db)
      ).rows.map((row) => row.column_name);
    try {
      const previous = connect();
      await migrateTo(previous, BEFORE);
      await seedPreviousRelease(previous);
      const before = await grants(previous);
      await previous.destroy();

      const store = await PostgresUserStore.open({ connectionString: database.url });
      try {
        assert.deepEqual(await primaryKey(store.db), ['user_id', 'scope', 'role']);
        await checkUpgraded(store, before);
      } finally {
        await store.close();
      }
      const db = connect();
      try {
        await checkDown(db, before);
        assert.deepEqual(await primaryKey(db), ['user_id', 'role']);
        const { rows } = await sql`select column_name from information_schema.columns
          where table_name = 'user_roles' and column_name = 'scope'`.execute(db);
        assert.deepEqual(rows, []);
      } finally {
        await db.destroy();
      }
    } finally {
      await database.drop();
    }
  });
});
