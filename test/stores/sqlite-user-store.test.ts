import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { describeUserStoreConformance } from '../../src/stores/conformance';
import { migrateToLatest, migrations } from '../../src/stores/sql/migrate';
import { sqliteCapabilities } from '../../src/stores/sql/sqlite-capabilities';
import { openSqlite } from '../../src/stores/sql/sqlite-statement-cache';
import { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { isSelect, PauseAfterQuery } from './pause-plugin';
import { DAY_LATER, register, sessionRow, T0, token } from './sql-fixtures';
import { describeSqlStore } from './sql-store-suite';
import { makeTempFolder } from './temp-folder';
import { enqueue } from '../support/store-writes';

const folders = new WeakMap<SqliteUserStore, { remove(): void }>();

describeUserStoreConformance(
  'SqliteUserStore',
  async () => {
    const folder = makeTempFolder();
    const store = await SqliteUserStore.open({ filename: path.join(folder.path, 'gatehouse.db') });
    folders.set(store, folder);
    return store;
  },
  async (store) => folders.get(store)?.remove(),
);

{
  let folder: ReturnType<typeof makeTempFolder>;
  let filename = '';
  describeSqlStore('SQLite', {
    capabilities: () => sqliteCapabilities(filename),
    async setUp() {
      folder = makeTempFolder();
      filename = path.join(folder.path, 'gatehouse.db');
    },
    open: () => SqliteUserStore.open({ filename }),
    async tearDown() {
      folder.remove();
    },
    async failOn(store, event, table) {
      await sql`create trigger injected_failure before ${sql.raw(event)} on ${sql.table(table)}
        begin select raise(abort, 'injected failure'); end`.execute(store.db);
      return async () => {
        await sql`drop trigger injected_failure`.execute(store.db);
      };
    },
  });
}

describe('SqliteUserStore on a real file', () => {
  let folder: ReturnType<typeof makeTempFolder>;
  let filename: string;
  const opened: SqliteUserStore[] = [];

  async function open(): Promise<SqliteUserStore> {
    const store = await SqliteUserStore.open({ filename });
    opened.push(store);
    return store;
  }

  beforeEach(() => {
    folder = makeTempFolder();
    filename = path.join(folder.path, 'nested', 'data', 'gatehouse.db');
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    folder.remove();
  });

  describe('commits', () => {
    it('commit the outbox claims and marks, a new session and its idle window at synchronous=NORMAL, then set FULL back; every other write at FULL', async () => {
      const statements: string[] = [];
      const store = await SqliteUserStore.open({
        filename,
        log: (event) => void statements.push(event.query.sql.toLowerCase()),
      });
      opened.push(store);
      const { user } = await register(store, 'alice');
      const notice = { id: 'message-1', kind: 'passwordChanged' as const, sealedToken: null, createdAt: T0 };
      assert.equal(await enqueue(store, user.id, { ...notice, giveUpAt: DAY_LATER }), true);
      assert.ok(!statements.some((text) => text.includes('synchronous')), statements.join('\n'));

      const bookkeeping = async (step: () => Promise<unknown>) => {
        statements.length = 0;
        await step();
        return statements.splice(0);
      };
      const claimed: { id: string }[] = [];
      for (const run of [
        await bookkeeping(async () => claimed.push(...(await store.outbox.claimDue(T0, DAY_LATER, 5)))),
        await bookkeeping(() => store.outbox.markSent(claimed[0].id, T0)),
        await bookkeeping(() =>
          store.transaction((tx) => tx.sessions.create(sessionRow(user.id, 'session-1')), {
            durable: false,
          }),
        ),
        await bookkeeping(() => store.sessions.touch('session-1', DAY_LATER)),
      ]) {
        assert.deepEqual(run.slice(0, 2), ['pragma synchronous = normal', 'begin immediate'], run.join('\n'));
        assert.deepEqual(run.slice(-2), ['commit', 'pragma synchronous = full'], run.join('\n'));
      }
      assert.equal(claimed.length, 1);
      // Ending a session waits for the disk: an undone sign-out would revive a token its owner meant to end.
      const signOut = await bookkeeping(() => store.transaction((tx) => tx.sessions.delete('session-1')));
      assert.ok(!signOut.some((text) => text.includes('synchronous')), signOut.join('\n'));
      assert.equal(await store.sessions.findWithUser('session-1'), null);
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(store.db);
      assert.equal(rows[0].synchronous, 2);
      assert.equal((await store.outbox.list())[0].status, 'sent');
    });

    it('set FULL back after a bookkeeping transaction that failed', async () => {
      const store = await open();
      await sql`create trigger injected_failure before update on outbox
        begin select raise(abort, 'injected failure'); end`.execute(store.db);
      const { user } = await register(store, 'alice');
      const notice = { id: 'message-1', kind: 'passwordChanged' as const, sealedToken: null, createdAt: T0 };
      await enqueue(store, user.id, { ...notice, giveUpAt: DAY_LATER });
      await assert.rejects(store.outbox.claimDue(T0, DAY_LATER, 5), /injected failure/);
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(store.db);
      assert.equal(rows[0].synchronous, 2);
    });
  });

  describe('opening', () => {
    it('creates the parent folders and the file', async () => {
      await open();
      assert.ok(existsSync(filename));
    });

    it('sets WAL, synchronous=FULL, busy_timeout=5000 and foreign keys on its connection', async () => {
      const store = await open();
      const pragma = async (name: string) => {
        const { rows } = await sql<Record<string, unknown>>`pragma ${sql.raw(name)}`.execute(store.db);
        return Object.values(rows[0])[0];
      };
      assert.equal(await pragma('journal_mode'), 'wal');
      assert.equal(await pragma('synchronous'), 2);
      assert.equal(await pragma('busy_timeout'), 5000);
      assert.equal(await pragma('foreign_keys'), 1);
    });

    it('migrates once: reopening, and migrating again, change nothing and keep the data', async () => {
      const first = await open();
      const { user } = await register(first, 'alice');
      await first.close();

      const second = await open();
      await migrateToLatest(second.db, sqliteCapabilities(filename));
      const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(second.db);
      assert.deepEqual(
        rows.map((row) => row.name),
        Object.keys(migrations),
      );
      assert.deepEqual(await second.users.findById(user.id), user);
    });

    it('lets two stores of one process open a fresh file at the same moment', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      await register(a, 'alice');
      assert.ok(await b.users.findByUsernameKey('alice'));
    });

    it('fails with an error naming the migration, and leaves no half-built schema', async () => {
      mkdirSync(path.dirname(filename), { recursive: true });
      const squatter = openSqlite(filename);
      squatter.exec('create table roles (something_else text)');
      squatter.close();

      await assert.rejects(open(), /migration "2026-11-22-initial" failed/);

      const check = openSqlite(filename, { readonly: true });
      const tables = check.prepare("select name from sqlite_master where type = 'table' order by name").pluck().all();
      check.close();
      assert.deepEqual(tables, ['roles'], 'users, sessions and tokens were rolled back with the failed run');
    });
  });

  describe('schema', () => {
    it('stores instants as integer epoch milliseconds', async () => {
      const store = await open();
      const { user } = await register(store, 'alice');
      const { rows } = await sql<{ kind: string; value: number }>`
        select typeof(created_at) as kind, created_at as value from users where id = ${user.id}`.execute(store.db);
      assert.deepEqual(rows, [{ kind: 'integer', value: T0.getTime() }]);
    });

    it('finds expired sessions, tokens, email changes and login challenges, and a user’s recovery codes, through indexes, not by scanning', async () => {
      const store = await open();
      const plan = async (query: ReturnType<typeof sql>) => {
        const { rows } = await sql<{ detail: string }>`explain query plan ${query}`.execute(store.db);
        return rows.map((row) => row.detail).join('\n');
      };
      const sessions = await plan(sql`select token_hash from sessions where expires_at <= 1 or last_seen_at <= 1`);
      const tokens = await plan(sql`select token_hash from tokens where expires_at <= 1`);
      const changes = await plan(sql`select token_hash from email_changes where expires_at <= 1`);
      const challenges = await plan(sql`select token_hash from login_challenges where expires_at <= 1`);
      const codes = await plan(sql`select count(*) from credentials where user_id = 'x' and kind = 'recovery_code'`);
      const byId = await plan(sql`delete from sessions where id = 'x' and user_id = 'y'`);
      assert.match(sessions, /sessions_expires_at_index/);
      assert.match(sessions, /sessions_last_seen_at_index/);
      assert.match(tokens, /tokens_expires_at_index/);
      assert.match(changes, /email_changes_expires_at_index/);
      assert.match(challenges, /login_challenges_expires_at_index/);
      assert.match(codes, /credentials_user_kind_index|credentials_one_per_user_index/);
      assert.match(byId, /sessions_id_unique/);
      assert.doesNotMatch([sessions, tokens, changes, challenges, codes, byId].join('\n'), /^SCAN/m);
    });
  });

  describe('locking', () => {
    it('takes the write lock when a write transaction begins, not at its first write (BEGIN IMMEDIATE)', async () => {
      // A deferred transaction that has read and then meets another connection's commit cannot upgrade to write: it
      // fails at once with SQLITE_BUSY, busy_timeout or not. Pause createUser between its read and its insert and
      // show that nobody else can write meanwhile, which means the lock was already held.
      const base = await open();
      const pause = new PauseAfterQuery(isSelect);
      const paused = new SqlUserStore(base.db.withPlugin(pause), sqliteCapabilities(filename));
      const registration = paused.transaction((tx) =>
        tx.users.create(
          {
            id: 'id-alice',
            username: 'alice',
            usernameKey: 'alice',
            email: 'a@example.com',
            emailKey: 'a@example.com',
            passwordHash: 'h',
            createdAt: T0,
          },
          token('id-alice', 'verify_email', 'verify-alice'),
        ),
      );
      await pause.reached;

      const other = openSqlite(filename, { timeout: 0 });
      try {
        const intrude = () => other.prepare('insert into roles (name) values (?)').run('intruder');
        assert.throws(intrude, { code: 'SQLITE_BUSY' });
      } finally {
        other.close();
        pause.resume();
      }
      assert.equal((await registration).ok, true);
    });
  });
});
