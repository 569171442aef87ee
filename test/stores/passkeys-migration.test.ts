import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredPasskey } from '../../src/services/passkeys/passkey-records';
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

const THIS = '2026-12-03-passkeys';
const BEFORE = migrationsBefore(THIS);
const T = Date.UTC(2026, 0, 1);
/** Every table the release before knows that holds rows: each must come through up and down whole. */
const TABLES = ['users', 'credentials', 'sessions', 'login_challenges', 'audit_events', 'outbox'] as const;
/** The columns `credentials` had before this migration: what the previous release reads of it. */
const OLD_CREDENTIAL_COLUMNS = [
  'id',
  'user_id',
  'kind',
  'secret',
  'enabled',
  'enabled_at',
  'last_used_step',
  'created_at',
  'last_used_at',
];
/** The columns of `login_challenges` this release reads (later migrations add more). */
const CHALLENGE_COLUMNS = [
  'token_hash',
  'user_id',
  'credential_epoch',
  'attempts',
  'created_at',
  'expires_at',
  'ip',
  'user_agent',
];
const PASSKEY_CREATED_AT = T + 5000;

/** alice: a password, TOTP and a recovery code, a session and a login challenge; bob: a password alone. */
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
    .values([user('alice'), user('bob')])
    .execute();
  const credential = (id: string, user_id: string, kind: string, secret: string, enabled = 1) => ({
    id,
    user_id,
    kind,
    secret,
    enabled,
    created_at: T - 900,
  });
  await db
    .insertInto('credentials')
    .values([
      credential('c1', 'alice', 'password', '$argon2id$alice'),
      { ...credential('c2', 'alice', 'totp', 'sealed'), enabled_at: T - 800, last_used_step: 7 },
      credential('c3', 'alice', 'recovery_code', 'code-hash'),
      credential('c4', 'bob', 'password', '$argon2id$bob'),
    ])
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
      amr: 'pwd otp mfa',
    })
    .execute();
  await db
    .insertInto('login_challenges')
    .values({ token_hash: 'login-hash', user_id: 'alice', created_at: T, expires_at: T + 300_000 })
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
    const query = db.selectFrom(table);
    const columns =
      table === 'credentials' ? OLD_CREDENTIAL_COLUMNS : table === 'login_challenges' ? CHALLENGE_COLUMNS : null;
    const rows = await (columns ? query.select(columns) : query.selectAll()).execute();
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

function passkeyOf(userId: string, label: string): StoredPasskey {
  return {
    id: `passkey-${label}`,
    userId,
    credentialId: `credential-${label}`,
    publicKey: `public-key-${label}`,
    counter: 3,
    userHandle: `handle-${userId}`,
    name: `Key ${label}`,
    transports: ['usb'],
    aaguid: '00000000-0000-0000-0000-000000000000',
    backupEligible: false,
    backedUp: false,
    userVerified: true,
    createdAt: new Date(PASSKEY_CREATED_AT),
    lastUsedAt: null,
  };
}

/** On the upgraded store: every row kept, passkeys and their challenges written and read back. */
async function checkUpgraded(store: SqlUserStore, before: Snapshot): Promise<void> {
  assert.deepEqual(await snapshot(store.db), before, 'every row of the previous release kept');
  const bobs = passkeyOf('bob', 'bob');
  assert.equal(await store.transaction((tx) => tx.passkeys.add(bobs)), 'added');
  assert.equal(await store.transaction((tx) => tx.passkeys.add(passkeyOf('alice', 'bob'))), 'duplicate');
  assert.deepEqual(await store.passkeys.list('bob'), [bobs]);
  await store.transaction(async (tx) => {
    const challenge = { sessionId: null, loginChallengeHash: null, userHandle: null, createdAt: new Date(T) };
    const expiresAt = new Date(T + 300_000);
    await tx.passkeys.createChallenge({
      ...challenge,
      challengeHash: 'a',
      ceremony: 'sign_in',
      userId: null,
      expiresAt,
    });
    await tx.passkeys.createChallenge({
      ...challenge,
      challengeHash: 'b',
      ceremony: 'reauthentication',
      userId: 'alice',
      expiresAt,
    });
  });
  assert.ok(await store.transaction((tx) => tx.passkeys.consumeChallenge('a', 'sign_in', new Date(T))));
  // The other ways in stay what they were: a password next to the passkey.
  const removal = await store.transaction((tx) =>
    tx.passkeys.remove('bob', bobs.id, new Date(T), { identityProviders: [] }),
  );
  assert.equal(removal.outcome, 'removed');
  assert.equal(await store.transaction((tx) => tx.passkeys.add({ ...bobs, id: 'passkey-again' })), 'added');
}

/** Down again: the passkeys and their challenges gone, the columns and index with them, every other row kept. */
async function checkDown(db: AnyReleaseDb, before: Snapshot): Promise<void> {
  await migrateDownTo(db, BEFORE[BEFORE.length - 1]);
  const tables = await db.introspection.getTables();
  assert.equal(
    tables.some((table) => table.name === 'passkey_challenges'),
    false,
  );
  const credentials = tables.find((table) => table.name === 'credentials');
  assert.deepEqual(credentials?.columns.map((column) => column.name).sort(), [...OLD_CREDENTIAL_COLUMNS].sort());
  // Adding and removing a passkey moved bob's updatedAt; nothing else changed.
  const expected = structuredClone(before);
  for (const user of expected.users) if (user.id === 'bob') user.updated_at = PASSKEY_CREATED_AT;
  assert.deepEqual(await snapshot(db), expected);
  // And up again, as a later upgrade would.
  await migrateTo(db, [...BEFORE, THIS]);
  assert.deepEqual(await snapshot(db), expected);
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

const CASE = 'keeps every row, stores passkeys and their challenges, and goes down again without them';

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-passkeys-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it(CASE, async () => {
    const filename = join(folder, 'passkeys.db');
    await upAndDown({
      connect: () => sqliteAsPreviousRelease(filename),
      open: () => SqliteUserStore.open({ filename }),
    });
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it(CASE, async () => {
    const database = await createTestDatabase('passkeys_migration');
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
