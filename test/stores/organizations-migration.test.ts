import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { StoredInvitation } from '../../src/services/organizations/organization-records';
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

const THIS = '2026-12-05-organizations';
const BEFORE = migrationsBefore(THIS);
const T = Date.UTC(2026, 0, 1);
/** Every table the release before knows that holds rows here: each must come through up and down whole. */
const TABLES = ['users', 'credentials', 'sessions', 'audit_events', 'outbox'] as const;
const NEW_TABLES = ['organization_invitations', 'organization_members', 'organizations'];
const ORG = '5b0a9a8e-1111-4c5e-9a3e-000000000001';

/** alice and bob with a password each, alice with a session, an audit event and a queued notice. */
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
  const credential = (id: string, user_id: string) => ({
    id,
    user_id,
    kind: 'password',
    secret: `$argon2id$${user_id}`,
    enabled: 1,
    created_at: T - 900,
  });
  await db
    .insertInto('credentials')
    .values([credential('c1', 'alice'), credential('c2', 'bob')])
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

function invitationOf(email: string, tokenHash: string): StoredInvitation {
  return {
    id: `invitation-${tokenHash}`,
    organizationId: ORG,
    email,
    emailKey: email,
    role: 'member',
    tokenHash,
    invitedBy: 'carol',
    createdAt: new Date(T),
    expiresAt: new Date(T + 86_400_000),
  };
}

/** On the upgraded store: every row kept; organizations, members and invitations stored, and the foreign keys act. */
async function checkUpgraded(store: SqlUserStore, before: Snapshot): Promise<void> {
  assert.deepEqual(await snapshot(store.db), before, 'every row of the previous release kept');
  const at = new Date(T);
  await store.transaction(async (tx) => {
    assert.equal(await tx.organizations.lockUser('carol'), true);
    await tx.organizations.create({ id: ORG, name: 'Acme', createdBy: 'carol', createdAt: at, updatedAt: at });
    assert.ok(await tx.organizations.lock(ORG));
    for (const [userId, role] of [
      ['carol', 'owner'],
      ['alice', 'member'],
    ]) {
      const added = await tx.organizations.addMember({
        organizationId: ORG,
        userId,
        role,
        createdAt: at,
        updatedAt: at,
      });
      assert.equal(added, 'added');
    }
    await tx.organizations.createInvitation(invitationOf('bob@example.com', 'token-bob'));
    await tx.organizations.createInvitation(invitationOf('dave@example.com', 'token-dave'));
  });
  assert.equal((await store.organizations.membership(ORG, 'alice'))?.role, 'member');
  assert.equal(await store.organizations.countPendingInvitations(ORG, at), 2);
  const check = await store.sessions.check('session-hash', { kind: 'membership', organizationId: ORG });
  assert.equal(check?.membership, 'member');
  // The database's own foreign keys, without the store: the user's memberships go with it, what it created and
  // whom it invited stay, without its name.
  await sql`delete from users where id = 'carol'`.execute(store.db);
  assert.equal(await store.organizations.membership(ORG, 'carol'), null);
  assert.equal((await store.organizations.find(ORG))?.createdBy, null);
  const invitations = await store.organizations.listInvitations(ORG, at);
  assert.deepEqual(
    invitations.map((invitation) => invitation.invitedBy),
    [null, null],
  );
  // And the organization's rows go with it.
  await store.transaction(async (tx) => {
    await tx.organizations.createInvitation({ ...invitationOf('erin@example.com', 'token-erin'), invitedBy: null });
  });
  await sql`delete from organizations where id = ${ORG}`.execute(store.db);
  assert.equal(await store.organizations.membership(ORG, 'alice'), null);
  assert.equal(await store.organizations.findInvitationByToken('token-erin', at), null);
  // Again, for the way down to drop.
  await store.transaction(async (tx) => {
    await tx.organizations.create({ id: ORG, name: 'Acme', createdBy: 'alice', createdAt: at, updatedAt: at });
    await tx.organizations.addMember({
      organizationId: ORG,
      userId: 'alice',
      role: 'owner',
      createdAt: at,
      updatedAt: at,
    });
    await tx.organizations.createInvitation({ ...invitationOf('bob@example.com', 'token-bob-2'), invitedBy: 'alice' });
  });
}

/** Down again: the three tables gone, every other row kept (carol was deleted on the way). */
async function checkDown(db: AnyReleaseDb, before: Snapshot): Promise<void> {
  await migrateDownTo(db, BEFORE[BEFORE.length - 1]);
  const tables = await db.introspection.getTables();
  assert.deepEqual(
    tables.filter((table) => NEW_TABLES.includes(table.name)),
    [],
  );
  const expected = structuredClone(before);
  expected.users = expected.users.filter((user) => user.id !== 'carol');
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

const CASE = 'keeps every row, stores organizations, members and invitations, and goes down again without them';

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-organizations-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it(CASE, async () => {
    const filename = join(folder, 'organizations.db');
    await upAndDown({
      connect: () => sqliteAsPreviousRelease(filename),
      open: () => SqliteUserStore.open({ filename }),
    });
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it(CASE, async () => {
    const database = await createTestDatabase('organizations_migration');
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
