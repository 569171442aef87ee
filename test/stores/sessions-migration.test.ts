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

const THIS = '2026-11-26-sessions-and-email-changes';
/** The schema as the release before this migration left it. */
const BEFORE = Object.keys(migrations).slice(0, Object.keys(migrations).indexOf(THIS));
const T = Date.UTC(2030, 0, 1);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Users with sessions, tokens and messages, written as the previous release would have. */
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
  });
  await db
    .insertInto('sessions')
    .values([session('s1', 'alice', T), session('s2', 'alice', T + 10), session('s3', 'bob', T + 20)])
    .execute();
  await db
    .insertInto('tokens')
    .values({ token_hash: 't1', user_id: 'alice', purpose: 'reset_password', expires_at: T + 9e9 })
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
    .values([message('m1', 'passwordReset', 'pending', 'v1.sealed'), message('m2', 'passwordChanged', 'sent', null)])
    .execute();
}

const TABLES = ['users', 'sessions', 'tokens', 'outbox'] as const;

/**
 * Columns later migrations add (2026-11-28-administration-and-audit, 2026-12-01-session-methods): not this
 * migration's business.
 */
const LATER_COLUMNS = ['disabled_at', 'last_sign_in_at', 'credential_epoch'];

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

/** What the upgrade must keep, fill in and now allow, on a store opened over the upgraded schema. */
async function checkUpgraded(store: SqlUserStore, before: Record<string, Record<string, unknown>[]>): Promise<void> {
  const after = await snapshot(store.db);
  assert.deepEqual(after.users, before.users);
  assert.deepEqual(after.tokens, before.tokens);
  assert.deepEqual(after.outbox, before.outbox, 'every message kept as it was');
  assert.deepEqual(
    after.sessions.map((row) =>
      Object.fromEntries(Object.entries(row).filter(([column]) => column in before.sessions[0])),
    ),
    before.sessions,
    'every session kept as it was',
  );

  // Every session still validates, with a random public id of its own and its login as its authentication.
  const ids = new Set<string>();
  for (const [tokenHash, userId, createdAt] of [
    ['s1', 'alice', T],
    ['s2', 'alice', T + 10],
    ['s3', 'bob', T + 20],
  ] as const) {
    const found = await store.sessions.findWithUser(tokenHash);
    assert.equal(found?.user.id, userId, `${tokenHash} still joins its user`);
    assert.match(found.session.id, UUID);
    ids.add(found.session.id);
    assert.deepEqual(
      [found.session.authenticatedAt, found.session.ip, found.session.userAgent],
      [new Date(createdAt), null, null],
    );
  }
  assert.equal(ids.size, 3, 'each session got an id of its own');

  const listed = await store.sessions.list('alice');
  assert.deepEqual(
    listed.map((session) => session.tokenHash),
    ['s2', 's1'],
  );
  assert.equal(await store.transaction((tx) => tx.sessions.deleteById('bob', listed[0].id)), false, 'not bob’s');
  assert.equal(await store.transaction((tx) => tx.sessions.deleteById('alice', listed[0].id)), true);
  assert.equal(await store.sessions.findWithUser('s2'), null);

  // The new kinds are accepted, an unknown one still refused; a change of address can be stored and confirmed.
  const change = {
    tokenHash: 'change-1',
    userId: 'alice',
    newEmail: 'Alice@New.example',
    newEmailKey: 'alice@new.example',
    createdAt: new Date(T),
    expiresAt: new Date(T + 3_600_000),
    endOtherSessions: true,
    keepSessionId: listed[1].id,
  };
  // The link and the notice, composed in the request's transaction as the core does.
  const requested = await store.transaction(async (tx) => {
    const result = await tx.emailChanges.request(change, 's1');
    if (!result.ok) return result;
    const { user } = result;
    if (!result.owner) {
      await tx.outbox.add(
        { id: 'm3', kind: 'emailChange', sealedToken: 'v1.x', createdAt: new Date(T), giveUpAt: new Date(T + 1) },
        { id: user.id, username: user.username, email: change.newEmail },
      );
    }
    await tx.outbox.add(
      { id: 'm4', kind: 'emailChangeRequested', sealedToken: null, createdAt: new Date(T), giveUpAt: new Date(T + 1) },
      user,
    );
    return result;
  });
  assert.ok(requested.ok && requested.owner === null);
  const confirmed = await store.transaction(async (tx) => {
    const result = await tx.emailChanges.confirm('change-1', new Date(T + 1));
    if (result.outcome !== 'changed') return result;
    const { user, previousEmail } = result;
    await tx.outbox.add(
      { id: 'm5', kind: 'emailChanged', sealedToken: null, createdAt: new Date(T), giveUpAt: new Date(T + 1) },
      { id: user.id, username: user.username, email: previousEmail },
    );
    return result;
  });
  assert.equal(confirmed.outcome, 'changed');
  assert.ok(await store.sessions.findWithUser('s1'), 'the session that asked is kept');
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
  await assert.rejects(
    sql`insert into sessions (token_hash, user_id, created_at, expires_at, last_seen_at, id, authenticated_at)
      values ('s9', 'bob', 0, 0, 0, ${ids.values().next().value}, 0)`.execute(store.db),
    'a public id is unique',
  );

  // An instance of the previous release, still running during the upgrade, names only the old columns: its logins
  // work, and their sessions count as never re-authenticated.
  await sql`insert into sessions (token_hash, user_id, created_at, expires_at, last_seen_at)
    values ('old-release', 'bob', ${T}, ${T + 9e9}, ${T})`.execute(store.db);
  const old = await store.sessions.findWithUser('old-release');
  assert.match(old?.session.id ?? '', UUID);
  assert.deepEqual(old?.session.authenticatedAt, new Date(0));
}

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-sessions-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  async function previousRelease(filename: string): Promise<Kysely<any>> {
    // Through openSqlite: a statement left to the garbage collector aborts Node 24 (see sqlite-statement-cache).
    const database = openSqlite(filename);
    database.exec('PRAGMA foreign_keys = ON');
    return new Kysely<any>({ dialect: new SqliteDialect({ database }) });
  }

  it('keeps every session valid with a new id, keeps the outbox with its indexes, and adds email changes', async () => {
    const filename = join(folder, 'gatehouse.db');
    const previous = await previousRelease(filename);
    await migrateTo(previous, BEFORE);
    await seedPreviousRelease(previous);
    const before = await snapshot(previous);
    await previous.destroy();

    const store = await SqliteUserStore.open({ filename });
    try {
      const indexes = await sql<{ name: string; tbl_name: string }>`select name, tbl_name from sqlite_master
        where type = 'index' and tbl_name in ('sessions', 'outbox', 'email_changes') and name not like 'sqlite_%'
        order by name`.execute(store.db);
      assert.deepEqual(
        indexes.rows.map((row) => row.name),
        [
          'email_changes_expires_at_index',
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
      // Foreign keys still cascade from users to sessions and to the new table.
      await store.db.deleteFrom('users').where('id', '=', 'alice').execute();
      assert.equal(await store.sessions.findWithUser('s1'), null);
      assert.deepEqual(await store.db.selectFrom('email_changes').selectAll().execute(), []);
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
      const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateDown();
      if (error) throw error;
      assert.deepEqual(await snapshot(db), before);
    } finally {
      await db.destroy();
    }
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it('keeps every session valid with a new id, changes the outbox check in place, and adds email changes', async () => {
    const database = await createTestDatabase('sessions_migration');
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
      } finally {
        await store.close();
      }
      const db = new Kysely<any>({
        dialect: new PostgresDialect({ pool: new Pool({ connectionString: database.url }) }),
      });
      try {
        // Down again: what the migration added goes (the messages of the new kinds first, or the old check refuses),
        // and what later migrations added before it.
        await db.deleteFrom('outbox').where('kind', 'like', 'emailChange%').execute();
        const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateTo(
          BEFORE[BEFORE.length - 1],
        );
        if (error) throw error;
        const { rows } = await sql<{ column_name: string }>`select column_name from information_schema.columns
          where table_name = 'sessions' order by column_name`.execute(db);
        assert.deepEqual(
          rows.map((row) => row.column_name),
          ['created_at', 'expires_at', 'last_seen_at', 'token_hash', 'user_id'],
        );
      } finally {
        await db.destroy();
      }
    } finally {
      await database.drop();
    }
  });
});
