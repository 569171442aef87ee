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

const THIS = '2026-11-27-second-factor';
/** The schema as the release before this migration left it. */
const BEFORE = Object.keys(migrations).slice(0, Object.keys(migrations).indexOf(THIS));
const T = Date.UTC(2030, 0, 1);

/** Users with sessions, tokens, a pending change of address and messages, written as the previous release would. */
async function seedPreviousRelease(db: Kysely<any>): Promise<void> {
  const user = (id: string) => ({
    id,
    username: id,
    username_key: id,
    email: `${id}@example.com`,
    email_key: `${id}@example.com`,
    password_hash: `$argon2id$fake$${id}`,
    verified: 1,
    created_at: T,
    updated_at: T,
  });
  await db
    .insertInto('users')
    .values([user('alice'), user('bob')])
    .execute();
  const session = (token_hash: string, user_id: string, created_at: number) => ({
    token_hash,
    user_id,
    created_at,
    expires_at: T + 9e9,
    last_seen_at: created_at + 5,
    id: `id-of-${token_hash}`,
    authenticated_at: created_at + 1,
    ip: '192.0.2.1',
    user_agent: 'Browser',
  });
  await db
    .insertInto('sessions')
    .values([session('s1', 'alice', T), session('s2', 'alice', T + 10), session('s3', 'bob', T + 20)])
    .execute();
  await db
    .insertInto('tokens')
    .values({ token_hash: 't1', user_id: 'alice', purpose: 'reset_password', expires_at: T + 9e9 })
    .execute();
  await db
    .insertInto('email_changes')
    .values({
      token_hash: 'c1',
      user_id: 'bob',
      new_email: 'bob@new.example',
      new_email_key: 'bob@new.example',
      created_at: T,
      expires_at: T + 9e9,
      end_other_sessions: 1,
      keep_session_id: 'id-of-s3',
    })
    .execute();
  const message = (id: string, kind: string, status: string, sealed_token: string | null) => ({
    id,
    kind,
    user_id: 'alice',
    username: 'alice',
    email: 'alice@example.com',
    sealed_token,
    status,
    attempts: status === 'pending' ? 0 : 1,
    next_attempt_at: T,
    give_up_at: T + 9e9,
    claim_id: null,
    last_error: null,
    created_at: T,
    updated_at: T,
    sent_at: status === 'sent' ? T : null,
  });
  await db
    .insertInto('outbox')
    .values([
      message('m1', 'passwordReset', 'pending', 'v1.sealed'),
      message('m2', 'emailChanged', 'sent', null),
      message('m3', 'emailChangeAttempt', 'failed', null),
    ])
    .execute();
}

const TABLES = ['users', 'sessions', 'tokens', 'email_changes', 'outbox'] as const;

/**
 * Columns later migrations add (2026-11-28-administration-and-audit, 2026-12-01-session-methods, which also turns
 * `second_factor` into `amr`): not this migration's business.
 */
const LATER_COLUMNS = ['disabled_at', 'last_sign_in_at', 'credential_epoch', 'amr'];

async function snapshot(db: Kysely<any>): Promise<Record<string, Record<string, unknown>[]>> {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const table of TABLES) {
    const rows = await rowsInShapeBeforeCredentials(db, table);
    // Instants and counters come back as numbers (SQLite) or strings (PostgreSQL int8): compared as numbers.
    out[table] = rows
      .map((row) =>
        Object.fromEntries(
          Object.entries(row)
            .filter(([key]) => !LATER_COLUMNS.includes(key))
            .map(([key, value]) => [key, /_at$/.test(key) && value !== null ? Number(value) : value]),
        ),
      )
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

async function migrateTo(db: Kysely<any>, names: string[]): Promise<void> {
  const provider = { getMigrations: async () => Object.fromEntries(names.map((name) => [name, migrations[name]])) };
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error;
}

/** Back to the schema of the previous release, undoing whatever later migrations did first. */
async function migrateDown(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo(BEFORE[BEFORE.length - 1]);
  if (error) throw error;
}

/** What the upgrade must keep, fill in and now allow, on a store opened over the upgraded schema. */
async function checkUpgraded(store: SqlUserStore, before: Record<string, Record<string, unknown>[]>): Promise<void> {
  const after = await snapshot(store.db);
  for (const table of ['users', 'tokens', 'email_changes', 'outbox'] as const) {
    assert.deepEqual(after[table], before[table], `every row of ${table} kept as it was`);
  }
  assert.deepEqual(
    after.sessions.map(({ second_factor, ...row }) => {
      assert.equal(second_factor, undefined, 'a later migration records the methods instead');
      return row;
    }),
    before.sessions,
    'every session kept as it was',
  );

  // Every session still validates, as made without a second factor.
  for (const [tokenHash, userId] of [
    ['s1', 'alice'],
    ['s2', 'alice'],
    ['s3', 'bob'],
  ] as const) {
    const found = await store.sessions.findWithUser(tokenHash);
    assert.equal(found?.user.id, userId, `${tokenHash} still joins its user`);
    assert.deepEqual(found.session.methods, ['pwd']);
    assert.equal(found.session.id, `id-of-${tokenHash}`);
  }
  assert.deepEqual(
    (await store.sessions.list('alice')).map((session) => [session.tokenHash, session.methods.includes('mfa')]),
    [
      ['s2', false],
      ['s1', false],
    ],
  );

  // The new tables work through the store, the new kinds are accepted, an unknown one still refused.
  const factor = {
    userId: 'alice',
    sealedSecret: 'v1.sealed',
    enabled: false,
    createdAt: new Date(T),
    enabledAt: null,
    lastUsedStep: null,
  };
  assert.equal(await store.transaction((tx) => tx.secondFactors.start(factor)), true);
  const notice = (id: string, kind: 'secondFactorEnabled' | 'recoveryCodeUsed') => ({
    id,
    kind,
    sealedToken: null,
    createdAt: new Date(T),
    giveUpAt: new Date(T + 1),
  });
  assert.equal(
    await store.transaction(async (tx) => {
      const enabled = await tx.secondFactors.enable({
        userId: 'alice',
        sealedSecret: 'v1.sealed',
        step: 5,
        recoveryCodeHashes: ['code-1', 'code-2'],
        now: new Date(T),
      });
      if (enabled) await tx.outbox.add(notice('m4', 'secondFactorEnabled'), enabled.user);
      return enabled !== null;
    }),
    true,
  );
  assert.equal(await store.transaction((tx) => tx.secondFactors.useTotpStep('alice', 6, new Date(T))), true);
  assert.equal(
    await store.transaction(async (tx) => {
      const user = await tx.secondFactors.consumeRecoveryCode('alice', 'code-1', new Date(T));
      if (user) await tx.outbox.add(notice('m5', 'recoveryCodeUsed'), user);
      return user !== null;
    }),
    true,
  );
  await store.transaction((tx) =>
    tx.loginChallenges.create({
      tokenHash: 'challenge-1',
      userId: 'alice',
      credentialEpoch: 0,
      attempts: 0,
      createdAt: new Date(T),
      expiresAt: new Date(T + 300_000),
      ip: null,
      userAgent: null,
      firstFactor: 'pwd',
    }),
  );
  assert.equal(
    (await store.transaction((tx) => tx.loginChallenges.takeAttempt('challenge-1', new Date(T), 5)))?.attempts,
    1,
  );
  // The table refused an unknown kind until 2026-11-30-kinds-checked-in-code; the store refuses it since.
  const unknownKind = {
    id: 'm9',
    kind: 'somethingElse' as never,
    sealedToken: null,
    createdAt: new Date(T),
    giveUpAt: new Date(T + 1),
  };
  await assert.rejects(
    store.transaction((tx) => tx.outbox.add(unknownKind, { id: 'alice', username: 'alice', email: 'a@example.com' })),
    /unknown outbox message kind/,
  );

  // A session made with a second factor says so.
  assert.equal(
    await store.transaction((tx) =>
      tx.sessions.create({
        tokenHash: 's-strong',
        id: 'id-of-s-strong',
        userId: 'alice',
        createdAt: new Date(T),
        expiresAt: new Date(T + 9e9),
        lastSeenAt: new Date(T),
        authenticatedAt: new Date(T),
        ip: null,
        userAgent: null,
        methods: ['pwd', 'otp', 'mfa'],
        credentialEpoch: 0,
      }),
    ),
    true,
  );
  assert.deepEqual((await store.sessions.findWithUser('s-strong'))?.session.methods, ['pwd', 'otp', 'mfa']);

  // An instance of the previous release, still running during the upgrade, names only the columns it knows: its
  // logins work, and their sessions count as made without a second factor.
  await sql`insert into sessions (token_hash, user_id, created_at, expires_at, last_seen_at, id, authenticated_at)
    values ('old-release', 'bob', ${T}, ${T + 9e9}, ${T}, 'id-of-old-release', ${T})`.execute(store.db);
  assert.deepEqual((await store.sessions.findWithUser('old-release'))?.session.methods, ['pwd']);
}

/** The rows of the new tables (credentials since 2026-12-02-credentials); with the user gone, none (they cascade). */
async function secondFactorRows(db: Kysely<any>): Promise<number[]> {
  const counts: number[] = [];
  for (const table of ['second_factors', 'recovery_codes', 'login_challenges']) {
    counts.push((await rowsInShapeBeforeCredentials(db, table)).length);
  }
  return counts;
}

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-second-factor-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  async function previousRelease(filename: string): Promise<Kysely<any>> {
    // Through openSqlite: a statement left to the garbage collector aborts Node 24 (see sqlite-statement-cache).
    const database = openSqlite(filename);
    database.exec('PRAGMA foreign_keys = ON');
    return new Kysely<any>({ dialect: new SqliteDialect({ database }) });
  }

  it('keeps every session valid and the outbox with its indexes, and adds the second factor’s tables', async () => {
    const filename = join(folder, 'gatehouse.db');
    const previous = await previousRelease(filename);
    await migrateTo(previous, BEFORE);
    await seedPreviousRelease(previous);
    const before = await snapshot(previous);
    await previous.destroy();

    const store = await SqliteUserStore.open({ filename });
    try {
      const indexes = await sql<{ name: string }>`select name from sqlite_master
        where type = 'index' and tbl_name in ('outbox', 'credentials', 'login_challenges', 'sessions')
          and name not like 'sqlite_%'
        order by name`.execute(store.db);
      assert.deepEqual(
        indexes.rows.map((row) => row.name),
        [
          // The factor and its codes are credentials since 2026-12-02-credentials.
          // Passkeys' credential ids since 2026-12-03-passkeys.
          'credentials_identifier_index',
          'credentials_one_per_user_index',
          'credentials_recovery_code_index',
          'credentials_user_kind_index',
          'login_challenges_expires_at_index',
          'login_challenges_user_id_index',
          'outbox_status_due_index',
          'outbox_updated_at_index',
          'outbox_user_kind_index',
          'sessions_expires_at_index',
          'sessions_id_unique',
          'sessions_last_seen_at_index',
          'sessions_user_id_index',
        ],
      );
      const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_temp_master`.execute(store.db);
      assert.deepEqual(rows, [{ n: 0 }], 'no temporary table left behind');
      await checkUpgraded(store, before);
      const broken = await sql`pragma foreign_key_check`.execute(store.db);
      assert.deepEqual(broken.rows, []);

      assert.deepEqual(await secondFactorRows(store.db), [1, 1, 1]);
      await store.db.deleteFrom('users').where('id', '=', 'alice').execute();
      assert.deepEqual(await secondFactorRows(store.db), [0, 0, 0], 'the foreign keys cascade');
    } finally {
      await store.close();
    }
  });

  it('goes down again to the previous schema, keeping the sessions and messages', async () => {
    const db = await previousRelease(join(folder, 'gatehouse.db'));
    try {
      await migrateTo(db, BEFORE);
      await seedPreviousRelease(db);
      const before = await snapshot(db);
      await migrateTo(db, [...BEFORE, THIS]);
      await migrateDown(db);
      assert.deepEqual(await snapshot(db), before);
      const { rows } = await sql<{ name: string }>`select name from sqlite_master
        where name in ('second_factors', 'recovery_codes', 'login_challenges')`.execute(db);
      assert.deepEqual(rows, []);
      await assert.rejects(
        sql`insert into outbox (id, kind, user_id, username, email, status, next_attempt_at, give_up_at, created_at,
          updated_at) values ('m9', 'recoveryCodeUsed', 'alice', 'alice', 'a@example.com', 'pending', 0, 0, 0, 0)`.execute(
          db,
        ),
        'the old check is back',
      );
    } finally {
      await db.destroy();
    }
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it('keeps every session valid, changes the outbox check in place, adds the tables, and goes down again', async () => {
    const database = await createTestDatabase('second_factor_migration');
    try {
      const previous = new Kysely<any>({
        dialect: new PostgresDialect({ pool: new Pool({ connectionString: database.url }) }),
      });
      await migrateTo(previous, BEFORE);
      await seedPreviousRelease(previous);
      const before = await snapshot(previous);
      await previous.destroy();

      const store = await PostgresUserStore.open({ connectionString: database.url });
      try {
        await checkUpgraded(store, before);
        assert.deepEqual(await secondFactorRows(store.db), [1, 1, 1]);
        await store.db.deleteFrom('users').where('id', '=', 'alice').execute();
        assert.deepEqual(await secondFactorRows(store.db), [0, 0, 0], 'the foreign keys cascade');
      } finally {
        await store.close();
      }
      const db = new Kysely<any>({
        dialect: new PostgresDialect({ pool: new Pool({ connectionString: database.url }) }),
      });
      try {
        // Down again: what the migration added goes (the messages of the new kinds first, or the old check refuses).
        await db.deleteFrom('outbox').where('kind', 'in', ['secondFactorEnabled', 'recoveryCodeUsed']).execute();
        await migrateDown(db);
        const { rows } = await sql<{ column_name: string }>`select column_name from information_schema.columns
          where table_name = 'sessions' order by column_name`.execute(db);
        assert.deepEqual(
          rows.map((row) => row.column_name),
          [
            'authenticated_at',
            'created_at',
            'expires_at',
            'id',
            'ip',
            'last_seen_at',
            'token_hash',
            'user_agent',
            'user_id',
          ],
        );
        const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables
          where table_name in ('second_factors', 'recovery_codes', 'login_challenges')`.execute(db);
        assert.deepEqual(tables.rows, []);
        await assert.rejects(
          db.updateTable('outbox').set({ kind: 'recoveryCodeUsed' }).where('id', '=', 'm2').execute(),
          'the old check is back',
        );
      } finally {
        await db.destroy();
      }
    } finally {
      await database.drop();
    }
  });
});
