import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ApiKeyRecords, StoredApiKey, StoredServiceAccount } from '../../../services/api-keys/api-key-records';
import { accountView } from '../../../services/types';
import type { UserStoreTransaction } from '../../../services/user-store';
import { describe, it, DAY_LATER, HOUR, HOUR_LATER, T0, fulfilled, type ConformanceSuite } from '../support';

const MINUTE = 60_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

/** What a creation checks before it inserts, as the core does under the owner's lock (`ApiKeyRecords`). */
type Creation = 'created' | 'name_taken' | 'limit' | 'gone' | 'not_held';

/**
 * API keys and service accounts (`tx.apiKeys`, `store.apiKeys`): the keys (the owner's rows, stored only as their
 * hash), the request path's check with the owner's permission in the same read, last use, revocations, the owner's
 * lock the core decides under, the clean-up, and the races the core relies on the store for.
 */
export function describeApiKeys(suite: ConformanceSuite): void {
  const { registered, transaction } = suite;
  const reads = () => suite.store.apiKeys;
  const write = <T>(work: (tx: ApiKeyRecords, whole: UserStoreTransaction) => Promise<T>): Promise<T> =>
    transaction((tx) => work(tx.apiKeys, tx));

  const keyOf = (userId: string, label: string, overrides: Partial<StoredApiKey> = {}): StoredApiKey => ({
    id: randomUUID(),
    keyHash: `api-key-hash-${label}-${randomUUID()}`,
    userId,
    name: label,
    lastFour: 'Ab12',
    scopes: ['posts.read'],
    createdAt: new Date(T0),
    expiresAt: new Date(DAY_LATER),
    lastUsedAt: null,
    lastUsedIp: null,
    createdBy: userId,
    ...overrides,
  });
  /** Stores the key under its owner's lock, as the core creates one; the store's answer. */
  const stored = (key: StoredApiKey) =>
    write(async (tx) => {
      assert.equal(await tx.lockOwner(key.userId), true);
      return tx.create(key);
    });
  const created = async (key: StoredApiKey): Promise<StoredApiKey> => {
    assert.equal(await stored(key), 'created');
    return key;
  };
  /**
   * A creation as the core decides it, in one transaction under the owner's lock: expired keys go first, then the
   * live ones are counted against `limit`, the scopes checked against the owner's permissions, and the key inserted.
   */
  const create = (key: StoredApiKey, limit: number, now = new Date(T0)): Promise<Creation> =>
    write(async (tx) => {
      if (!(await tx.lockOwner(key.userId))) return 'gone';
      await tx.deleteExpiredOf(key.userId, now);
      if ((await tx.countLive(key.userId, now)) >= limit) return 'limit';
      const held = new Set(await tx.permissionsOf(key.userId));
      if (!key.scopes.every((scope) => held.has(scope))) return 'not_held';
      return tx.create(key);
    });
  const listing = (key: StoredApiKey, createdByUsername: string | null) => {
    const { keyHash: _hash, ...rest } = key;
    return { ...rest, createdByUsername };
  };
  const revoked = (key: StoredApiKey) => ({ id: key.id, userId: key.userId, name: key.name, lastFour: key.lastFour });
  /** A role carrying the permissions, granted to the user (globally). */
  const holding = async (userId: string, role: string, permissions: string[]) => {
    await transaction(async (tx) => {
      await tx.access.createRole(role);
      for (const permission of permissions) {
        await tx.access.createPermission(permission);
        assert.equal(await tx.access.grantPermission(role, permission), 'ok');
      }
      assert.equal(await tx.access.grantRole(userId, role), 'ok');
    });
  };
  const userId = async (label: string) => (await registered(label)).user.id;

  describe('API keys', () => {
    it('creates keys, checks one by its hash with its owner in one read, and lists them newest first', async () => {
      const { user: alice } = await registered('alice');
      const bob = await userId('bob');
      const first = await created(keyOf(alice.id, 'ci', { scopes: ['posts.read', 'posts.write'] }));
      const second = await created(
        keyOf(alice.id, 'deploy', { createdAt: at(MINUTE), lastUsedAt: at(2 * MINUTE), lastUsedIp: '192.0.2.1' }),
      );
      const third = await created(keyOf(alice.id, 'backup', { createdAt: at(MINUTE), createdBy: bob }));

      assert.deepEqual(await reads().check(first.keyHash), {
        keyId: first.id,
        user: accountView(alice),
        disabled: false,
        expiresAt: first.expiresAt,
        scopes: ['posts.read', 'posts.write'],
        lastUsedAt: null,
      });
      assert.deepEqual((await reads().check(second.keyHash))?.lastUsedAt, at(2 * MINUTE));
      assert.equal(await reads().check('no-such-hash'), null);
      assert.equal(await reads().check('no-such-hash', 'posts.read'), null);

      // Newest first: `createdAt`, then the id, both descending.
      const [tied1, tied2] = [second, third].sort((a, b) => (a.id < b.id ? 1 : -1));
      assert.deepEqual(await reads().list(alice.id), [
        listing(tied1, tied1 === third ? 'bob' : 'alice'),
        listing(tied2, tied2 === third ? 'bob' : 'alice'),
        listing(first, 'alice'),
      ]);
      assert.deepEqual(await reads().list(bob), []);
      assert.deepEqual(await reads().list(randomUUID()), []);
    });

    it("answers the owner's permission now in the same read: granted, denied or unknown", async () => {
      const alice = await userId('alice');
      const key = await created(keyOf(alice, 'ci'));
      await holding(alice, 'reader', ['posts.read']);
      await transaction((tx) => tx.access.createPermission('posts.delete'));
      await transaction(async (tx) => {
        await tx.access.createRole('editor');
        await tx.access.createPermission('posts.write');
        await tx.access.grantPermission('editor', 'posts.write');
        // A grant in an organization's scope is not a global one: the check never counts it.
        assert.equal(await tx.access.grantRole(alice, 'editor', { scope: 'org-1' }), 'ok');
      });

      const access = async (permission: string) => (await reads().check(key.keyHash, permission))?.access;
      assert.equal(await access('posts.read'), 'granted');
      assert.equal(await access('posts.delete'), 'denied');
      assert.equal(await access('posts.write'), 'denied');
      assert.equal(await access('posts.nothing'), 'unknown');
      assert.equal((await reads().check(key.keyHash))?.access, undefined);

      await transaction((tx) => tx.access.revokeRole(alice, 'reader'));
      assert.equal(await access('posts.read'), 'denied', 'a revoked role counts at the next check');
      await transaction((tx) => tx.access.grantRole(alice, 'reader'));
      await transaction((tx) => tx.access.revokePermission('reader', 'posts.read'));
      assert.equal(await access('posts.read'), 'denied', 'a permission taken from the role counts at the next check');
    });

    it("answers the owner's disabled mark and leaves the expiry to the caller", async () => {
      const alice = await userId('alice');
      const expired = await created(keyOf(alice, 'old', { expiresAt: new Date(T0) }));
      assert.deepEqual((await reads().check(expired.keyHash))?.expiresAt, T0);
      assert.equal(await write((_tx, tx) => tx.users.disable(alice, at(1))), 'ok');
      assert.equal((await reads().check(expired.keyHash))?.disabled, true);
      assert.equal(await write((_tx, tx) => tx.users.enable(alice, at(2))), 'ok');
      assert.equal((await reads().check(expired.keyHash))?.disabled, false);
    });

    it("outlives a password reset: a key is not tied to its owner's credential state, as a session is", async () => {
      const alice = await userId('alice');
      const key = await created(keyOf(alice, 'ci'));
      const session = await suite.sessionFor(alice, 'alice');
      const resetHash = await suite.resetTokenFor(alice, 'alice');
      assert.ok(await transaction((tx) => tx.passwords.reset(resetHash, 'new-hash', new Date(T0))));
      assert.equal(await suite.store.sessions.check(session.tokenHash), null, 'the session ended');
      assert.equal((await reads().check(key.keyHash))?.keyId, key.id, 'the key stays');
    });

    it('records the last use of a key that still exists, off any transaction', async () => {
      const alice = await userId('alice');
      const key = await created(keyOf(alice, 'ci'));
      await reads().touch(key.id, HOUR_LATER, '198.51.100.7');
      assert.deepEqual((await reads().check(key.keyHash))?.lastUsedAt, HOUR_LATER);
      const [listed] = await reads().list(alice);
      assert.deepEqual([listed.lastUsedAt, listed.lastUsedIp], [HOUR_LATER, '198.51.100.7']);
      await reads().touch(key.id, DAY_LATER, null);
      const [again] = await reads().list(alice);
      assert.deepEqual([again.lastUsedAt, again.lastUsedIp], [DAY_LATER, null]);

      await reads().touch(randomUUID(), HOUR_LATER, '198.51.100.7');
      await write((tx) => tx.delete(alice, key.id));
      await reads().touch(key.id, HOUR_LATER, '198.51.100.7');
      assert.deepEqual(await reads().list(alice), []);
    });

    it('keeps names unique per owner: a taken name is an answer and inserts nothing; a revoked name is free', async () => {
      const [alice, bob] = [await userId('alice'), await userId('bob')];
      const ci = await created(keyOf(alice, 'ci'));
      const again = keyOf(alice, 'ci');
      assert.equal(await stored(again), 'name_taken');
      assert.equal(await reads().check(again.keyHash), null);
      assert.equal((await reads().list(alice)).length, 1);
      assert.equal(await stored(keyOf(bob, 'ci')), 'created', "another owner's key may have the name");
      assert.equal(await stored(keyOf(alice, 'CI')), 'created', 'names are compared exactly');

      assert.deepEqual(await write((tx) => tx.delete(alice, ci.id)), revoked(ci));
      assert.equal(await stored(again), 'created');
    });

    it('refuses a key of an unknown owner or creator, or with a hash or id already stored, and keeps nothing', async () => {
      const alice = await userId('alice');
      const ci = await created(keyOf(alice, 'ci'));
      const ghostOwner = keyOf(randomUUID(), 'ghost', { createdBy: null });
      await assert.rejects(write((tx) => tx.create(ghostOwner)));
      const ghostCreator = keyOf(alice, 'ghost', { createdBy: randomUUID() });
      await assert.rejects(write((tx) => tx.create(ghostCreator)));
      await assert.rejects(write((tx) => tx.create(keyOf(alice, 'copy', { keyHash: ci.keyHash }))));
      await assert.rejects(write((tx) => tx.create(keyOf(alice, 'same-id', { id: ci.id }))));
      const alongside = keyOf(alice, 'alongside');
      await assert.rejects(
        write(async (tx) => {
          assert.equal(await tx.create(alongside), 'created');
          await tx.create(keyOf(alice, 'copy', { keyHash: ci.keyHash }));
        }),
      );
      assert.deepEqual(
        (await reads().list(alice)).map((key) => key.name),
        ['ci'],
      );
      assert.equal(await reads().check(alongside.keyHash), null);
      assert.equal(await reads().check(ghostCreator.keyHash), null);
    });

    it("locks an owner that exists, and reads the permissions of the owner's global roles, sorted", async () => {
      const alice = await userId('alice');
      assert.equal(await write((tx) => tx.lockOwner(alice)), true);
      assert.equal(await write((tx) => tx.lockOwner(randomUUID())), false);
      assert.equal(await write((tx) => tx.lockOwner('bad\u0000id')), false);
      assert.deepEqual(await write((tx) => tx.permissionsOf(alice)), []);
      await holding(alice, 'writer', ['posts.write', 'posts.read']);
      await holding(alice, 'reader', ['posts.read', 'comments.read']);
      await transaction(async (tx) => {
        await tx.access.createRole('auditor');
        await tx.access.createPermission('audit.read');
        await tx.access.grantPermission('auditor', 'audit.read');
        await tx.access.grantRole(alice, 'auditor', { scope: 'org-1' });
      });
      assert.deepEqual(await write((tx) => tx.permissionsOf(alice)), ['comments.read', 'posts.read', 'posts.write']);
      assert.deepEqual(await write((tx) => tx.permissionsOf(randomUUID())), []);
    });

    it('counts the live keys and deletes the expired ones of one owner (at or before now), freeing their names', async () => {
      const [alice, bob] = [await userId('alice'), await userId('bob')];
      await created(keyOf(alice, 'expired', { expiresAt: at(-1) }));
      await created(keyOf(alice, 'at-now', { expiresAt: new Date(T0) }));
      const live = await created(keyOf(alice, 'live', { expiresAt: at(1) }));
      const bobs = await created(keyOf(bob, 'expired', { expiresAt: at(-1) }));
      assert.equal(await write((tx) => tx.countLive(alice, T0)), 1);
      assert.equal(await write((tx) => tx.countLive(alice, at(-2))), 3);
      assert.equal(await write((tx) => tx.countLive(randomUUID(), T0)), 0);

      assert.equal(await write((tx) => tx.deleteExpiredOf(alice, T0)), 2);
      assert.deepEqual(
        (await reads().list(alice)).map((key) => key.id),
        [live.id],
      );
      assert.equal((await reads().list(bob))[0]?.id, bobs.id, "another owner's expired keys stay");
      assert.equal(await write((tx) => tx.deleteExpiredOf(alice, T0)), 0);
      assert.equal(await stored(keyOf(alice, 'expired')), 'created');
    });

    it("revokes one key of its owner by id, a key by its hash whoever owns it, and all of an owner's keys", async () => {
      const [alice, bob] = [await userId('alice'), await userId('bob')];
      const one = await created(keyOf(alice, 'one'));
      const two = await created(keyOf(alice, 'two', { createdAt: at(MINUTE) }));
      const three = await created(keyOf(alice, 'three', { createdAt: at(2 * MINUTE) }));
      const bobs = await created(keyOf(bob, 'one'));

      assert.equal(await write((tx) => tx.delete(bob, one.id)), null, "not another owner's key");
      assert.equal(await write((tx) => tx.delete(alice, randomUUID())), null);
      assert.equal(await write((tx) => tx.delete(alice, 'bad\u0000id')), null);
      assert.deepEqual(await write((tx) => tx.delete(alice, one.id)), revoked(one));
      assert.equal(await reads().check(one.keyHash), null);
      assert.equal(await write((tx) => tx.delete(alice, one.id)), null, 'once');

      assert.deepEqual(await write((tx) => tx.deleteByHash(bobs.keyHash)), revoked(bobs));
      assert.equal(await write((tx) => tx.deleteByHash(bobs.keyHash)), null);
      assert.equal(await write((tx) => tx.deleteByHash('no-such-hash')), null);
      assert.equal(await reads().check(bobs.keyHash), null);

      assert.deepEqual(await write((tx) => tx.deleteAll(alice)), [revoked(three), revoked(two)]);
      assert.deepEqual(await write((tx) => tx.deleteAll(alice)), []);
      assert.deepEqual(await write((tx) => tx.deleteAll(randomUUID())), []);
      assert.deepEqual(await reads().list(alice), []);
      assert.equal(await reads().check(two.keyHash), null);
    });

    it('a revocation rolled back with its transaction leaves the key working', async () => {
      const alice = await userId('alice');
      const key = await created(keyOf(alice, 'ci'));
      await assert.rejects(
        write(async (tx) => {
          assert.deepEqual(await tx.deleteAll(alice), [revoked(key)]);
          throw new Error('undone');
        }),
        /undone/,
      );
      assert.equal((await reads().check(key.keyHash))?.keyId, key.id);
    });

    it('deleteExpired removes the expired keys and keeps the live ones', async () => {
      const [alice, bob] = [await userId('alice'), await userId('bob')];
      await created(keyOf(alice, 'expired', { expiresAt: at(-HOUR) }));
      await created(keyOf(bob, 'at-now', { expiresAt: new Date(T0) }));
      const live = await created(keyOf(alice, 'live', { expiresAt: at(1) }));
      assert.equal(await suite.store.deleteExpired({ now: new Date(T0), sessionIdleBefore: at(-HOUR) }), 2);
      assert.deepEqual(
        (await reads().list(alice)).map((key) => key.id),
        [live.id],
      );
      assert.deepEqual(await reads().list(bob), []);
    });

    it("an owner's keys and service account go with the owner; what a deleted creator made stays, without it", async () => {
      const [admin, robot, alice] = [await userId('admin'), await userId('robot'), await userId('alice')];
      await write((tx) => tx.createServiceAccount({ userId: robot, createdAt: new Date(T0), createdBy: admin }));
      const robots = await created(keyOf(robot, 'ci', { createdBy: admin }));
      const alices = await created(keyOf(alice, 'ci'));

      assert.equal((await suite.deleteUser(admin)).outcome, 'deleted');
      assert.deepEqual(await reads().list(robot), [listing({ ...robots, createdBy: null }, null)]);
      assert.deepEqual(await reads().serviceAccount(robot), { userId: robot, createdAt: T0, createdBy: null });
      assert.equal((await reads().check(robots.keyHash))?.keyId, robots.id);

      assert.equal((await suite.deleteUser(robot)).outcome, 'deleted');
      assert.equal(await reads().check(robots.keyHash), null);
      assert.deepEqual(await reads().list(robot), []);
      assert.equal(await reads().serviceAccount(robot), null);
      assert.deepEqual(await reads().listServiceAccounts(), []);
      assert.equal(await write((tx) => tx.deleteByHash(robots.keyHash)), null);

      assert.equal((await reads().check(alices.keyHash))?.keyId, alices.id, "another user's keys stay");
    });

    it('an unconfirmed registration that expires takes its keys with it', async () => {
      const alice = await userId('alice');
      const key = await created(keyOf(alice, 'ci'));
      await suite.store.deleteExpired({
        now: new Date(T0),
        sessionIdleBefore: at(-HOUR),
        unverifiedCreatedBefore: HOUR_LATER,
      });
      assert.equal(await reads().check(key.keyHash), null);
      assert.deepEqual(await reads().list(alice), []);
    });

    it('marks service accounts, finds them in and out of a transaction, and lists them oldest first', async () => {
      const [admin, robot, bot, alice] = [
        await userId('admin'),
        await userId('robot'),
        await userId('bot'),
        await userId('alice'),
      ];
      const robotAccount: StoredServiceAccount = { userId: robot, createdAt: at(MINUTE), createdBy: admin };
      const botAccount: StoredServiceAccount = { userId: bot, createdAt: new Date(T0), createdBy: null };
      await write((tx) => tx.createServiceAccount(robotAccount));
      await write((tx) => tx.createServiceAccount(botAccount));
      assert.deepEqual(await reads().serviceAccount(robot), robotAccount);
      assert.deepEqual(await write((tx) => tx.serviceAccount(bot)), botAccount);
      assert.equal(await reads().serviceAccount(alice), null, 'a person');
      assert.equal(await write((tx) => tx.serviceAccount(alice)), null);
      assert.equal(await reads().serviceAccount(randomUUID()), null);
      assert.deepEqual(await reads().listServiceAccounts(), [botAccount, robotAccount]);

      await assert.rejects(write((tx) => tx.createServiceAccount({ ...botAccount, createdAt: at(HOUR) })));
      await assert.rejects(write((tx) => tx.createServiceAccount({ ...botAccount, userId: randomUUID() })));
      await assert.rejects(write((tx) => tx.createServiceAccount({ userId: alice, createdAt: T0, createdBy: 'x' })));
      assert.deepEqual(await reads().listServiceAccounts(), [botAccount, robotAccount]);
    });

    it('hands out copies: changing a returned row changes nothing stored', async () => {
      const alice = await userId('alice');
      const key = keyOf(alice, 'ci', { scopes: ['posts.read'] });
      await created(key);
      (key.scopes as string[]).length = 0;
      key.expiresAt.setTime(0);
      const check = await reads().check(key.keyHash);
      assert.ok(check);
      assert.deepEqual(check.scopes, ['posts.read']);
      assert.deepEqual(check.expiresAt, DAY_LATER);
      check.expiresAt.setTime(0);
      const [listed] = await reads().list(alice);
      listed.createdAt.setTime(0);
      assert.deepEqual((await reads().check(key.keyHash))?.expiresAt, DAY_LATER);
      assert.deepEqual((await reads().list(alice))[0].createdAt, T0);
    });

    describe('races', () => {
      const RACERS = 8;

      it('a revocation racing checks: each check answers the key or null, and null from the commit on', async () => {
        const alice = await userId('alice');
        await holding(alice, 'reader', ['posts.read']);
        for (let round = 0; round < 3; round++) {
          const key = await created(keyOf(alice, `ci-${round}`));
          let committed = false;
          const answers: (string | null)[] = [];
          const checks = (async () => {
            for (let i = 0; i < 30; i++) {
              const before = committed;
              const check = await reads().check(key.keyHash, 'posts.read');
              if (before) assert.equal(check, null, 'after the revocation committed, the key is gone');
              if (check) assert.equal(check.access, 'granted');
              answers.push(check?.keyId ?? null);
              // Lets the writer run between reads on a store that answers synchronously.
              await new Promise((resolve) => setImmediate(resolve));
            }
          })();
          const revocation = (async () => {
            await new Promise((resolve) => setImmediate(resolve));
            const gone = round % 2 === 0 ? write((tx) => tx.delete(alice, key.id)) : write((tx) => tx.deleteAll(alice));
            assert.ok(await gone);
            committed = true;
          })();
          await Promise.all([checks, revocation]);
          for (const answer of answers) assert.ok(answer === key.id || answer === null, String(answer));
          assert.equal(await reads().check(key.keyHash), null);
        }
      });

      it("a role revoked while keys are created: whatever the order, every key that exists is denied the role's permission", async () => {
        const alice = await userId('alice');
        await holding(alice, 'writer', ['posts.write']);
        for (let round = 0; round < 4; round++) {
          if (round > 0) await transaction((tx) => tx.access.grantRole(alice, 'writer'));
          const keys = Array.from({ length: 3 }, (_, i) =>
            keyOf(alice, `w-${round}-${i}`, { scopes: ['posts.write'] }),
          );
          const creations = keys.map((key) => create(key, 50));
          const revocation = transaction((tx) => tx.access.revokeRole(alice, 'writer'));
          const [answers, revoked] = await Promise.all([Promise.all(creations), revocation]);
          assert.equal(revoked, 'ok');
          for (const answer of answers) assert.ok(answer === 'created' || answer === 'not_held', answer);
          for (const [i, key] of keys.entries()) {
            const check = await reads().check(key.keyHash, 'posts.write');
            if (answers[i] === 'created') assert.equal(check?.access, 'denied', 'a scope its owner no longer holds');
            else assert.equal(check, null);
          }
        }
      });

      it(`${RACERS} creations racing for the last places under the owner's lock: exactly the places left are taken`, async () => {
        const alice = await userId('alice');
        await holding(alice, 'reader', ['posts.read']);
        const LIMIT = 50;
        await write(async (tx) => {
          await tx.lockOwner(alice);
          for (let i = 0; i < LIMIT - 3; i++) assert.equal(await tx.create(keyOf(alice, `k-${i}`)), 'created');
          // Expired ones count for nothing, and go with the first creation.
          for (let i = 0; i < 4; i++) await tx.create(keyOf(alice, `old-${i}`, { expiresAt: new Date(T0) }));
        });
        const answers = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, (_, i) => create(keyOf(alice, `racer-${i}`), LIMIT, at(1))),
          ),
        );
        assert.equal(answers.length, RACERS, 'none throws');
        assert.deepEqual([...answers].sort(), [...Array(3).fill('created'), ...Array(RACERS - 3).fill('limit')].sort());
        assert.equal(await write((tx) => tx.countLive(alice, at(1))), LIMIT);
        assert.equal((await reads().list(alice)).length, LIMIT);
      });

      it(`${RACERS} creations of one name at once: exactly one is created, the others are told the name is taken`, async () => {
        const alice = await userId('alice');
        await holding(alice, 'reader', ['posts.read']);
        const racers = Array.from({ length: RACERS }, () => keyOf(alice, 'deploy'));
        const answers = fulfilled(await Promise.allSettled(racers.map((key) => create(key, 50))));
        assert.equal(answers.length, RACERS, 'none throws');
        assert.deepEqual([...answers].sort(), ['created', ...Array(RACERS - 1).fill('name_taken')].sort());
        const [kept] = await reads().list(alice);
        const winner = racers.find((key) => key.id === kept.id);
        assert.ok(winner);
        for (const key of racers) {
          assert.equal((await reads().check(key.keyHash))?.keyId ?? null, key === winner ? key.id : null);
        }
      });

      it(`${RACERS} creations racing the deletion of their owner: none outlives the owner`, async () => {
        const alice = await userId('alice');
        await holding(alice, 'reader', ['posts.read']);
        const keys = Array.from({ length: RACERS }, (_, i) => keyOf(alice, `k-${i}`));
        const creations = Promise.allSettled(keys.map((key) => create(key, 50)));
        const deletion = suite.deleteUser(alice);
        const [answers, deleted] = await Promise.all([creations, deletion]);
        assert.equal(deleted.outcome, 'deleted');
        for (const answer of fulfilled(answers)) assert.ok(answer === 'created' || answer === 'gone', answer);
        for (const key of keys) assert.equal(await reads().check(key.keyHash), null);
      });
    });
  });
}
