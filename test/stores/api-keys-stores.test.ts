import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ApiKeyCheck, StoredApiKey } from '../../src/services/api-keys/api-key-records';
import { isPromiseLike } from '../../src/services/awaitable';
import type { UserStore } from '../../src/services/user-store';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { createTestDatabase, type TestDatabase } from '../support/postgres-database';
import { describeWithService } from '../support/services';
import { DAY_LATER, register, T0 } from './sql-fixtures';
import { makeTempFolder } from './temp-folder';

// What the conformance suite cannot see of a key's check, store by store: that it is one statement answered within
// the call where the store reads synchronously, and that two instances on one PostgreSQL database agree at once.

function keyOf(userId: string, name: string): StoredApiKey {
  return {
    id: randomUUID(),
    keyHash: `hash-${name}-${randomUUID()}`,
    userId,
    name,
    lastFour: 'Ab12',
    scopes: ['posts.write'],
    createdAt: new Date(T0),
    expiresAt: new Date(DAY_LATER),
    lastUsedAt: null,
    lastUsedIp: null,
    createdBy: userId,
  };
}

/** alice holding `writer` (`posts.write`), with a key; the key. */
async function aliceWithKey(store: UserStore): Promise<{ userId: string; key: StoredApiKey }> {
  const { user } = await register(store, 'alice');
  const key = keyOf(user.id, 'ci');
  await store.transaction(async (tx) => {
    await tx.access.createRole('writer');
    await tx.access.createPermission('posts.write');
    await tx.access.grantPermission('writer', 'posts.write');
    await tx.access.grantRole(user.id, 'writer');
    assert.equal(await tx.apiKeys.lockOwner(user.id), true);
    assert.equal(await tx.apiKeys.create(key), 'created');
  });
  return { userId: user.id, key };
}

/** The answer itself, failing when it came as a promise. */
function answeredWithinTheCall(answer: ApiKeyCheck | null | Promise<ApiKeyCheck | null>): ApiKeyCheck | null {
  assert.ok(!isPromiseLike(answer), 'answered within the call, not as a promise');
  return answer as ApiKeyCheck | null;
}

describe('API key checks within the call', () => {
  it('MemoryUserStore answers a check with the value itself', async () => {
    const store = new MemoryUserStore();
    const { key } = await aliceWithKey(store);
    assert.equal(answeredWithinTheCall(store.apiKeys.check(key.keyHash))?.keyId, key.id);
    assert.equal(answeredWithinTheCall(store.apiKeys.check(key.keyHash, 'posts.write'))?.access, 'granted');
    assert.equal(answeredWithinTheCall(store.apiKeys.check('unknown', 'posts.write')), null);
    await store.close();
  });

  it('SqliteUserStore answers a check in one statement, within the call once its statement is compiled', async () => {
    const folder = makeTempFolder('gatehouse-api-keys-');
    const statements: string[] = [];
    const store = await SqliteUserStore.open({
      filename: `${folder.path}/store.db`,
      log: (event) => void statements.push(event.query.sql.toLowerCase()),
    });
    try {
      const { key } = await aliceWithKey(store);
      // The first run of each compiles it (through Kysely); every later one is answered within the call.
      assert.equal((await store.apiKeys.check(key.keyHash))?.keyId, key.id);
      assert.equal((await store.apiKeys.check(key.keyHash, 'posts.write'))?.access, 'granted');
      statements.length = 0;
      assert.equal(answeredWithinTheCall(store.apiKeys.check(key.keyHash))?.keyId, key.id);
      assert.equal(answeredWithinTheCall(store.apiKeys.check(key.keyHash, 'posts.write'))?.access, 'granted');
      assert.equal(answeredWithinTheCall(store.apiKeys.check(key.keyHash, 'posts.nothing'))?.access, 'unknown');
      assert.equal(answeredWithinTheCall(store.apiKeys.check('unknown')), null);
      assert.equal(statements.length, 4, statements.join('\n'));
      for (const statement of statements) assert.match(statement, /from "api_keys" as "k" inner join "users" as "u"/);
      // A failure still comes as a rejected promise, never a throw.
      await store.close();
      const failed = store.apiKeys.check(key.keyHash);
      assert.ok(isPromiseLike(failed));
      await assert.rejects(failed as Promise<unknown>);
    } finally {
      await store.close();
      folder.remove();
    }
  });
});

describeWithService('postgres', 'API keys on two PostgresUserStores over one database', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  const stores: PostgresUserStore[] = [];
  before(async () => {
    database = await createTestDatabase('api_keys_two');
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  after(async () => {
    await database?.drop();
  });
  const open = async (log?: (sql: string) => void) => {
    const store = await PostgresUserStore.open({
      connectionString: database.url,
      maxConnections: 2,
      log: log && ((event) => log(event.query.sql.toLowerCase())),
    });
    stores.push(store);
    return store;
  };

  it("a key revoked, or its owner's role revoked, on one instance is refused on the other at once", async () => {
    const statements: string[] = [];
    const [one, other] = [await open(), await open((text) => statements.push(text))];
    const { userId, key } = await aliceWithKey(one);
    assert.equal((await other.apiKeys.check(key.keyHash, 'posts.write'))?.access, 'granted');

    // One statement a check, the permission's answer in it.
    statements.length = 0;
    assert.equal((await other.apiKeys.check(key.keyHash, 'posts.write'))?.access, 'granted');
    assert.equal(statements.length, 1, statements.join('\n'));
    assert.match(
      statements[0],
      /"role_permissions".* from "api_keys" as "k" inner join "users" as "u" .* where "k"."key_hash" = \$3$/,
    );

    assert.equal(await one.transaction((tx) => tx.access.revokeRole(userId, 'writer')), 'ok');
    assert.equal((await other.apiKeys.check(key.keyHash, 'posts.write'))?.access, 'denied');
    assert.equal(await one.transaction((tx) => tx.access.grantRole(userId, 'writer')), 'ok');
    assert.equal((await other.apiKeys.check(key.keyHash, 'posts.write'))?.access, 'granted');

    await other.apiKeys.touch(key.id, DAY_LATER, '192.0.2.9');
    assert.deepEqual((await one.apiKeys.check(key.keyHash))?.lastUsedAt, DAY_LATER);

    assert.ok(await one.transaction((tx) => tx.apiKeys.deleteByHash(key.keyHash)));
    assert.equal(await other.apiKeys.check(key.keyHash), null);
    assert.equal(await other.apiKeys.check(key.keyHash, 'posts.write'), null);
  });

  it('revocations on one instance racing checks on the other: null from the commit on, never an error', async () => {
    const [one, other] = [await open(), await open()];
    const userId = (await register(one, 'bob')).user.id;
    for (let round = 0; round < 5; round++) {
      const key = keyOf(userId, `k-${round}`);
      await one.transaction(async (tx) => {
        await tx.apiKeys.lockOwner(userId);
        assert.equal(await tx.apiKeys.create(key), 'created');
      });
      let committed = false;
      const checks = (async () => {
        for (let i = 0; i < 20; i++) {
          const before = committed;
          const check = await other.apiKeys.check(key.keyHash);
          if (before) assert.equal(check, null);
          else assert.ok(check === null || check.keyId === key.id);
        }
      })();
      const revocation = (async () => {
        await new Promise((resolve) => setTimeout(resolve, round));
        assert.equal((await one.transaction((tx) => tx.apiKeys.deleteAll(userId))).length, 1);
        committed = true;
      })();
      await Promise.all([checks, revocation]);
      assert.equal(await other.apiKeys.check(key.keyHash), null);
    }
  });
});
