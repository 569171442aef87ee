import assert from 'node:assert/strict';
import { describe, it, T0, DAY_LATER, type ConformanceSuite, passwordOf } from '../support';

export function describePasswords(suite: ConformanceSuite): void {
  const { registered, sessionRow, sessionFor, resetTokenFor, transaction } = suite;
  const change = (userId: string, expected: string, next: string, now: Date, sessionHash?: string) =>
    transaction((tx) => tx.passwords.change(userId, expected, next, now, sessionHash));
  describe('passwords', () => {
    it('passwords.change with a session hash changes only while that session of the user exists', async () => {
      const { user } = await registered('alice');
      const other = await registered('bob');
      await sessionFor(other.user.id, 'bob');
      assert.equal(await change(user.id, passwordOf(user), 'h2', T0, 'session-bob'), null);
      assert.equal(await change(user.id, passwordOf(user), 'h2', T0, 'unknown'), null);
      await sessionFor(user.id, 'alice');
      // A logout-all that committed while the new password was hashed.
      assert.equal(await transaction((tx) => tx.sessions.deleteAll(user.id, T0)), 1);
      assert.equal(await change(user.id, passwordOf(user), 'h2', T0, 'session-alice'), null);
      assert.equal(await suite.store.passwords.hashOf(user.id), passwordOf(user), 'nothing changed');

      await sessionFor(user.id, 'alice');
      assert.deepEqual(await change(user.id, passwordOf(user), 'h2', T0, 'session-alice'), {
        ...user,
        updatedAt: T0,
        credentialEpoch: 1,
      });
      assert.equal(await suite.store.passwords.hashOf(user.id), 'h2');
      assert.equal(
        await suite.store.sessions.findWithUser('session-alice'),
        null,
        'and it ended the session with the rest',
      );
    });

    it('passwords.change replaces the hash, ends sessions and reset tokens, keeps verification tokens', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await sessionFor(alice.user.id, 'alice-1');
      await sessionFor(alice.user.id, 'alice-2');
      await sessionFor(bob.user.id, 'bob');
      const resetHash = await resetTokenFor(alice.user.id, 'alice');
      const now = new Date(T0.getTime() + 1000);

      const changed = { ...alice.user, updatedAt: now, credentialEpoch: 1 };
      assert.deepEqual(await change(alice.user.id, passwordOf(alice.user), 'new-hash', now), changed);
      assert.deepEqual(await suite.store.users.findById(alice.user.id), changed);
      assert.equal(await suite.store.sessions.findWithUser('session-alice-1'), null);
      assert.equal(await suite.store.sessions.findWithUser('session-alice-2'), null);
      assert.equal(
        await transaction((tx) => tx.passwords.reset(resetHash, 'other-hash', now)),
        null,
        'outstanding reset ended',
      );
      assert.ok(await suite.store.sessions.findWithUser('session-bob'));
      assert.ok(await transaction((tx) => tx.users.confirmAddress(alice.verificationHash, now)));
    });

    it('passwords.change with a stale expected hash returns null and changes nothing', async () => {
      const { user } = await registered('alice');
      await sessionFor(user.id, 'alice');
      const resetHash = await resetTokenFor(user.id, 'alice');

      assert.equal(await change(user.id, 'stale-hash', 'new-hash', DAY_LATER), null);
      assert.deepEqual(await suite.store.users.findById(user.id), user);
      assert.ok(await suite.store.sessions.findWithUser('session-alice'));
      assert.ok(await suite.store.tokens.findUser(resetHash, 'reset_password', T0));
    });

    it('passwords.change and passwords.rehash refuse an unknown user', async () => {
      assert.equal(await change('no-such-id', 'hash', 'new-hash', T0), null);
      assert.equal(await transaction((tx) => tx.passwords.rehash('no-such-id', 'hash', 'new-hash', T0)), false);
    });

    it('passwords.rehash replaces an unchanged hash and leaves sessions and tokens alone', async () => {
      const { user } = await registered('alice');
      await sessionFor(user.id, 'alice');
      const resetHash = await resetTokenFor(user.id, 'alice');
      const now = new Date(T0.getTime() + 1000);

      assert.equal(
        await transaction((tx) => tx.passwords.rehash(user.id, passwordOf(user), 'stronger-hash', now)),
        true,
      );
      assert.deepEqual(await suite.store.users.findById(user.id), {
        ...user,
        updatedAt: now,
      });
      assert.ok(await suite.store.sessions.findWithUser('session-alice'));
      assert.ok(await suite.store.tokens.findUser(resetHash, 'reset_password', T0));
    });

    it('sessions.create refuses another credential epoch and a deleted user, inserting nothing', async () => {
      const { user } = await registered('alice');
      const stale = sessionRow(user.id, 'stale', { credentialEpoch: 1 });
      assert.equal(await transaction((tx) => tx.sessions.create(stale), { durable: false }), false);
      assert.equal(await suite.store.sessions.findWithUser('session-stale'), null);
      assert.equal((await transaction((tx) => tx.users.delete(user.id, T0))).outcome, 'deleted');
      assert.equal(
        await transaction((tx) => tx.sessions.create(sessionRow(user.id, 'gone')), {
          durable: false,
        }),
        false,
      );
      assert.equal(await suite.store.sessions.findWithUser('session-gone'), null);
    });

    it('passwords.rehash with a stale expected hash returns false and changes nothing', async () => {
      const { user } = await registered('alice');
      assert.equal(
        await transaction((tx) => tx.passwords.rehash(user.id, 'stale-hash', 'stronger-hash', DAY_LATER)),
        false,
      );
      assert.deepEqual(await suite.store.users.findById(user.id), user);
    });

    it('after a password replacement resolves, no session of the user is left (reset and change alike)', async () => {
      // Sessions created up to the call, including ones started concurrently with it, must not outlive it.
      const { user } = await registered('alice');
      const resetHash = await resetTokenFor(user.id, 'alice');
      // Started with the old hash: each lands before the reset (and is ended by it) or is refused.
      const before = Array.from({ length: 5 }, (_, i) =>
        transaction((tx) => tx.sessions.create(sessionRow(user.id, `before-${i}`)), {
          durable: false,
        }),
      );
      const reset = transaction((tx) => tx.passwords.reset(resetHash, 'hash-2', T0));
      await Promise.all(before);
      assert.ok(await reset);
      for (let i = 0; i < 5; i++) assert.equal(await suite.store.sessions.findWithUser(`session-before-${i}`), null);

      await Promise.all(Array.from({ length: 5 }, (_, i) => sessionFor(user.id, `again-${i}`)));
      assert.ok(await change(user.id, 'hash-2', 'hash-3', T0));
      for (let i = 0; i < 5; i++) assert.equal(await suite.store.sessions.findWithUser(`session-again-${i}`), null);
      assert.equal(await suite.store.passwords.hashOf(user.id), 'hash-3');
    });
  });
}
