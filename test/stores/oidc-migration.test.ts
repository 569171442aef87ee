import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredIdentity } from '../../src/services/oidc/identity-records';
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

const THIS = '2026-12-04-oidc';
const BEFORE = migrationsBefore(THIS);
const T = Date.UTC(2026, 0, 1);
/** Every table the release before knows that holds rows: each must come through up and down whole. */
const TABLES = [
  'users',
  'credentials',
  'sessions',
  'login_challenges',
  'passkey_challenges',
  'audit_events',
  'outbox',
] as const;
/** The columns `login_challenges` had before this migration: what the previous release reads of it. */
const OLD_CHALLENGE_COLUMNS = [
  'token_hash',
  'user_id',
  'credential_epoch',
  'attempts',
  'created_at',
  'expires_at',
  'ip',
  'user_agent',
];
const LINKED_AT = T + 5000;
const ISSUER = 'https://idp.example.com';

/** alice: a password, TOTP, a passkey, a session, a login challenge and a passkey challenge; bob: a password alone. */
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
  const credential = (id: string, user_id: string, kind: string, secret: string) => ({
    id,
    user_id,
    kind,
    secret,
    enabled: 1,
    created_at: T - 900,
  });
  await db
    .insertInto('credentials')
    .values([
      credential('c1', 'alice', 'password', '$argon2id$alice'),
      { ...credential('c2', 'alice', 'totp', 'sealed'), enabled_at: T - 800, last_used_step: 7 },
      {
        ...credential('c3', 'alice', 'passkey', 'public-key'),
        identifier: 'credential-id',
        counter: 3,
        label: 'Laptop',
        details: '{"userHandle":"h"}',
      },
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
  await db
    .insertInto('passkey_challenges')
    .values({ challenge_hash: 'pk-hash', ceremony: 'sign_in', created_at: T, expires_at: T + 300_000 })
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
    const rows = await (table === 'login_challenges' ? query.select(OLD_CHALLENGE_COLUMNS) : query.selectAll())
      .where((eb) => (table === 'credentials' ? eb('kind', '<>', 'oidc') : eb.lit(true)))
      .execute();
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

function identityOf(userId: string, subject: string): StoredIdentity {
  return {
    id: `identity-${subject}`,
    userId,
    provider: 'corp',
    issuer: ISSUER,
    subject,
    email: `${subject}@corp.example.com`,
    createdAt: new Date(LINKED_AT),
    lastUsedAt: null,
  };
}

/** On the upgraded store: every row kept, identities, flows, handoffs and a provider's login challenge written. */
async function checkUpgraded(store: SqlUserStore, before: Snapshot): Promise<void> {
  assert.deepEqual(await snapshot(store.db), before, 'every row of the previous release kept');
  const bobs = identityOf('bob', 'bob');
  assert.equal(await store.transaction((tx) => tx.oidc.link(bobs)), 'linked');
  assert.equal(await store.transaction((tx) => tx.oidc.link({ ...identityOf('alice', 'bob'), id: 'x' })), 'duplicate');
  assert.deepEqual(await store.oidc.list('bob'), [bobs]);
  assert.deepEqual(await store.oidc.find(ISSUER, 'bob'), bobs);
  // A challenge of the previous release was a password's.
  assert.equal((await store.loginChallenges.find('login-hash', new Date(T)))?.firstFactor, 'pwd');
  await store.transaction(async (tx) => {
    const common = { createdAt: new Date(T), expiresAt: new Date(T + 300_000) };
    await tx.oidc.createFlow({
      ...common,
      stateHash: 'state',
      provider: 'corp',
      browserHash: 'browser',
      sealed: 'sealed',
      intent: 'link',
      userId: 'alice',
      sessionId: 'session-id',
      returnTo: 'https://app.example.com/oidc/return',
    });
    await tx.oidc.createHandoff({
      ...common,
      codeHash: 'code',
      outcome: 'sign_in',
      userId: 'bob',
      identityId: bobs.id,
      methods: ['fed'],
      skipSecondFactor: false,
      ip: null,
      userAgent: null,
    });
    await tx.loginChallenges.create({
      ...common,
      tokenHash: 'fed-login-hash',
      userId: 'bob',
      credentialEpoch: 0,
      attempts: 0,
      ip: null,
      userAgent: null,
      firstFactor: 'fed',
    });
  });
  assert.equal((await store.transaction((tx) => tx.oidc.consumeHandoff('code', new Date(T))))?.userId, 'bob');
  assert.equal((await store.loginChallenges.find('fed-login-hash', new Date(T)))?.firstFactor, 'fed');
  // The ways in stay what they were: a password next to the identity.
  const removal = await store.transaction((tx) =>
    tx.oidc.unlink('bob', bobs.id, new Date(LINKED_AT), { identityProviders: ['corp'] }),
  );
  assert.equal(removal.outcome, 'removed');
  assert.equal(await store.transaction((tx) => tx.oidc.link({ ...bobs, id: 'identity-again' })), 'linked');
}

/** Down again: identities, flows, handoffs and a provider's challenges gone, the column with them, every other row kept. */
async function checkDown(db: AnyReleaseDb, before: Snapshot): Promise<void> {
  await migrateDownTo(db, BEFORE[BEFORE.length - 1]);
  const tables = await db.introspection.getTables();
  assert.deepEqual(
    tables.filter((table) => table.name.startsWith('oidc_')),
    [],
  );
  const challenges = tables.find((table) => table.name === 'login_challenges');
  assert.deepEqual(challenges?.columns.map((column) => column.name).sort(), [...OLD_CHALLENGE_COLUMNS].sort());
  const identities = await db.selectFrom('credentials').select('id').where('kind', '=', 'oidc').execute();
  assert.deepEqual(identities, []);
  // Linking and unlinking moved bob's updatedAt; a provider's challenge is gone; nothing else changed.
  const expected = structuredClone(before);
  for (const user of expected.users) if (user.id === 'bob') user.updated_at = LINKED_AT;
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

const CASE = 'keeps every row, stores identities, flows and handoffs, and goes down again without them';

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-oidc-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it(CASE, async () => {
    const filename = join(folder, 'oidc.db');
    await upAndDown({
      connect: () => sqliteAsPreviousRelease(filename),
      open: () => SqliteUserStore.open({ filename }),
    });
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it(CASE, async () => {
    const database = await createTestDatabase('oidc_migration');
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
