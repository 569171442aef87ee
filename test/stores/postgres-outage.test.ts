import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { PostgresUserStore, PostgresUserStoreOptions } from '../../src/stores/postgres-user-store';
import { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import { postgresCapabilities } from '../../src/stores/sql/postgres-capabilities';
import { StoreUnavailableError } from '../../src/errors/store-unavailable-error';
import { createTestDatabase, TestDatabase } from '../support/postgres-database';
import { describeWithService, serviceUrl } from '../support/services';
import { TcpProxy } from '../support/tcp-proxy';
import { deletesFrom, PauseAfterQuery } from './pause-plugin';
import { openSession, passwordOf, register, sessionRow, T0 } from './sql-fixtures';

// A database restart, as the store sees it: connections end, new ones are refused or hang, then it is back. The real
// server is shared with other test runs, so the outage is played by a proxy between the store and it, or by ending
// only this store's own connections.

describeWithService('postgres', 'PostgresUserStore when the database goes away and comes back', function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let proxy: TcpProxy;
  const stores: PostgresUserStore[] = [];

  function open(options: Partial<PostgresUserStoreOptions> = {}, url = proxiedUrl()): PostgresUserStore {
    const store = new PostgresUserStore({ connectionString: url, ...options });
    stores.push(store);
    return store;
  }

  function proxiedUrl(): string {
    const url = new URL(database.url);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    return url.toString();
  }

  /** The rejection of `operation`, and how long it took to come. */
  async function failure(operation: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
    const started = Date.now();
    try {
      await operation;
    } catch (error) {
      return { error, ms: Date.now() - started };
    }
    assert.fail('the operation succeeded during the outage');
  }

  before(async () => {
    const server = new URL(serviceUrl('postgres'));
    proxy = await TcpProxy.start({ host: server.hostname, port: Number(server.port) || 5432 });
  });
  after(async () => {
    await proxy?.close();
  });
  beforeEach(async () => {
    database = await createTestDatabase('outage');
  });
  afterEach(async () => {
    await proxy.restore();
    for (const store of stores.splice(0)) await store.close();
    await database.drop();
  });

  it('fails within the query timeout when the database stops answering on open connections, then recovers', async () => {
    const store = open({ queryTimeoutMillis: 500 });
    const { user } = await register(store, 'alice');
    await openSession(store, user.id, 's');

    // A frozen host or a partitioned network: connections stay open, nothing comes back.
    proxy.freeze();
    const { error, ms } = await failure(store.sessions.findWithUser('s'));
    assert.ok(error instanceof StoreUnavailableError, `unavailable, not ${String(error)}`);
    assert.ok(ms < 2_000, `failed within the query timeout (took ${ms} ms)`);

    await proxy.restore();
    let found: unknown = null;
    for (let attempt = 0; attempt < 50 && !found; attempt++) {
      found = await store.sessions.findWithUser('s').catch(() => null);
      if (!found) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(found, 'the session is read again once the database answers');
  });

  it('fails fast with StoreUnavailableError while the database is down, then recovers by itself', async () => {
    const store = open();
    const { user } = await register(store, 'alice');
    await openSession(store, user.id, 's');

    await proxy.cut();
    for (const operation of [
      store.sessions.findWithUser('s'),
      store.transaction((tx) => tx.sessions.create(sessionRow(user.id, 't', { expiresAt: T0 }))),
      store.transaction((tx) => tx.passwords.change(user.id, passwordOf(user), 'new-hash', T0)),
    ]) {
      const { error, ms } = await failure(operation);
      assert.ok(error instanceof StoreUnavailableError, `unavailable, not ${String(error)}`);
      assert.equal(error.retryAfterSeconds, 1);
      assert.ok(ms < 1_000, `failed within a second (took ${ms} ms)`);
    }

    await proxy.restore();
    assert.equal((await store.sessions.findWithUser('s'))?.user.id, user.id);
    assert.equal(
      (await store.transaction((tx) => tx.passwords.change(user.id, passwordOf(user), 'new-hash', T0)))
        ?.credentialEpoch,
      1,
    );
  });

  it('a connection cut in the middle of a transaction: unavailable, nothing committed, nothing crashed', async () => {
    const store = open();
    const { user } = await register(store, 'alice');
    await openSession(store, user.id, 's');
    const pause = new PauseAfterQuery(deletesFrom('sessions'));
    const paused = new SqlUserStore(store.db.withPlugin(pause), postgresCapabilities());

    const change = paused.transaction((tx) => tx.passwords.change(user.id, passwordOf(user), 'new-hash', T0));
    await pause.reached;
    await proxy.cut();
    // A checked-out client whose connection ends emits 'error'; without a listener that would end the process here.
    await new Promise((resolve) => setTimeout(resolve, 50));
    pause.resume();
    const { error } = await failure(change);
    assert.ok(error instanceof StoreUnavailableError, `unavailable, not ${String(error)}`);

    await proxy.restore();
    assert.equal(await store.passwords.hashOf(user.id), passwordOf(user), 'nothing was committed');
    assert.ok(await store.sessions.findWithUser('s'));
  });

  it('a database that accepts connections but never answers is unavailable after connectionTimeoutMillis', async () => {
    await proxy.hang();
    const store = open({ connectionTimeoutMillis: 300 });
    const { error, ms } = await failure(store.users.findById('id-alice'));
    assert.ok(error instanceof StoreUnavailableError, `unavailable, not ${String(error)}`);
    assert.ok(ms >= 250 && ms < 2_000, `after the timeout (took ${ms} ms)`);

    await proxy.restore();
    assert.equal(await store.users.findById('id-alice'), null, 'migrated and answering once the database is back');
  });

  it('a server ending every connection (pg_terminate_backend, as a restart does): survived and reported', async () => {
    const applicationName = `gatehouse-test-${randomBytes(4).toString('hex')}`;
    const reported: Error[] = [];
    const store = open(
      { onConnectionError: (error) => reported.push(error) },
      database.urlWith({ application_name: applicationName }),
    );
    const { user } = await register(store, 'alice');
    await Promise.all(Array.from({ length: 5 }, () => store.users.findById(user.id)));
    assert.ok(store.pool.idleCount > 0, 'the pool holds idle connections');

    const admin = new Client({ connectionString: serviceUrl('postgres') });
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
        [applicationName],
      );
      assert.ok(rowCount && rowCount > 0);
    } finally {
      await admin.end();
    }
    await waitUntil(() => store.pool.idleCount === 0);

    assert.ok(reported.length > 0, 'the lost connections were reported');
    assert.ok(reported.every((error) => /terminating connection|Connection terminated/.test(error.message)));
    assert.equal((await store.users.findById(user.id))?.username, 'alice', 'new connections serve at once');
  });

  it('migration waits for the database: the first query after it is back migrates and answers', async () => {
    await proxy.cut();
    const store = open();
    const { error } = await failure(store.migrate());
    assert.ok(error instanceof StoreUnavailableError);
    await assert.rejects(store.users.findById('x'), StoreUnavailableError);

    await proxy.restore();
    await register(store, 'alice');
    assert.ok(await store.users.findByUsernameKey('alice'));
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
