import assert from 'node:assert/strict';
import { describe, it, T0, T0_MINUS_1, message, type ConformanceSuite } from '../support';

export function describeDeleteUser(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor } = suite;
  describe('deleteUser', () => {
    it('with an authorisation, deletes only while its session exists and its password hash is current', async () => {
      const { user } = await registered('alice');
      const other = await registered('bob');
      await sessionFor(user.id, 'alice');
      await sessionFor(other.user.id, 'bob');
      const holds = { sessionTokenHash: 'session-alice', passwordHash: user.passwordHash };
      const notice = message('accountDeleted');

      assert.equal(
        await suite.store.deleteUser(user.id, notice, { ...holds, passwordHash: 'replaced' }),
        false,
        'hash changed',
      );
      assert.equal(
        await suite.store.deleteUser(user.id, notice, { ...holds, sessionTokenHash: 'session-bob' }),
        false,
        'not her session',
      );
      assert.equal(
        await suite.store.deleteUser(user.id, notice, { ...holds, sessionTokenHash: 'unknown' }),
        false,
        'no such session',
      );
      await suite.store.deleteSession('session-alice');
      assert.equal(await suite.store.deleteUser(user.id, notice, holds), false, 'her session ended');
      assert.ok(await suite.store.findUserById(user.id), 'a refused deletion deletes nothing');
      assert.deepEqual(await suite.store.listMessages(), [], 'and queues nothing');

      await sessionFor(user.id, 'alice');
      assert.equal(await suite.store.deleteUser(user.id, notice, holds), true);
      assert.equal(await suite.store.findUserById(user.id), null);
    });

    it('with an authorisation, loses to a reset, a change and a logout-all that came first', async () => {
      const racers = async (label: string) => {
        const { user } = await registered(label);
        await sessionFor(user.id, label);
        return { user, holds: { sessionTokenHash: `session-${label}`, passwordHash: user.passwordHash } };
      };
      const reset = await racers('reset');
      assert.ok(await suite.store.resetPassword(await resetTokenFor(reset.user.id, 'reset'), 'new-hash', T0));
      const changed = await racers('changed');
      assert.ok(await suite.store.changePassword(changed.user.id, changed.user.passwordHash, 'new-hash', T0));
      const loggedOut = await racers('logged-out');
      await suite.store.deleteUserSessions(loggedOut.user.id);
      for (const { user, holds } of [reset, changed, loggedOut]) {
        assert.equal(await suite.store.deleteUser(user.id, undefined, holds), false, user.username);
        assert.ok(await suite.store.findUserById(user.id), user.username);
      }
    });

    it('removes the user with every session, token and grant; then everything about them is absent', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await sessionFor(alice.user.id, 'alice');
      await sessionFor(bob.user.id, 'bob');
      const resetHash = await resetTokenFor(alice.user.id, 'alice');
      await suite.store.createRole('admin');
      await suite.store.createPermission('posts:write');
      await suite.store.grantPermission('admin', 'posts:write');
      await suite.store.grantRole(alice.user.id, 'admin');
      await suite.store.grantRole(bob.user.id, 'admin');

      assert.equal(await suite.store.deleteUser(alice.user.id), true);

      const id = alice.user.id;
      assert.equal(await suite.store.findUserById(id), null);
      assert.equal(await suite.store.findUserByUsernameKey(alice.user.usernameKey), null);
      assert.deepEqual(await suite.store.findUnverifiedUsersByEmailKey(alice.user.emailKey, T0_MINUS_1, 10), []);
      assert.equal(await suite.store.getSessionAndUser('session-alice'), null);
      assert.equal(await suite.store.findUserByToken(resetHash, 'reset_password', T0), null);
      assert.equal(await suite.store.verifyEmail(alice.verificationHash, T0), null);
      assert.equal(await suite.store.resetPassword(resetHash, 'new-hash', T0), null);
      assert.equal(await suite.store.changePassword(id, alice.user.passwordHash, 'new-hash', T0), false);
      assert.equal(await suite.store.rehashPassword(id, alice.user.passwordHash, 'new-hash', T0), false);
      assert.equal(await suite.store.checkRole(id, 'admin'), 'denied');
      assert.equal(await suite.store.checkPermission(id, 'posts:write'), 'denied');
      assert.deepEqual(await suite.store.listUserRoles(id), []);
      assert.equal(await suite.store.grantRole(id, 'admin'), 'unknown_user');
      assert.equal(await suite.store.deleteUser(id), false, 'already gone');

      assert.ok(await suite.store.getSessionAndUser('session-bob'), 'other users are untouched');
      assert.equal(await suite.store.checkPermission(bob.user.id, 'posts:write'), 'granted');
      assert.deepEqual(await suite.store.listRoles(), [{ name: 'admin', permissions: ['posts:write'] }]);
    });

    it('frees the username and email keys for a new registration', async () => {
      const alice = await registered('alice');
      await suite.store.deleteUser(alice.user.id);
      const again = await registered('alice-again', {
        usernameKey: alice.user.usernameKey,
        emailKey: alice.user.emailKey,
      });
      assert.equal((await suite.store.findUserByUsernameKey(alice.user.usernameKey))?.id, again.user.id);
    });

    it('answers false for an unknown user', async () => {
      assert.equal(await suite.store.deleteUser('no-such-id'), false);
    });
  });
}
