import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { StoredApiKey } from '../../src/services/api-keys/api-key-records';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import type { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { createTestDatabase } from '../support/postgres-database';
import { describeWithService } from '../support/services';
import {
  aliceLoginEvent,
  type AnyReleaseDb,
  migrateDownTo,
  migrateTo,
  migrationsBefore,
  postgresAsPreviousRelease,
  queuedNoticeToAlice,
  sqliteAsPreviousRelease,
} from './migration-steps';

const THIS = '2026-12-06-api-keys';
const BEFORE = migrationsBefore(THIS);
const T = Date.UTC(2026, 0, 1);
/** Every table the release before knows that holds rows here: each must come through up and down whole. */
const TABLES = [
  'users',
  'credentials',
  'sessions',
  'audit_events',
  'outbox',
  'roles',
  'permissions',
  'role_permissions',
  'user_roles',
  'organizations',
  'organization_members',
] as const;
const NEW_TABLES = ['api_keys', 'service_accounts'];

/** alice, bob and carol; alice with a password, a session, a role, an organization, an audit event and a notice. */
async function seedPreviousRelease(db: AnyReleaseDb): Promise<void> {
  const user = (id: string) => ({
    id,
    username: id,
    username_key: id,
    email: `${id}@example.com`,
    email_key: `${id}@example.com`,
    verified: 1,
    created_at: T - 1000,
    updated_at: T - 1000,
  });
  await db
    .insertInto('users')
    .values([user('alice'), user('bob'), user('carol')])
    .execute();
  await db
    .insertInto('credentials')
    .values({
      id: 'c1',
      user_id: 'alice',
      kind: 'password',
      secret: '$argon2id$alice',
      enabled: 1,
      created_at: T - 900,
    })
    .execute();
  await db
    .insertInto('sessions')
    .values({
      token_hash: 'session-hash',
      user_id: 'alice',
      created_at: T - 100,
      expires_at: T + 9e9,
      last_seen_at: T,
      id: 'session-id',
      authenticated_at: T - 100,
      ip: '192.0.2.1',
      user_agent: 'Browser',
      amr: 'pwd',
    })
    .execute();
  await db.insertInto('roles').values({ name: 'writer' }).execute();
  await db.insertInto('permissions').values({ name: 'posts.write' }).execute();
  await db.insertInto('role_permissions').values({ role: 'writer', permission: 'posts.write' }).execute();
  await db.insertInto('user_roles').values({ user_id: 'alice', role: 'writer', scope: '' }).execute();
  await db
    .insertInto('organizations')
    .values({ id: 'org-1', name: 'Acme', created_by: 'alice', created_at: T, updated_at: T })
    .execute();
  await db
    .insertInto('organization_members')
    .values({ organization_id: 'org-1', user_id: 'alice', role: 'owner', created_at: T, updated_at: T })
    .execute();
  await db.insertInto('audit_events').values(aliceLoginEvent(T)).execute();
  await db
    .insertInto('outbox')
    .values(queuedNoticeToAlice('m1', 'passwordChanged', T))
    .execute();
}

type Snapshot = Record<string, Record<string, unknown>[]>;

/** The rows of every table, as the previous release reads them (numbers as numbers), in a stable order. */
async function snapshot(db: AnyReleaseDb): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const table of TABLES) {
    const rows = await db.selectFrom(table).selectAll().execute();
    out[table] = rows
      .map((row: Record<string, unknown>) =>
        Object.fromEntries(
          Object.entries(row)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([key, value]) => [key, typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value]),
        ),
      )
      .sort((a: object, b: object) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

function keyOf(userId: string, name: string, createdBy: string | null): StoredApiKey {
  return {
    id: `key-${userId}-${name}`,
    keyHash: `hash-${userId}-${name}`,
    userId,
    name,
    lastFour: 'Ab12',
    scopes: ['posts.write'],
    createdAt: new Date(T),
    expiresAt: new Date(T + 86_400_000),
    lastUsedAt: null,
    lastUsedIp: null,
    createdBy,
  };
}

/** On the upgraded store: every row kept; keys and service accounts stored, checked, and the constraints act. */
async function checkUpgraded(store: SqlUserStore, before: Snapshot): Promise<void> {
  assert.deepEqual(await snapshot(store.db), before, 'every row of the previous release kept');
  await store.transaction(async (tx) => {
    assert.equal(await tx.apiKeys.lockOwner('alice'), true);
    assert.deepEqual(await tx.apiKeys.permissionsOf('alice'), ['posts.write']);
    assert.equal(await tx.apiKeys.create(keyOf('alice', 'ci', 'alice')), 'created');
    await tx.apiKeys.createServiceAccount({ userId: 'carol', createdAt: new Date(T), createdBy: 'bob' });
    assert.equal(await tx.apiKeys.create(keyOf('carol', 'deploy', 'bob')), 'created');
  });
  const check = await store.apiKeys.check('hash-alice-ci', 'posts.write');
  assert.equal(check?.keyId, 'key-alice-ci');
  assert.equal(check?.access, 'granted');
  assert.deepEqual(check?.scopes, ['posts.write']);

  // The database's own constraints, without the store: one hash, one name per owner.
  const row = (id: string, keyHash: string, userId: string, name: string) => ({
    id,
    key_hash: keyHash,
    user_id: userId,
    name,
    last_four: 'Ab12',
    scopes: '[]',
    created_at: T,
    expires_at: T,
  });
  await assert.rejects(
    store.db
      .insertInto('api_keys')
      .values(row('k2', 'hash-alice-ci', 'bob', 'x'))
      .execute(),
  );
  await assert.rejects(
    store.db
      .insertInto('api_keys')
      .values(row('k3', 'other-hash', 'alice', 'ci'))
      .execute(),
  );
  await assert.rejects(
    store.db
      .insertInto('api_keys')
      .values(row('k4', 'hash-4', 'nobody', 'x'))
      .execute(),
  );
  // The foreign keys: the creator's deletion leaves what it made without its name, the owner's takes its keys.
  await sql`delete from users where id = 'bob'`.execute(store.db);
  assert.deepEqual(await store.apiKeys.serviceAccount('carol'), {
    userId: 'carol',
    createdAt: new Date(T),
    createdBy: null,
  });
  assert.equal((await store.apiKeys.list('carol'))[0]?.createdBy, null);
  await sql`delete from users where id = 'carol'`.execute(store.db);
  assert.equal(await store.apiKeys.check('hash-carol-deploy'), null);
  assert.equal(await store.apiKeys.serviceAccount('carol'), null);
  assert.equal((await store.apiKeys.check('hash-alice-ci'))?.keyId, 'key-alice-ci');
}

/** Down again: the two tables gone, every other row kept (bob and carol were deleted on the way). */
async function checkDown(db: AnyReleaseDb, before: Snapshot): Promise<void> {
  await migrateDownTo(db, BEFORE[BEFORE.length - 1]);
  const tables = await db.introspection.getTables();
  assert.deepEqual(
    tables.filter((table) => NEW_TABLES.includes(table.name)),
    [],
  );
  const expected = structuredClone(before);
  expected.users = expected.users.filter((user) => user.id === 'alice');
  assert.deepEqual(await snapshot(db), expected);
  // And up again, as a later upgrade would.
  await migrateTo(db, [...BEFORE, THIS]);
  assert.deepEqual(await snapshot(db), expected);
  const again = await db.introspection.getTables();
  assert.deepEqual(
    again
      .filter((table) => NEW_TABLES.includes(table.name))
      .map((table) => table.name)
      .sort(),
    [...NEW_TABLES].sort(),
  );
}

interface Databases {
  /** A new connection to the database under test, as the previous release opens it. */
  connect(): AnyReleaseDb;
  /** The store, opened over it (migrating it up). */
  open(): Promise<SqlUserStore>;
}

async function upAndDown(databases: Databases): Promise<void> {
  const previous = databases.connect();
  let before: Snapshot;
  try {
    await migrateTo(previous, BEFORE);
    await seedPreviousRelease(previous);
    before = await snapshot(previous);
  } finally {
    await previous.destroy();
  }
  const store = await databases.open();
  try {
    await checkUpgraded(store, before);
  } finally {
    await store.close();
  }
  const db = databases.connect();
  try {
    await checkDown(db, before);
  } finally {
    await db.destroy();
  }
}

const CASE =
  'keeps every row, stores keys and service accounts under its constraints, and goes down again without them';

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-api-keys-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it(CASE, async () => {
    const filename = join(folder, 'api-keys.db');
    await upAndDown({
      connect: () => sqliteAsPreviousRelease(filename),
      open: () => SqliteUserStore.open({ filename }),
    });
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it(CASE, async () => {
    const database = await createTestDatabase('api_keys_migration');
    try {
      await upAndDown({
        connect: () => postgresAsPreviousRelease(database.url),
        open: () => PostgresUserStore.open({ connectionString: database.url }),
      });
    } finally {
      await database.drop();
    }
  });
});
