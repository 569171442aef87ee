import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import argon2 from 'argon2';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { Pool } from 'pg';
import { migrations } from '../../src/stores/sql/migrate';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import type { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import { openSqlite } from '../../src/stores/sql/sqlite-statement-cache';
import { makeHarness, STRONG_PASSWORD } from '../support/core-harness';
import { createTestDatabase } from '../support/postgres-database';
import { describeWithService } from '../support/services';
import { migrateDownTo, migrateTo, rowsInShapeBeforeCredentials } from './migration-steps';

const THIS = '2026-12-01-session-methods';
/** The schema as the release before this migration left it. */
const BEFORE = Object.keys(migrations).slice(0, Object.keys(migrations).indexOf(THIS));
/** The harness's clock starts here: every seeded session is live then. */
const T = Date.UTC(2026, 0, 1);
const TABLES = ['users', 'sessions', 'second_factors', 'recovery_codes', 'audit_events', 'outbox'] as const;

/** What a session's raw token hashes to, under the harness's secret key. */
type HashToken = (raw: string) => string;

/** The raw token of a seeded session (a well-formed one: 43 base64url characters). */
const raw = (label: string) => `${label}-token-${'x'.repeat(40)}`.slice(0, 43);

/**
 * Users (one with a second factor and recovery codes), sessions made with and without a second factor, a waiting
 * login challenge, audit rows and queued mail, written as the previous release would.
 */
async function seedPreviousRelease(db: Kysely<any>, hashToken: HashToken): Promise<void> {
  const passwordHash = await argon2.hash(STRONG_PASSWORD, {
    type: argon2.argon2id,
    memoryCost: 19_456,
    timeCost: 2,
    parallelism: 1,
  });
  const user = (id: string) => ({
    id,
    username: id,
    username_key: id,
    email: `${id}@example.com`,
    email_key: `${id}@example.com`,
    password_hash: passwordHash,
    verified: 1,
    created_at: T - 1000,
    updated_at: T - 1000,
  });
  await db
    .insertInto('users')
    .values([user('alice'), user('bob')])
    .execute();
  const session = (label: string, user_id: string, second_factor: number) => ({
    token_hash: hashToken(raw(label)),
    user_id,
    created_at: T - 100,
    expires_at: T + 9e9,
    last_seen_at: T,
    id: `id-of-${label}`,
    authenticated_at: T - 100,
    ip: '192.0.2.1',
    user_agent: 'Browser',
    second_factor,
  });
  await db
    .insertInto('sessions')
    .values([session('plain', 'alice', 0), session('strong', 'alice', 1), session('bobs', 'bob', 0)])
    .execute();
  await db
    .insertInto('second_factors')
    .values({
      user_id: 'alice',
      sealed_secret: 'v1.sealed',
      enabled: 1,
      created_at: T - 500,
      enabled_at: T - 400,
      last_used_step: 7,
    })
    .execute();
  await db
    .insertInto('recovery_codes')
    .values([
      { code_hash: 'code-1', user_id: 'alice', created_at: T - 400 },
      { code_hash: 'code-2', user_id: 'alice', created_at: T - 400 },
    ])
    .execute();
  await db
    .insertInto('login_challenges')
    .values({
      token_hash: 'challenge-1',
      user_id: 'alice',
      password_binding: 'binding',
      attempts: 1,
      created_at: T - 10,
      expires_at: T + 300_000,
      ip: null,
      user_agent: null,
    })
    .execute();
  await db
    .insertInto('audit_events')
    .values({
      id: 'e1',
      at: T - 100,
      type: 'login',
      outcome: 'success',
      actor_type: 'user',
      actor_id: 'alice',
      subject_id: 'alice',
      ip: '192.0.2.1',
      request_id: 'r1',
      details: null,
    })
    .execute();
  await db
    .insertInto('outbox')
    .values({
      id: 'm1',
      kind: 'secondFactorEnabled',
      user_id: 'alice',
      username: 'alice',
      email: 'alice@example.com',
      sealed_token: null,
      status: 'pending',
      attempts: 0,
      next_attempt_at: T,
      give_up_at: T + 9e9,
      claim_id: null,
      last_error: null,
      created_at: T,
      updated_at: T,
      sent_at: null,
    })
    .execute();
}

/** The rows of `TABLES`, without the columns this migration adds; numbers compared as numbers. */
async function snapshot(db: Kysely<any>): Promise<Record<string, Record<string, unknown>[]>> {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const table of TABLES) {
    const rows = await rowsInShapeBeforeCredentials(db, table);
    out[table] = rows
      .map((row) =>
        Object.fromEntries(
          Object.entries(row)
            .filter(([key]) => !['credential_epoch', 'amr', 'second_factor'].includes(key))
            .map(([key, value]) => [key, typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value]),
        ),
      )
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

/** A database at the previous release's schema, seeded; what it holds. */
async function seededPreviousRelease(
  db: Kysely<any>,
  hashToken: HashToken,
): Promise<Record<string, Record<string, unknown>[]>> {
  await migrateTo(db, BEFORE);
  await seedPreviousRelease(db, hashToken);
  return snapshot(db);
}

/** On a store opened over the upgraded schema: every row kept, every session live with its methods, sign-in works. */
async function checkUpgraded(store: SqlUserStore, before: Record<string, Record<string, unknown>[]>): Promise<void> {
  assert.deepEqual(await snapshot(store.db), before, 'every user, session, factor, code, event and message kept');
  const h = makeHarness({ store });
  const methods = async (label: string) => (await h.accounts.authenticateSession(raw(label))).methods;
  assert.deepEqual(await methods('plain'), ['pwd']);
  assert.deepEqual(await methods('strong'), ['pwd', 'otp', 'mfa'], 'a second-factor session stays one');
  assert.deepEqual(await methods('bobs'), ['pwd']);
  const challenge = await store.loginChallenges.find('challenge-1', new Date(T));
  assert.equal(challenge?.credentialEpoch, 0, 'a waiting challenge is bound to the state its users are in');
  assert.equal(challenge?.attempts, 1);

  // The same password signs in, without and with a second factor.
  assert.match(await h.accounts.login('bob', STRONG_PASSWORD), /^[A-Za-z0-9_-]{43}$/);
  assert.equal((await h.accounts.signIn('alice', STRONG_PASSWORD)).kind, 'challenge');
  // A changed password moves the state on: bob's sessions end.
  await h.accounts.changePassword(raw('bobs'), STRONG_PASSWORD, `${STRONG_PASSWORD}!2`);
  assert.equal((await store.users.findById('bob'))?.credentialEpoch, 1);
  assert.equal(await h.accounts.validateSession(raw('bobs')), null);
}

/** Down again: the old columns are back and filled from the new ones; nothing ended comes back. */
async function checkDown(db: Kysely<any>, before: Record<string, Record<string, unknown>[]>): Promise<void> {
  // A session of an earlier state than its user's (as a racing sign-in would have left): ended, so it must not revive.
  await db
    .insertInto('sessions')
    .values({
      token_hash: 'stale',
      user_id: 'alice',
      created_at: T,
      expires_at: T + 9e9,
      last_seen_at: T,
      id: 'id-of-stale',
      authenticated_at: T,
      ip: null,
      user_agent: null,
      amr: 'pwd',
      credential_epoch: 0,
    })
    .execute();
  await db.updateTable('users').set({ credential_epoch: 3 }).where('id', '=', 'alice').execute();
  await db
    .updateTable('sessions')
    .set({ credential_epoch: 3 })
    .where('user_id', '=', 'alice')
    .where('id', '<>', 'id-of-stale')
    .execute();
  await migrateDownTo(db, BEFORE[BEFORE.length - 1]);
  assert.deepEqual(await snapshot(db), before);
  const flags = await db.selectFrom('sessions').select(['id', 'second_factor']).orderBy('id').execute();
  assert.deepEqual(
    flags.map((row) => [row.id, Number(row.second_factor)]),
    [
      ['id-of-bobs', 0],
      ['id-of-plain', 0],
      ['id-of-strong', 1],
    ],
  );
  assert.deepEqual(await db.selectFrom('login_challenges').selectAll().execute(), [], 'no binding can be rebuilt');
  await db
    .insertInto('login_challenges')
    .values({ token_hash: 'c2', user_id: 'bob', password_binding: 'b', created_at: T, expires_at: T + 1 })
    .execute();
}

/** The two databases of a case, of one dialect, each empty at first. */
interface Databases {
  /** The one a store upgrades as it opens. */
  upgraded(): Kysely<any>;
  openUpgraded(): Promise<SqlUserStore>;
  /** The one that goes up and down again. */
  downgraded(): Kysely<any>;
}

async function upAndDown(databases: Databases): Promise<void> {
  const hashToken: HashToken = (token) => makeHarness().accounts['core'].tokens.hash(token);
  const previous = databases.upgraded();
  const before = await seededPreviousRelease(previous, hashToken);
  await previous.destroy();
  const store = await databases.openUpgraded();
  try {
    await checkUpgraded(store, before);
  } finally {
    await store.close();
  }
  const db = databases.downgraded();
  try {
    const seeded = await seededPreviousRelease(db, hashToken);
    await migrateTo(db, [...BEFORE, THIS]);
    await checkDown(db, seeded);
  } finally {
    await db.destroy();
  }
}

const CASE = 'keeps every session valid with its methods, signs in as before, and goes down again';

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-session-methods-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  function previousRelease(filename: string): Kysely<any> {
    // Through openSqlite: a statement left to the garbage collector aborts Node 24 (see sqlite-statement-cache).
    const database = openSqlite(filename);
    database.exec('PRAGMA foreign_keys = ON');
    return new Kysely<any>({ dialect: new SqliteDialect({ database }) });
  }

  it(CASE, async () => {
    const filename = join(folder, 'upgraded.db');
    await upAndDown({
      upgraded: () => previousRelease(filename),
      openUpgraded: () => SqliteUserStore.open({ filename }),
      downgraded: () => previousRelease(join(folder, 'downgraded.db')),
    });
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it(CASE, async () => {
    const connect = (url: string) =>
      new Kysely<any>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: url }) }) });
    const upgraded = await createTestDatabase('session_methods_up');
    const downgraded = await createTestDatabase('session_methods_down');
    try {
      await upAndDown({
        upgraded: () => connect(upgraded.url),
        openUpgraded: () => PostgresUserStore.open({ connectionString: upgraded.url }),
        downgraded: () => connect(downgraded.url),
      });
    } finally {
      await upgraded.drop();
      await downgraded.drop();
    }
  });
});
