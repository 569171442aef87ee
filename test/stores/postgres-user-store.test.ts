import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { Connection, Pool, types } from 'pg';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { describeUserStoreConformance } from '../../src/stores/conformance';
import { migrations } from '../../src/stores/sql/migrate';
import { insertTogether } from '../../src/stores/sql/insert-together';
import { postgresCapabilities } from '../../src/stores/sql/postgres-capabilities';
import { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import { createTestDatabase, TestDatabase } from '../support/postgres-database';
import { describeWithService } from '../support/services';
import { attemptRegistration, DAY_LATER, openSession, register, sessionRow, T0 } from './sql-fixtures';
import { describeSqlStore } from './sql-store-suite';
import { enqueue } from '../support/store-writes';

/** Children before parents. */
const TABLES = [
  'user_roles',
  'role_permissions',
  'sessions',
  'tokens',
  'email_changes',
  'credentials',
  'login_challenges',
  'passkey_challenges',
  'oidc_flows',
  'oidc_handoffs',
  'organization_invitations',
  'organization_members',
  'organizations',
  'api_keys',
  'service_accounts',
  'users',
  'roles',
  'permissions',
  'outbox',
  'audit_events',
];

describeWithService('postgres', 'PostgresUserStore (on a database of its own)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  /** Keeps the schema migrated and empties it between tests. */
  let keeper: PostgresUserStore;

  before(async () => {
    database = await createTestDatabase('stores');
    keeper = await PostgresUserStore.open({ connectionString: database.url });
  });
  after(async () => {
    await keeper?.close();
    await database?.drop();
  });

  /** DELETE rather than TRUNCATE: on tables this small it is ten times faster (no new files to create and sync). */
  async function emptied(): Promise<void> {
    for (const table of TABLES) await sql`delete from ${sql.table(table)}`.execute(keeper.db);
  }

  describeUserStoreConformance('PostgresUserStore', async () => {
    await emptied();
    return PostgresUserStore.open({ connectionString: database.url });
  });

  describeSqlStore('PostgreSQL', {
    capabilities: postgresCapabilities,
    setUp: emptied,
    open: () => PostgresUserStore.open({ connectionString: database.url }),
    tearDown: async () => {},
    async failOn(store, event, table) {
      await sql`create or replace function injected_failure() returns trigger language plpgsql
        as $$ begin raise exception 'injected failure'; end $$`.execute(store.db);
      await sql`create trigger injected_failure before ${sql.raw(event)} on ${sql.table(table)}
        for each row execute function injected_failure()`.execute(store.db);
      return async () => {
        await sql`drop trigger injected_failure on ${sql.table(table)}`.execute(store.db);
      };
    },
  });

  describe('PostgreSQL specifics', () => {
    const extraDatabases: TestDatabase[] = [];
    const stores: SqlUserStore[] = [];
    async function freshDatabase(): Promise<TestDatabase> {
      const fresh = await createTestDatabase('fresh');
      extraDatabases.push(fresh);
      return fresh;
    }
    function track<S extends SqlUserStore>(store: S): S {
      stores.push(store);
      return store;
    }

    beforeEach(emptied);
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
      for (const fresh of extraDatabases.splice(0)) await fresh.drop();
    });

    it('8 instances starting together on an empty database migrate it once, and all work', async () => {
      const fresh = await freshDatabase();
      const started = await Promise.all(
        Array.from({ length: 8 }, () => PostgresUserStore.open({ connectionString: fresh.url }).then(track)),
      );
      const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        started[0].db,
      );
      assert.deepEqual(
        rows.map((row) => row.name),
        Object.keys(migrations),
      );
      await register(started[3], 'alice');
      assert.ok(await started[7].users.findByUsernameKey('alice'));
    });

    it('new PostgresUserStore() migrates before its first query', async () => {
      const fresh = await freshDatabase();
      const store = track(new PostgresUserStore({ connectionString: fresh.url }));
      assert.equal(await store.users.findByUsernameKey('nobody'), null);
      await register(store, 'alice');
    });

    it('a failing migration is named and leaves no half-built schema', async () => {
      const fresh = await freshDatabase();
      const squatter = new Pool({ connectionString: fresh.url });
      // The drop after this test may end a connection still closing; that must not become an uncaught error.
      squatter.on('error', () => {});
      await squatter.query('create table roles (something_else text)');
      await assert.rejects(
        PostgresUserStore.open({ connectionString: fresh.url }),
        /migration "2026-11-22-initial" failed/,
      );
      const { rows } = await squatter.query(
        "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
      );
      await squatter.end();
      assert.deepEqual(
        rows.map((row) => row.table_name),
        ['kysely_migration', 'kysely_migration_lock', 'roles'],
      );
    });

    it('works on a pool of the host, and leaves it open on close', async () => {
      const pool = new Pool({ connectionString: database.url, max: 2 });
      try {
        const store = new PostgresUserStore({ pool });
        await register(store, 'alice');
        await store.close();
        const { rows } = await pool.query('select username from users');
        assert.deepEqual(rows, [{ username: 'alice' }]);
        assert.equal(pool.listenerCount('error'), 0, 'its listeners are gone');
      } finally {
        await pool.end();
      }
    });

    it('ends a pool of its own on close', async () => {
      const store = new PostgresUserStore({ connectionString: database.url });
      await register(store, 'alice');
      await store.close();
      assert.equal(store.pool.ending, true);
      assert.equal(store.pool.totalCount, 0);
    });

    it('refuses to be given both a connection string and a pool, or neither', () => {
      const pool = new Pool();
      assert.throws(() => new PostgresUserStore({ pool, connectionString: database.url }), /either/);
      assert.throws(() => new PostgresUserStore({}), /required/);
    });

    it('stores instants as bigint epoch milliseconds and text exactly', async () => {
      const { user } = await register(keeper, 'alice');
      const { rows } = await sql<{ type: string; value: string }>`
        select pg_typeof(created_at)::text as type, created_at::text as value from users where id = ${user.id}`.execute(
        keeper.db,
      );
      assert.deepEqual(rows, [{ type: 'bigint', value: String(T0.getTime()) }]);
    });

    /** The named statements of the one connection of a one-connection store, as `{ name, statement }`. */
    async function preparedOn(store: PostgresUserStore): Promise<{ name: string; statement: string }[]> {
      const { rows } = await sql<{ name: string; statement: string }>`
        select name, statement from pg_prepared_statements order by statement`.execute(store.db);
      return rows;
    }

    /** A one-connection store that keeps the SQL of every statement it runs, lowercased. */
    async function loggedStore(): Promise<{ store: PostgresUserStore; statements: string[] }> {
      const statements: string[] = [];
      const store = track(
        await PostgresUserStore.open({
          connectionString: database.url,
          maxConnections: 1,
          log: (event) => void statements.push(event.query.sql.toLowerCase()),
        }),
      );
      return { store, statements };
    }

    it('commits a new session without waiting for the WAL flush (SET LOCAL, sent with BEGIN); runs the outbox claims and marks and an idle window as one statement each; every other write waits for the flush', async () => {
      const { store, statements } = await loggedStore();
      const { user } = await register(store, 'alice');
      const notice = { id: 'message-1', kind: 'passwordChanged' as const, sealedToken: null, createdAt: T0 };
      assert.equal(await enqueue(store, user.id, { ...notice, giveUpAt: DAY_LATER }), true);
      assert.ok(!statements.some((text) => text.includes('synchronous_commit')), statements.join('\n'));

      // One statement each, outside a transaction: its own commit, flushed, costs less than BEGIN and COMMIT would.
      statements.length = 0;
      const [claim] = await store.outbox.claimDue(T0, DAY_LATER, 5);
      assert.equal(claim.id, 'message-1');
      assert.equal(statements.length, 1, statements.join('\n'));
      assert.match(
        statements[0],
        /^with "picked" as materialized \(select "id" from "outbox" .* for update skip locked\) update "outbox"/,
      );
      statements.length = 0;
      assert.equal(await store.outbox.markSent(claim.id, T0), true);
      assert.equal(statements.length, 1, statements.join('\n'));
      assert.match(statements[0], /^update "outbox"/);

      statements.length = 0;
      await openSession(store, user.id, 'session-1');
      // findUserById first (the fixture looks up the password hash), then the transaction.
      assert.equal(statements[1], 'begin; set local synchronous_commit = off', statements.join('\n'));
      assert.equal(statements.at(-1), 'commit', statements.join('\n'));
      statements.length = 0;
      await store.sessions.touch('session-1', DAY_LATER);
      assert.equal(statements.length, 1, statements.join('\n'));
      assert.match(statements[0], /^update "sessions"/);
      // Ending a session waits for the flush: an undone sign-out would revive a token its owner meant to end.
      statements.length = 0;
      await store.transaction((tx) => tx.sessions.delete('session-1'));
      assert.ok(!statements.some((text) => text.includes('synchronous_commit')), statements.join('\n'));
      // LOCAL ended with the transaction: the one pooled connection is back to the server's setting.
      const { rows } = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(store.db);
      assert.equal(rows[0].synchronous_commit, 'on');
      assert.equal((await store.outbox.list())[0].status, 'sent');
    });

    it("writes a registration's rows outside a transaction, and a sign-in's session with its audit event, in one statement each", async () => {
      const { store, statements } = await loggedStore();
      const audit = (type: 'register' | 'login', subjectId: string) => ({
        id: `event-${type}`,
        at: T0,
        type,
        outcome: 'success',
        actorType: 'anonymous' as const,
        actorId: null,
        subjectId,
        ip: null,
        requestId: null,
        details: null,
      });
      const result = await attemptRegistration(
        store,
        'alice',
        {},
        {
          link: { id: 'message-1', kind: 'verification', sealedToken: 'sealed', createdAt: T0, giveUpAt: DAY_LATER },
          audit: audit('register', 'id-alice'),
        },
      );
      assert.ok(result.ok);
      assert.deepEqual(
        statements.map((text) => text.split(' ', 3).join(' ')),
        // No transaction: the check is a plain read either way, and the one insert is atomic on its own.
        ['select "id", "username",', 'with "insert_0" as'],
        statements.join('\n'),
      );
      assert.match(
        statements[1],
        /"insert_1" as \(insert into "credentials" .*"insert_2" as \(insert into "tokens" .*"insert_3" as \(insert into "outbox" .*\) insert into "audit_events"/,
      );
      statements.length = 0;
      assert.equal(
        await store.transaction(
          async (tx) => {
            const created = await tx.sessions.create(sessionRow('id-alice', 's'));
            if (created) await tx.audit.add(audit('login', 'id-alice'));
            return created;
          },
          { durable: false },
        ),
        true,
      );
      assert.ok(
        statements.some((text) =>
          // The password's last use goes with them.
          /^with "insert_0" as \(update "credentials" set "last_used_at" .*"insert_1" as \(insert into "sessions" .*\) insert into "audit_events"/.test(
            text,
          ),
        ),
        statements.join('\n'),
      );
      const counts = await sql<{ n: string }>`
        select (select count(*) from users) + (select count(*) from credentials) + (select count(*) from tokens)
          + (select count(*) from outbox) + (select count(*) from sessions) + (select count(*) from audit_events) as n`.execute(
        store.db,
      );
      assert.equal(Number(counts.rows[0].n), 7);
    });

    it('a registration that replaces an expired unverified one runs in a transaction: the old rows go with the new ones in', async () => {
      const { store, statements } = await loggedStore();
      await register(store, 'alice');
      statements.length = 0;
      const later = { id: 'id-new-alice', email: 'b@example.com', emailKey: 'b@example.com', createdAt: DAY_LATER };
      const result = await attemptRegistration(store, 'alice', later, { expiredUnverifiedBefore: DAY_LATER });
      assert.ok(result.ok && result.user.id === 'id-new-alice');
      assert.equal(statements[1], 'begin', statements.join('\n'));
      assert.equal(statements.at(-1), 'commit', statements.join('\n'));
      assert.equal((await store.users.findByUsernameKey('alice'))?.id, 'id-new-alice');
      assert.equal(await store.users.findById('id-alice'), null);
    });

    it('inserts together all or nothing: a row that breaks a foreign key fails the statement, and none of its rows stays', async () => {
      await assert.rejects(
        insertTogether(keeper.db, postgresCapabilities(), [
          keeper.db.insertInto('roles').values({ name: 'kept-if-broken' }),
          keeper.db
            .insertInto('tokens')
            .values({ token_hash: 't', user_id: 'no-such-user', purpose: 'verify_email', expires_at: 1 }),
        ]),
        (error: { code?: string }) => error.code === '23503',
      );
      const { rows } = await sql<{
        n: string;
      }>`select count(*)::text as n from roles where name = 'kept-if-broken'`.execute(keeper.db);
      assert.equal(rows[0].n, '0');
    });

    it('runs the reads of every request, and the writes of every sign-up and sign-in, as named statements, parsed once per connection', async () => {
      const store = track(await PostgresUserStore.open({ connectionString: database.url, maxConnections: 1 }));
      const { user } = await register(store, 'alice');
      await openSession(store, user.id, 's');
      for (let i = 0; i < 3; i++) {
        assert.equal((await store.sessions.findWithUser('s'))?.user.username, 'alice');
        assert.equal((await store.users.findByUsernameKey('alice'))?.id, user.id);
      }
      const prepared = await preparedOn(store);
      assert.ok(
        prepared.every((row) => /^gatehouse_[0-9a-f]{32}$/.test(row.name)),
        JSON.stringify(prepared),
      );
      const sessionRead = prepared.filter((row) => row.statement.includes('from "sessions" as "s"'));
      const usernameRead = prepared.filter((row) => row.statement.includes('"u"."username_key" = $1'));
      assert.equal(sessionRead.length, 1);
      assert.equal(usernameRead.length, 1);
      // So are the writes of every registration and sign-in, whose text never changes.
      assert.ok(prepared.some((row) => row.statement.startsWith('with "insert_0" as (insert into "users"')));
      assert.ok(prepared.some((row) => row.statement.startsWith('update "users" set "last_sign_in_at"')));
      // Nothing else: transactions and one-off queries stay unnamed, and no named statement selects `*` (a column
      // added by a newer instance's migration would fail it with "cached plan must not change result type").
      await store.outbox.list();
      await store.access.listUserRoles(user.id);
      const after = await preparedOn(store);
      assert.deepEqual(after, prepared);
      assert.ok(
        prepared.every((row) => /^(select|with|update) /.test(row.statement) && !row.statement.includes('*')),
        JSON.stringify(prepared),
      );

      const unprepared = track(
        await PostgresUserStore.open({ connectionString: database.url, maxConnections: 1, preparedStatements: false }),
      );
      assert.equal((await unprepared.sessions.findWithUser('s'))?.user.username, 'alice');
      assert.deepEqual(await preparedOn(unprepared), []);
    });

    it('reads a statement again without asking PostgreSQL to describe its rows, on every connection', async () => {
      const store = track(await PostgresUserStore.open({ connectionString: database.url, maxConnections: 3 }));
      const { user } = await register(store, 'alice');
      await openSession(store, user.id, 's');
      // The first run compiles the query through Kysely; the next one, node-postgres' own, learns the row shape.
      const first = await store.sessions.check('s');
      assert.equal(first?.user.username, 'alice');
      assert.deepEqual(await store.sessions.check('s'), first);
      let described = 0;
      const describePortal = Connection.prototype.describe;
      Connection.prototype.describe = function (this: Connection, ...args) {
        described += 1;
        return describePortal.apply(this, args);
      };
      try {
        // At once, so that the pool opens connections that have not prepared the statement yet.
        const again = await Promise.all(Array.from({ length: 6 }, () => store.sessions.check('s')));
        assert.equal(described, 0);
        for (const check of again) assert.deepEqual(check, first);
        assert.equal(await store.sessions.check('nobody'), null);
        assert.deepEqual(
          await store.sessions.check('s', { kind: 'role', name: 'none' }),
          await store.sessions.check('s', { kind: 'role', name: 'none' }),
        );
        const membership = { kind: 'membership', organizationId: '00000000-0000-4000-8000-000000000000' } as const;
        const outside = await store.sessions.check('s', membership);
        assert.equal(outside?.membership, null);
        assert.deepEqual(await store.sessions.check('s', membership), outside);
      } finally {
        Connection.prototype.describe = describePortal;
      }
      assert.ok(store.pool.totalCount > 1, `only ${store.pool.totalCount} connection was opened`);
    });

    it("a host pool's own type parsers apply to a statement's first read and to the later ones", async () => {
      const { user } = await register(keeper, 'alice');
      await openSession(keeper, user.id, 's');
      // A parser no real host would want, so that its use shows: integers one more than they are, so alice (0 in
      // `verified`) reads as verified.
      const oddPool = new Pool({ connectionString: database.url, types: { getTypeParser: integersPlusOne } });
      try {
        const store = track(new PostgresUserStore({ pool: oddPool }));
        for (let i = 0; i < 3; i++) assert.equal((await store.sessions.check('s'))?.user.verified, true, `read ${i}`);
      } finally {
        await oddPool.end();
      }
    });

    it('a host pool whose clients refuse custom queries (pipeline mode) still answers every read', async () => {
      const { user } = await register(keeper, 'alice');
      await openSession(keeper, user.id, 's');
      const expected = await keeper.sessions.check('s');
      const pipelined = new Pool({ connectionString: database.url, pipeline: true });
      try {
        const store = track(new PostgresUserStore({ pool: pipelined }));
        for (let i = 0; i < 4; i++) assert.deepEqual(await store.sessions.check('s'), expected, `read ${i}`);
      } finally {
        await pipelined.end();
      }
    });

    it('a prepared read keeps working after a newer migration adds a column to users', async () => {
      const store = track(await PostgresUserStore.open({ connectionString: database.url, maxConnections: 1 }));
      const { user } = await register(store, 'alice');
      await openSession(store, user.id, 's');
      assert.equal((await store.sessions.findWithUser('s'))?.user.id, user.id);
      // A `select u.*` prepared before this would now fail with "cached plan must not change result type".
      await sql`alter table users add column added_later text`.execute(keeper.db);
      try {
        assert.equal((await store.sessions.findWithUser('s'))?.user.id, user.id);
        assert.equal((await store.users.findById(user.id))?.username, 'alice');
      } finally {
        await sql`alter table users drop column added_later`.execute(keeper.db);
      }
    });

    it('has indexes that serve the removal of expired sessions, tokens and login challenges', async () => {
      const { user } = await register(keeper, 'alice');
      await openSession(keeper, user.id, 's');
      const plans = await keeper.db.connection().execute(async (connection) => {
        // The tables are tiny, so the planner would rightly scan them; forbidding scans shows an index can serve.
        await sql`set enable_seqscan = off`.execute(connection);
        try {
          const explain = async (query: ReturnType<typeof sql>) =>
            (await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(connection)).rows
              .map((row) => row['QUERY PLAN'])
              .join('\n');
          return [
            await explain(sql`select token_hash from sessions where expires_at <= 1 or last_seen_at <= 1`),
            await explain(sql`select token_hash from tokens where expires_at <= 1`),
            await explain(sql`select token_hash from login_challenges where expires_at <= 1`),
          ];
        } finally {
          await sql`reset enable_seqscan`.execute(connection);
        }
      });
      assert.match(plans[0], /sessions_expires_at_index/);
      assert.match(plans[0], /sessions_last_seen_at_index/);
      assert.match(plans[1], /tokens_expires_at_index/);
      assert.match(plans[2], /login_challenges_expires_at_index/);
    });
  });
});

/** node-postgres' parsers, except that an int4 comes back one more than it is. */
const integersPlusOne = ((oid: number, format?: 'text' | 'binary') =>
  oid === types.builtins.INT4 && format !== 'binary'
    ? (value: string) => Number(value) + 1
    : types.getTypeParser(oid, format as 'text')) as typeof types.getTypeParser;
