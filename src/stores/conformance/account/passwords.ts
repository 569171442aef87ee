import assert from 'node:assert/strict';
import { describe, it, T0, DAY_LATER, type ConformanceSuite } from '../support';

export function describePasswords(suite: ConformanceSuite): void {
  const { registered, sessionRow, sessionFor, resetTokenFor } = suite;
  describe('passwords', () => {
    it('changePassword with a session hash changes only while that session of the user exists', async () => {
      const { user } = await registered('alice');
      const other = await registered('bob');
      await sessionFor(other.user.id, 'bob');
      assert.equal(
        await suite.store.changePassword(user.id, user.passwordHash, 'h2', T0, undefined, 'session-bob'),
        false,
      );
      assert.equal(await suite.store.changePassword(user.id, user.passwordHash, 'h2', T0, undefined, 'unknown'), false);
      await sessionFor(user.id, 'alice');
      await suite.store.deleteUserSessions(user.id); // a logout-all that committed while the new password was hashed
      assert.equal(
        await suite.store.changePassword(user.id, user.passwordHash, 'h2', T0, undefined, 'session-alice'),
        false,
      );
      assert.equal((await suite.store.findUserById(user.id))?.passwordHash, user.passwordHash, 'nothing changed');

      await sessionFor(user.id, 'alice');
      assert.equal(
        await suite.store.changePassword(user.id, user.passwordHash, 'h2', T0, undefined, 'session-alice'),
        true,
      );
      assert.equal((await suite.store.findUserById(user.id))?.passwordHash, 'h2');
      assert.equal(
        await suite.store.getSessionAndUser('session-alice'),
        null,
        'and it ended the session with the rest',
      );
    });

    it('changePassword replaces the hash, ends sessions and reset tokens, keeps verification tokens', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await sessionFor(alice.user.id, 'alice-1');
      await sessionFor(alice.user.id, 'alice-2');
      await sessionFor(bob.user.id, 'bob');
      const resetHash = await resetTokenFor(alice.user.id, 'alice');
      const now = new Date(T0.getTime() + 1000);

      assert.equal(await suite.store.changePassword(alice.user.id, alice.user.passwordHash, 'new-hash', now), true);
      assert.deepEqual(await suite.store.findUserById(alice.user.id), {
        ...alice.user,
        passwordHash: 'new-hash',
        updatedAt: now,
      });
      assert.equal(await suite.store.getSessionAndUser('session-alice-1'), null);
      assert.equal(await suite.store.getSessionAndUser('session-alice-2'), null);
      assert.equal(await suite.store.resetPassword(resetHash, 'other-hash', now), null, 'outstanding reset ended');
      assert.ok(await suite.store.getSessionAndUser('session-bob'));
      assert.ok(await suite.store.verifyEmail(alice.verificationHash, now));
    });

    it('changePassword with a stale expected hash returns false and changes nothing', async () => {
      const { user } = await registered('alice');
      await sessionFor(user.id, 'alice');
      const resetHash = await resetTokenFor(user.id, 'alice');

      assert.equal(await suite.store.changePassword(user.id, 'stale-hash', 'new-hash', DAY_LATER), false);
      assert.deepEqual(await suite.store.findUserById(user.id), user);
      assert.ok(await suite.store.getSessionAndUser('session-alice'));
      assert.ok(await suite.store.findUserByToken(resetHash, 'reset_password', T0));
    });

    it('changePassword and rehashPassword return false for an unknown user', async () => {
      assert.equal(await suite.store.changePassword('no-such-id', 'hash', 'new-hash', T0), false);
      assert.equal(await suite.store.rehashPassword('no-such-id', 'hash', 'new-hash', T0), false);
    });

    it('rehashPassword replaces an unchanged hash and leaves sessions and tokens alone', async () => {
      const { user } = await registered('alice');
      await sessionFor(user.id, 'alice');
      const resetHash = await resetTokenFor(user.id, 'alice');
      const now = new Date(T0.getTime() + 1000);

      assert.equal(await suite.store.rehashPassword(user.id, user.passwordHash, 'stronger-hash', now), true);
      assert.deepEqual(await suite.store.findUserById(user.id), {
        ...user,
        passwordHash: 'stronger-hash',
        updatedAt: now,
      });
      assert.ok(await suite.store.getSessionAndUser('session-alice'));
      assert.ok(await suite.store.findUserByToken(resetHash, 'reset_password', T0));
    });

    it('createSession refuses a stale password hash and a deleted user, inserting nothing', async () => {
      const { user } = await registered('alice');
      assert.equal(await suite.store.createSession(sessionRow(user.id, 'stale'), 'not-the-hash'), false);
      assert.equal(await suite.store.getSessionAndUser('session-stale'), null);
      assert.equal(await suite.store.deleteUser(user.id), true);
      assert.equal(await suite.store.createSession(sessionRow(user.id, 'gone'), user.passwordHash), false);
      assert.equal(await suite.store.getSessionAndUser('session-gone'), null);
    });

    it('rehashPassword with a stale expected hash returns false and changes nothing', async () => {
      const { user } = await registered('alice');
      assert.equal(await suite.store.rehashPassword(user.id, 'stale-hash', 'stronger-hash', DAY_LATER), false);
      assert.deepEqual(await suite.store.findUserById(user.id), user);
    });

    it('after a password replacement resolves, no session of the user is left (reset and change alike)', async () => {
      // Sessions created up to the call, including ones started concurrently with it, must not outlive it.
      const { user } = await registered('alice');
      const resetHash = await resetTokenFor(user.id, 'alice');
      // Started with the old hash: each lands before the reset (and is ended by it) or is refused.
      const before = Array.from({ length: 5 }, (_, i) =>
        suite.store.createSession(sessionRow(user.id, `before-${i}`), user.passwordHash),
      );
      const reset = suite.store.resetPassword(resetHash, 'hash-2', T0);
      await Promise.all(before);
      assert.ok(await reset);
      for (let i = 0; i < 5; i++) assert.equal(await suite.store.getSessionAndUser(`session-before-${i}`), null);

      await Promise.all(Array.from({ length: 5 }, (_, i) => sessionFor(user.id, `again-${i}`)));
      assert.equal(await suite.store.changePassword(user.id, 'hash-2', 'hash-3', T0), true);
      for (let i = 0; i < 5; i++) assert.equal(await suite.store.getSessionAndUser(`session-again-${i}`), null);
      assert.equal((await suite.store.findUserById(user.id))?.passwordHash, 'hash-3');
    });
  });
}
