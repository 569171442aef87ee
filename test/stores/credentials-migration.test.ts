import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import argon2 from 'argon2';
import type { Kysely } from 'kysely';
import { recoveryCodeKey } from '../../src/services/second-factor/recovery-codes';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import type { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import { makeHarness, STRONG_PASSWORD, type Harness } from '../support/core-harness';
import { createTestDatabase } from '../support/postgres-database';
import { totpCode } from '../support/rfc6238';
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

const THIS = '2026-12-02-credentials';
const BEFORE = migrationsBefore(THIS);
/** The harness's clock starts here: every seeded session is live then. */
const T = Date.UTC(2026, 0, 1);
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const OTHER_PASSWORD = `${STRONG_PASSWORD}-other`;
/** Recovery codes of alice, as typed (normalised: no dashes). */
const CODES = ['abcdefghijklmnop', 'qrstuvwxyz234567'];
/** Tables this migration leaves alone: compared whole, before and after. */
const KEPT_TABLES = ['sessions', 'audit_events', 'outbox'] as const;
/** Tables it replaces: compared after going down again. */
const OLD_TABLES = ['users', 'second_factors', 'recovery_codes'] as const;

/** The raw token of a seeded session (a well-formed one: 43 base64url characters). */
const raw = (label: string) => `${label}-token-${'x'.repeat(40)}`.slice(0, 43);

const hashPassword = (password: string) =>
  argon2.hash(password, { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 });

/**
 * alice: a password, TOTP on and two recovery codes; bob: a password alone, another one; carol: a factor waiting for
 * its first code. Sessions, an audit row and queued mail, written as the previous release would.
 */
async function seedPreviousRelease(db: AnyReleaseDb, h: Harness): Promise<void> {
  const hashes = { alice: await hashPassword(STRONG_PASSWORD), bob: await hashPassword(OTHER_PASSWORD) };
  const user = (id: string, password_hash: string) => ({
    id,
    username: id,
    username_key: id,
    email: `${id}@example.com`,
    email_key: `${id}@example.com`,
    password_hash,
    verified: 1,
    created_at: T - 1000,
    updated_at: T - 1000,
  });
  await db
    .insertInto('users')
    .values([user('alice', hashes.alice), user('bob', hashes.bob), user('carol', hashes.bob)])
    .execute();
  const session = (label: string, user_id: string, amr: string) => ({
    token_hash: h.accounts['core'].tokens.hash(raw(label)),
    user_id,
    created_at: T - 100,
    expires_at: T + 9e9,
    last_seen_at: T,
    id: `id-of-${label}`,
    authenticated_at: T - 100,
    ip: '192.0.2.1',
    user_agent: 'Browser',
    amr,
  });
  await db
    .insertInto('sessions')
    .values([session('strong', 'alice', 'pwd otp mfa'), session('bobs', 'bob', 'pwd')])
    .execute();
  const sealer = h.accounts.secondFactors['sealer'];
  await db
    .insertInto('second_factors')
    .values([
      {
        user_id: 'alice',
        sealed_secret: sealer.seal(TOTP_SECRET, 'alice'),
        enabled: 1,
        created_at: T - 500,
        enabled_at: T - 400,
        last_used_step: 7,
      },
      {
        user_id: 'carol',
        sealed_secret: sealer.seal(TOTP_SECRET, 'carol'),
        enabled: 0,
        created_at: T - 300,
        enabled_at: null,
        last_used_step: null,
      },
    ])
    .execute();
  await db
    .insertInto('recovery_codes')
    .values(
      CODES.map((code) => ({
        code_hash: h.accounts['core'].tokens.hash(recoveryCodeKey('alice', code)),
        user_id: 'alice',
        created_at: T - 400,
      })),
    )
    .execute();
  await db
    .insertInto('audit_events')
    .values(aliceLoginEvent(T - 100))
    .execute();
  await db
    .insertInto('outbox')
    .values(queuedNoticeToAlice('m1', 'recoveryCodeUsed', T))
    .execute();
}

type Snapshot = Record<string, Record<string, unknown>[]>;

/** The rows of `tables`, numbers compared as numbers, in a stable order. */
async function snapshot(db: AnyReleaseDb, tables: readonly string[]): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const table of tables) {
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

/** On a store opened over the upgraded schema: everything kept, every account signs in with the same proofs. */
async function checkUpgraded(store: SqlUserStore, kept: Snapshot): Promise<void> {
  assert.deepEqual(await snapshot(store.db, KEPT_TABLES), kept, 'every session, event and message kept');
  const kinds = await store.db
    .selectFrom('credentials')
    .select(['user_id', 'kind'])
    .orderBy('user_id')
    .orderBy('kind')
    .execute();
  assert.deepEqual(
    kinds.map((row) => `${row.user_id}:${row.kind}`),
    [
      'alice:password',
      'alice:recovery_code',
      'alice:recovery_code',
      'alice:totp',
      'bob:password',
      'carol:password',
      'carol:totp',
    ],
  );

  const h = makeHarness({ store });
  const { accounts } = h;
  assert.deepEqual((await accounts.authenticateSession(raw('strong'))).methods, ['pwd', 'otp', 'mfa']);
  assert.deepEqual((await accounts.authenticateSession(raw('bobs'))).methods, ['pwd']);
  // The same password signs in; the same factor and recovery codes answer the challenge.
  assert.match(await accounts.login('bob', OTHER_PASSWORD), /^[A-Za-z0-9_-]{43}$/);
  const byCode = await accounts.signIn('alice', STRONG_PASSWORD);
  if (byCode.kind !== 'challenge') throw new Error('alice has a second factor');
  const code = totpCode(TOTP_SECRET, h.clock.now());
  assert.match(await accounts.secondFactors.completeSignIn(byCode.challengeToken, { code }), /^[A-Za-z0-9_-]{43}$/);
  assert.equal(await store.secondFactors.countRecoveryCodes('alice'), 2);
  const byRecovery = await accounts.signIn('alice', STRONG_PASSWORD);
  if (byRecovery.kind !== 'challenge') throw new Error('alice has a second factor');
  const recoveryCode = CODES[0];
  assert.ok(await accounts.secondFactors.completeSignIn(byRecovery.challengeToken, { recoveryCode }));
  assert.equal(await store.secondFactors.countRecoveryCodes('alice'), 1, 'a used code no longer counts');
  assert.equal((await store.secondFactors.get('carol'))?.enabled, false, 'a waiting factor still waits');

  const used = await store.db
    .selectFrom('credentials')
    .select(['kind', 'last_used_at'])
    .where('user_id', '=', 'alice')
    .where('last_used_at', 'is not', null)
    .execute();
  assert.deepEqual(used.map((row) => row.kind).sort(), ['password', 'recovery_code', 'totp'], 'each use recorded');
}

/** Down again: the old columns and tables, and the same rows; an account without a password gets one that fails. */
async function checkDown(db: AnyReleaseDb, before: Snapshot): Promise<void> {
  await migrateDownTo(db, BEFORE[BEFORE.length - 1]);
  assert.deepEqual(await snapshot(db, [...OLD_TABLES, ...KEPT_TABLES]), before);
}

async function noPasswordGoesDown(db: AnyReleaseDb, _before: Snapshot): Promise<void> {
  // No release makes an account without a password yet: take one away by hand.
  await db.deleteFrom('credentials').where('user_id', '=', 'carol').where('kind', '=', 'password').execute();
  await migrateDownTo(db, BEFORE[BEFORE.length - 1]);
  const carol = await db.selectFrom('users').select('password_hash').where('id', '=', 'carol').executeTakeFirst();
  assert.match(String(carol?.password_hash), /^\$argon2id\$/);
  assert.equal(await argon2.verify(String(carol?.password_hash), ''), false);
  assert.equal(await argon2.verify(String(carol?.password_hash), OTHER_PASSWORD), false);
}

interface Databases {
  /** The one a store upgrades as it opens (each call a new connection to it). */
  upgraded(): AnyReleaseDb;
  openUpgraded(): Promise<SqlUserStore>;
  /** The ones that go up and down again. */
  downgraded(): AnyReleaseDb;
  withoutPassword(): AnyReleaseDb;
}

async function seeded(db: AnyReleaseDb, h: Harness): Promise<Snapshot> {
  await migrateTo(db, BEFORE);
  await seedPreviousRelease(db, h);
  return snapshot(db, [...OLD_TABLES, ...KEPT_TABLES]);
}

async function upAndDown(databases: Databases): Promise<void> {
  const h = makeHarness();
  const previous = databases.upgraded();
  const before = await seeded(previous, h);
  await previous.destroy();
  const store = await databases.openUpgraded();
  try {
    await checkUpgraded(store, Object.fromEntries(KEPT_TABLES.map((table) => [table, before[table]])));
  } finally {
    await store.close();
  }
  for (const [open, check] of [
    [databases.downgraded, checkDown],
    [databases.withoutPassword, noPasswordGoesDown],
  ] as const) {
    const db: Kysely<any> = open();
    try {
      const seededHere = await seeded(db, h);
      await migrateTo(db, [...BEFORE, THIS]);
      await check(db, seededHere);
    } finally {
      await db.destroy();
    }
  }
}

const CASE = 'moves every credential over, signs in with each as before, and goes down again';

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-credentials-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it(CASE, async () => {
    const filename = join(folder, 'upgraded.db');
    await upAndDown({
      upgraded: () => sqliteAsPreviousRelease(filename),
      openUpgraded: () => SqliteUserStore.open({ filename }),
      downgraded: () => sqliteAsPreviousRelease(join(folder, 'downgraded.db')),
      withoutPassword: () => sqliteAsPreviousRelease(join(folder, 'without-password.db')),
    });
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it(CASE, async () => {
    const upgraded = await createTestDatabase('credentials_up');
    const downgraded = await createTestDatabase('credentials_down');
    const withoutPassword = await createTestDatabase('credentials_nopw');
    try {
      await upAndDown({
        upgraded: () => postgresAsPreviousRelease(upgraded.url),
        openUpgraded: () => PostgresUserStore.open({ connectionString: upgraded.url }),
        downgraded: () => postgresAsPreviousRelease(downgraded.url),
        withoutPassword: () => postgresAsPreviousRelease(withoutPassword.url),
      });
    } finally {
      await upgraded.drop();
      await downgraded.drop();
      await withoutPassword.drop();
    }
  });
});
