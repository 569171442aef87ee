import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryId,
  QueryResult,
  RootOperationNode,
  sql,
  UnknownRow,
} from 'kysely';
import { describeUserStoreConformance } from '../../src/stores/conformance';
import { migrateToLatest } from '../../src/stores/sql/migrate';
import { sqliteCapabilities } from '../../src/stores/sql/sqlite-capabilities';
import { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { CreateUserResult, NewUser, StoredToken, StoredUser } from '../../src/stores/user-store';
import { makeTempFolder } from './temp-folder';

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
      const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(second.db);
      assert.deepEqual(rows, [{ name: '2026-11-22-initial' }]);
      assert.deepEqual(await second.findUserById(user.id), user);
    });

    it('lets two stores of one process open a fresh file at the same moment', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      await register(a, 'alice');
      assert.ok(await b.findUserByUsernameKey('alice'));
    });

    it('fails with an error naming the migration, and leaves no half-built schema', async () => {
      mkdirSync(path.dirname(filename), { recursive: true });
      const squatter = new BetterSqlite3(filename);
      squatter.exec('create table roles (something_else text)');
      squatter.close();

      await assert.rejects(open(), /migration "2026-11-22-initial" failed/);

      const check = new BetterSqlite3(filename, { readonly: true });
      const tables = check.prepare("select name from sqlite_master where type = 'table' order by name").pluck().all();
      check.close();
      assert.deepEqual(tables, ['roles'], 'users, sessions and tokens were rolled back with the failed run');
    });
  });

  describe('durability and schema', () => {
    it('keeps users, sessions, tokens and grants across close and reopen', async () => {
      const first = await open();
      const { user, verification } = await register(first, 'alice');
      const session = { tokenHash: 'session-1', userId: user.id, createdAt: T0, expiresAt: DAY_LATER, lastSeenAt: T0 };
      await first.createSession(session, user.passwordHash);
      await first.createRole('admin');
      await first.createPermission('posts:write');
      await first.grantPermission('admin', 'posts:write');
      await first.grantRole(user.id, 'admin');
      await first.close();

      const second = await open();
      assert.deepEqual(await second.getSessionAndUser('session-1'), { session, user });
      assert.equal(await second.checkPermission(user.id, 'posts:write'), 'granted');
      assert.ok(await second.verifyEmail(verification.tokenHash, T0));
    });

    it('stores instants as integer epoch milliseconds', async () => {
      const store = await open();
      const { user } = await register(store, 'alice');
      const { rows } = await sql<{ kind: string; value: number }>`
        select typeof(created_at) as kind, created_at as value from users where id = ${user.id}`.execute(store.db);
      assert.deepEqual(rows, [{ kind: 'integer', value: T0.getTime() }]);
    });

    it('enforces the unique keys in the database itself', async () => {
      const store = await open();
      const { user } = await register(store, 'alice');
      const duplicate = sql`insert into users (id, username, username_key, email, email_key, password_hash, verified,
        created_at, updated_at) values ('other', 'x', ${user.usernameKey}, 'x', 'x@example.com', 'h', 0, 0, 0)`;
      await assert.rejects(duplicate.execute(store.db), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    });

    it('cascades a deleted user row to its sessions, tokens and grants (foreign keys are on)', async () => {
      const store = await open();
      const { user } = await register(store, 'alice');
      await openSession(store, user.id, 's');
      await store.createRole('admin');
      await store.grantRole(user.id, 'admin');

      await sql`delete from users where id = ${user.id}`.execute(store.db);

      const count = async (table: string) => {
        const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(store.db);
        return rows[0].n;
      };
      assert.deepEqual(
        [await count('sessions'), await count('tokens'), await count('user_roles'), await count('roles')],
        [0, 0, 0, 1],
      );
    });
  });

  describe('a failure in the middle of an operation leaves everything as it was', () => {
    /** Makes every `event` on `table` fail inside SQLite, as a crash or a full disk would at that step. */
    async function failOn(store: SqliteUserStore, event: 'insert' | 'update' | 'delete', table: string) {
      await sql`create trigger injected_failure before ${sql.raw(event)} on ${sql.table(table)}
        begin select raise(abort, 'injected failure'); end`.execute(store.db);
    }

    async function stopFailing(store: SqliteUserStore) {
      await sql`drop trigger injected_failure`.execute(store.db);
    }

    it('resetPassword: when ending the sessions fails, the password and the token are untouched', async () => {
      const store = await open();
      const { user } = await register(store, 'alice');
      await openSession(store, user.id, 's');
      const reset = token(user.id, 'reset_password', 'reset-1');
      await store.replaceToken(reset);

      await failOn(store, 'delete', 'sessions');
      await assert.rejects(store.resetPassword(reset.tokenHash, 'new-hash', T0), /injected failure/);
      await stopFailing(store);

      assert.equal((await store.findUserById(user.id))?.passwordHash, user.passwordHash);
      assert.ok(await store.getSessionAndUser('s'));
      assert.ok(await store.resetPassword(reset.tokenHash, 'new-hash', T0), 'the token was not consumed');
    });

    it('changePassword: when ending the sessions fails, the password is untouched', async () => {
      const store = await open();
      const { user } = await register(store, 'alice');
      await openSession(store, user.id, 's');

      await failOn(store, 'delete', 'sessions');
      await assert.rejects(store.changePassword(user.id, user.passwordHash, 'new-hash', T0), /injected failure/);
      await stopFailing(store);

      assert.equal((await store.findUserById(user.id))?.passwordHash, user.passwordHash);
      assert.ok(await store.getSessionAndUser('s'));
    });

    it('verifyEmail: when marking the user fails, the token is not consumed', async () => {
      const store = await open();
      const { user, verification } = await register(store, 'alice');

      await failOn(store, 'update', 'users');
      await assert.rejects(store.verifyEmail(verification.tokenHash, T0), /injected failure/);
      await stopFailing(store);

      assert.equal((await store.findUserById(user.id))?.verified, false);
      assert.ok(await store.verifyEmail(verification.tokenHash, T0));
    });

    it('createUser: when storing the token fails, no user is created', async () => {
      const store = await open();
      await failOn(store, 'insert', 'tokens');
      await assert.rejects(register(store, 'alice'), /injected failure/);
      await stopFailing(store);

      assert.equal(await store.findUserByUsernameKey('alice'), null);
      await register(store, 'alice');
    });

    it('deleteUser: when removing the grants fails, the user, their sessions and tokens remain', async () => {
      const store = await open();
      const { user, verification } = await register(store, 'alice');
      await openSession(store, user.id, 's');
      await store.createRole('admin');
      await store.grantRole(user.id, 'admin');

      await failOn(store, 'delete', 'user_roles');
      await assert.rejects(store.deleteUser(user.id), /injected failure/);
      await stopFailing(store);

      assert.ok(await store.getSessionAndUser('s'));
      assert.ok(await store.findUserByToken(verification.tokenHash, 'verify_email', T0));
      assert.equal(await store.checkRole(user.id, 'admin'), 'granted');
      assert.equal(await store.deleteUser(user.id), true);
    });

    it('the store keeps working after a failed transaction', async () => {
      const store = await open();
      await failOn(store, 'insert', 'roles');
      await assert.rejects(store.createRole('admin'));
      await stopFailing(store);
      assert.equal(await store.createRole('admin'), true);
    });
  });

  describe('locking', () => {
    it('takes the write lock when a write transaction begins, not at its first write (BEGIN IMMEDIATE)', async () => {
      // A deferred transaction that has read and then meets another connection's commit cannot upgrade to write: it
      // fails at once with SQLITE_BUSY, busy_timeout or not. Pause createUser between its read and its insert and
      // show that nobody else can write meanwhile, which means the lock was already held.
      const base = await open();
      const pause = new PauseAfterFirstRead();
      const paused = new SqlUserStore(base.db.withPlugin(pause), sqliteCapabilities(filename));
      const registration = paused.createUser(
        { id: 'id-alice', username: 'alice', usernameKey: 'alice', email: 'a@example.com', emailKey: 'a@example.com',
          passwordHash: 'h', verified: false, createdAt: T0 },
        token('id-alice', 'verify_email', 'verify-alice'),
      );
      await pause.reached;

      const other = new BetterSqlite3(filename, { timeout: 0 });
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

  describe('two stores on one file (as two processes would be)', () => {
    it('20 concurrent registrations of one username across both: exactly one wins, nothing throws', async () => {
      const stores = [await open(), await open()];
      const settled = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          attemptRegistration(stores[i % 2], `racer-${i}`, { usernameKey: 'racer' }),
        ),
      );

      assert.deepEqual(settled.filter((result) => result.status === 'rejected'), []);
      const outcomes = settled.map((result) => (result as PromiseFulfilledResult<CreateUserResult>).value);
      assert.equal(outcomes.filter((outcome) => outcome.ok).length, 1);
      assert.ok(outcomes.every((outcome) => outcome.ok || outcome.conflict === 'username'));
    });

    it('20 concurrent uses of one reset token across both: exactly one succeeds', async () => {
      const stores = [await open(), await open()];
      const { user } = await register(stores[0], 'alice');
      await stores[0].replaceToken(token(user.id, 'reset_password', 'reset-1'));

      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => stores[i % 2].resetPassword('reset-1', `hash-${i}`, T0)),
      );
      assert.equal(results.filter((result) => result !== null).length, 1);
    });

    it('each sees what the other committed', async () => {
      const [a, b] = [await open(), await open()];
      const { user } = await register(a, 'alice');
      await openSession(b, user.id, 's');
      assert.equal((await a.getSessionAndUser('s'))?.user.id, user.id);
    });
  });
});

/** A Kysely plugin that holds the first SELECT's result until `resume()`: a pause inside a running transaction. */
class PauseAfterFirstRead implements KyselyPlugin {
  private readonly selects = new WeakSet<QueryId>();
  private pausedOnce = false;
  private markReached!: () => void;
  private release!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.markReached = resolve));
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (node.kind === 'SelectQueryNode') this.selects.add(queryId);
    return node;
  }

  async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.selects.has(queryId) && !this.pausedOnce) {
      this.pausedOnce = true;
      this.markReached();
      await this.released;
    }
    return result;
  }

  resume(): void {
    this.release();
  }
}

const T0 = new Date('2030-01-01T00:00:00.000Z');
const DAY_LATER = new Date(T0.getTime() + 86_400_000);

/** Registers a user and returns it with its verification token; fails the test if the store refuses. */
async function register(store: SqliteUserStore, label: string) {
  const verification = token(`id-${label}`, 'verify_email', `verify-${label}`);
  const result = await attemptRegistration(store, label);
  assert.ok(result.ok, `registering ${label} should succeed`);
  return { user: result.user, verification };
}

function attemptRegistration(store: SqliteUserStore, label: string, overrides: Partial<NewUser> = {}) {
  const user: NewUser = {
    id: `id-${label}`,
    username: label,
    usernameKey: label,
    email: `${label}@example.com`,
    emailKey: `${label}@example.com`,
    passwordHash: `$argon2id$fake$${label}`,
    verified: false,
    createdAt: T0,
    ...overrides,
  };
  return store.createUser(user, token(user.id, 'verify_email', `verify-${label}`));
}

async function openSession(store: SqliteUserStore, userId: string, tokenHash: string): Promise<void> {
  const user = await store.findUserById(userId);
  const created = await store.createSession({ tokenHash, userId, createdAt: T0, expiresAt: DAY_LATER, lastSeenAt: T0 }, user!.passwordHash);
  if (!created) throw new Error(`openSession: no session for ${userId}`);
}

function token(userId: string, purpose: StoredToken['purpose'], tokenHash: string): StoredToken {
  return { tokenHash, userId, purpose, expiresAt: DAY_LATER };
}
