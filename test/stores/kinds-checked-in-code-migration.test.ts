import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { OutboxWorker } from '../../src/outbox/outbox-worker';
import { ManualClock } from '../../src/services/manual-clock';
import { migrations } from '../../src/stores/sql/migrate';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import type { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import { openSqlite } from '../../src/stores/sql/sqlite-statement-cache';
import { createTestDatabase } from '../support/postgres-database';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { describeWithService } from '../support/services';

const THIS = '2026-11-30-kinds-checked-in-code';
/** The schema as the release before this migration left it. */
const BEFORE = Object.keys(migrations).slice(0, Object.keys(migrations).indexOf(THIS));
const T = Date.UTC(2030, 0, 1);
const SECRET = 'kinds-migration-test-secret-0123456789-abcdef';

/** Queued, sent and failed mail and two audit events, written as the previous release would. */
async function seedPreviousRelease(db: Kysely<any>): Promise<void> {
  await db
    .insertInto('users')
    .values({
      id: 'alice',
      username: 'alice',
      username_key: 'alice',
      email: 'alice@example.com',
      email_key: 'alice@example.com',
      password_hash: '$argon2id$fake$alice',
      verified: 1,
      created_at: T,
      updated_at: T,
    })
    .execute();
  await db
    .insertInto('outbox')
    .values([
      outboxRow('m1', 'recoveryCodeUsed', 'pending'),
      outboxRow('m2', 'emailChanged', 'sent'),
      outboxRow('m3', 'passwordChanged', 'failed'),
    ])
    .execute();
  const event = (id: string, type: string, at: number) => ({
    id,
    at,
    type,
    outcome: 'success',
    actor_type: 'user',
    actor_id: 'alice',
    subject_id: 'alice',
    ip: '192.0.2.1',
    request_id: null,
    details: null,
  });
  await db
    .insertInto('audit_events')
    .values([event('e1', 'login', T), event('e2', 'recovery_code_used', T + 1)])
    .execute();
}

function outboxRow(id: string, kind: string, status: string) {
  return {
    id,
    kind,
    user_id: 'alice',
    username: 'alice',
    email: 'alice@example.com',
    sealed_token: null,
    status,
    attempts: status === 'pending' ? 0 : 1,
    next_attempt_at: T,
    give_up_at: T + 9e9,
    claim_id: null,
    last_error: status === 'failed' ? 'EmailDeliveryError:EENVELOPE:550' : null,
    created_at: T,
    updated_at: T,
    sent_at: status === 'sent' ? T : null,
  };
}

type Snapshot = Record<'outbox' | 'audit_events', Record<string, unknown>[]>;

/** The rows of the two tables, in the columns the previous release knew, numbers compared as numbers. */
async function snapshot(db: Kysely<any>, columnsOf?: Snapshot): Promise<Snapshot> {
  const out = {} as Snapshot;
  for (const table of ['outbox', 'audit_events'] as const) {
    const known = columnsOf ? Object.keys(columnsOf[table][0]) : undefined;
    const rows = await db.selectFrom(table).selectAll().orderBy('id').execute();
    // Instants and counters come back as numbers (SQLite) or strings (PostgreSQL int8).
    out[table] = rows.map((row) =>
      Object.fromEntries(
        Object.entries(row)
          .filter(([key]) => known === undefined || known.includes(key))
          .map(([key, value]) => [key, /_at$|^at$|attempts/.test(key) && value !== null ? Number(value) : value]),
      ),
    );
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

const insertUnknownKind = (db: Kysely<any>) => db.insertInto('outbox').values(outboxRow('m4', 'laterKind', 'pending'));

/**
 * On a store opened over the upgraded schema: every row kept; a kind the database once refused (a later release's)
 * is stored, and the worker fails that message with its reason while it sends the others.
 */
async function checkUpgraded(store: SqlUserStore, before: Snapshot): Promise<void> {
  assert.deepEqual(await snapshot(store.db, before), before, 'queued mail and audit rows kept as they were');
  await insertUnknownKind(store.db).execute();

  const sender = new RecordingEmailSender();
  const worker = new OutboxWorker({ store, sender, secretKey: SECRET, clock: new ManualClock(new Date(T + 1000)) });
  await worker.drain();
  assert.deepEqual(sender.sent, [{ operation: 'sendRecoveryCodeUsed', username: 'alice', email: 'alice@example.com' }]);
  const outcomes = (await store.outbox.list()).map(({ id, status, lastError }) => ({ id, status, lastError }));
  assert.deepEqual(
    outcomes.sort((a, b) => a.id.localeCompare(b.id)),
    [
      { id: 'm1', status: 'sent', lastError: null },
      { id: 'm2', status: 'sent', lastError: null },
      { id: 'm3', status: 'failed', lastError: 'EmailDeliveryError:EENVELOPE:550' },
      { id: 'm4', status: 'failed', lastError: 'UnknownKind:EUNKNOWNKIND' },
    ],
  );
  assert.deepEqual(
    (await store.audit.list({ limit: 10 })).map((event) => event.type),
    ['recovery_code_used', 'login'],
  );
}

/** Down again: refused while a message of a kind the old constraint does not name is kept, then the rows as before. */
async function checkDown(db: Kysely<any>, before: Snapshot): Promise<void> {
  await assert.rejects(migrateDown(db), /kinds the previous release does not know/);
  await db.deleteFrom('outbox').where('id', '=', 'm4').execute();
  // The worker's outcome for m1, undone so the rows compare with the seed.
  await db
    .updateTable('outbox')
    .set({ status: 'pending', attempts: 0, sent_at: null, next_attempt_at: T, updated_at: T })
    .where('id', '=', 'm1')
    .execute();
  await migrateDown(db);
  assert.deepEqual(await snapshot(db, before), before, 'queued mail and audit rows kept on the way down');
  await assert.rejects(insertUnknownKind(db).execute(), 'the constraint is back');
}

describe(`migration ${THIS} (SQLite)`, () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-kinds-migration-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  function open(filename: string): Kysely<any> {
    // Through openSqlite: a statement left to the garbage collector aborts Node 24 (see sqlite-statement-cache).
    const database = openSqlite(filename);
    database.exec('PRAGMA foreign_keys = ON');
    return new Kysely<any>({ dialect: new SqliteDialect({ database }) });
  }

  it('keeps every message, event and index of the outbox, stores any kind, and goes down again', async () => {
    const filename = join(folder, 'gatehouse.db');
    const previous = open(filename);
    await migrateTo(previous, BEFORE);
    await seedPreviousRelease(previous);
    const before = await snapshot(previous);
    await assert.rejects(insertUnknownKind(previous).execute(), 'the previous release refused an unknown kind');
    await previous.destroy();

    const store = await SqliteUserStore.open({ filename });
    try {
      const indexes = await sql<{ name: string }>`select name from sqlite_master
        where type = 'index' and tbl_name = 'outbox' and name not like 'sqlite_%' order by name`.execute(store.db);
      assert.deepEqual(
        indexes.rows.map((row) => row.name),
        ['outbox_status_due_index', 'outbox_updated_at_index', 'outbox_user_kind_index'],
      );
      const table = await sql<{ sql: string }>`select sql from sqlite_master where name = 'outbox'`.execute(store.db);
      assert.doesNotMatch(table.rows[0].sql, /outbox_kind_check/);
      assert.match(table.rows[0].sql, /outbox_status_check/);
      await checkUpgraded(store, before);
    } finally {
      await store.close();
    }
    const db = open(filename);
    try {
      await checkDown(db, before);
    } finally {
      await db.destroy();
    }
  });
});

describeWithService('postgres', `migration ${THIS} (PostgreSQL)`, function () {
  this.timeout(30_000);
  it('keeps every message and event, stores any kind, and goes down again', async () => {
    const database = await createTestDatabase('kinds_migration');
    const connect = () =>
      new Kysely<any>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: database.url }) }) });
    try {
      const previous = connect();
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
      const db = connect();
      try {
        await checkDown(db, before);
      } finally {
        await db.destroy();
      }
    } finally {
      await database.drop();
    }
  });
});
