import assert from 'node:assert/strict';
import { describe, it, T0, T0_MINUS_1, message, type ConformanceSuite, passwordOf } from '../support';

export function describeDeleteUser(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor, deleteUser, transaction } = suite;
  describe('users.delete', () => {
    it('with an authorisation, deletes only while its session exists and its credential epoch is current', async () => {
      const { user } = await registered('alice');
      const other = await registered('bob');
      await sessionFor(user.id, 'alice');
      await sessionFor(other.user.id, 'bob');
      const holds = { sessionTokenHash: 'session-alice', credentialEpoch: user.credentialEpoch };
      const notice = message('accountDeleted');
      const refused = { outcome: 'unauthorised' };

      const deleting = (authorisation: typeof holds) => deleteUser(user.id, { authorisation, message: notice });
      assert.deepEqual(await deleting({ ...holds, credentialEpoch: 1 }), refused, 'credentials changed');
      assert.deepEqual(await deleting({ ...holds, sessionTokenHash: 'session-bob' }), refused, 'not her session');
      assert.deepEqual(await deleting({ ...holds, sessionTokenHash: 'unknown' }), refused, 'no such session');
      assert.equal(await transaction((tx) => tx.sessions.delete('session-alice')), true);
      assert.deepEqual(await deleting(holds), refused, 'her session ended');
      assert.ok(await suite.store.users.findById(user.id), 'a refused deletion deletes nothing');
      assert.deepEqual(await suite.store.outbox.list(), [], 'and queues nothing');

      await sessionFor(user.id, 'alice');
      assert.deepEqual(await deleting(holds), { outcome: 'deleted', user });
      assert.equal(await suite.store.users.findById(user.id), null);
    });

    it('with an authorisation, loses to a reset, a change and a logout-all that came first', async () => {
      const racers = async (label: string) => {
        const { user } = await registered(label);
        await sessionFor(user.id, label);
        return { user, holds: { sessionTokenHash: `session-${label}`, credentialEpoch: user.credentialEpoch } };
      };
      const reset = await racers('reset');
      const resetHash = await resetTokenFor(reset.user.id, 'reset');
      assert.ok(await transaction((tx) => tx.passwords.reset(resetHash, 'new-hash', T0)));
      const changed = await racers('changed');
      assert.ok(
        await transaction((tx) => tx.passwords.change(changed.user.id, passwordOf(changed.user), 'new-hash', T0)),
      );
      const loggedOut = await racers('logged-out');
      assert.equal(await transaction((tx) => tx.sessions.deleteAll(loggedOut.user.id, T0)), 1);
      for (const { user, holds } of [reset, changed, loggedOut]) {
        assert.deepEqual(
          await deleteUser(user.id, { authorisation: holds }),
          { outcome: 'unauthorised' },
          user.username,
        );
        assert.ok(await suite.store.users.findById(user.id), user.username);
      }
    });

    it('returns the user as it was just before it went, for the notice about the deletion', async () => {
      const { user, verificationHash } = await registered('alice');
      const verified = await transaction((tx) => tx.users.confirmAddress(verificationHash, T0));
      assert.ok(verified);
      const at = new Date(T0.getTime() + 1000);
      assert.deepEqual(await transaction((tx) => tx.users.delete(user.id, at)), { outcome: 'deleted', user: verified });
    });

    it('removes the user with every session, token and grant; then everything about them is absent', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await sessionFor(alice.user.id, 'alice');
      await sessionFor(bob.user.id, 'bob');
      const resetHash = await resetTokenFor(alice.user.id, 'alice');
      const granted = await transaction(async (tx) => [
        await tx.access.createRole('admin'),
        await tx.access.createPermission('posts:write'),
        await tx.access.grantPermission('admin', 'posts:write'),
        await tx.access.grantRole(alice.user.id, 'admin'),
        await tx.access.grantRole(bob.user.id, 'admin'),
      ]);
      assert.deepEqual(granted, [true, true, 'ok', 'ok', 'ok']);

      assert.equal((await deleteUser(alice.user.id)).outcome, 'deleted');

      const id = alice.user.id;
      assert.equal(await suite.store.users.findById(id), null);
      assert.equal(await suite.store.users.findByUsernameKey(alice.user.usernameKey), null);
      assert.deepEqual(await suite.store.users.findUnverifiedByEmailKey(alice.user.emailKey, T0_MINUS_1, 10), []);
      assert.equal(await suite.store.sessions.findWithUser('session-alice'), null);
      assert.equal(await suite.store.tokens.findUser(resetHash, 'reset_password', T0), null);
      assert.equal(await transaction((tx) => tx.users.confirmAddress(alice.verificationHash, T0)), null);
      assert.equal(await transaction((tx) => tx.passwords.reset(resetHash, 'new-hash', T0)), null);
      assert.equal(await transaction((tx) => tx.passwords.change(id, passwordOf(alice.user), 'new-hash', T0)), null);
      assert.equal(await transaction((tx) => tx.passwords.rehash(id, passwordOf(alice.user), 'new-hash', T0)), false);
      assert.equal(await suite.store.access.checkRole(id, 'admin'), 'denied');
      assert.equal(await suite.store.access.checkPermission(id, 'posts:write'), 'denied');
      assert.deepEqual(await suite.store.access.listUserRoles(id), []);
      assert.equal(await transaction((tx) => tx.access.grantRole(id, 'admin')), 'unknown_user');
      assert.deepEqual(await deleteUser(id), { outcome: 'unknown_user' }, 'already gone');

      assert.ok(await suite.store.sessions.findWithUser('session-bob'), 'other users are untouched');
      assert.equal(await suite.store.access.checkPermission(bob.user.id, 'posts:write'), 'granted');
      assert.deepEqual(await suite.store.access.listRoles(), [{ name: 'admin', permissions: ['posts:write'] }]);
    });

    it('frees the username and email keys for a new registration', async () => {
      const alice = await registered('alice');
      assert.equal((await deleteUser(alice.user.id)).outcome, 'deleted');
      const again = await registered('alice-again', {
        usernameKey: alice.user.usernameKey,
        emailKey: alice.user.emailKey,
      });
      assert.equal((await suite.store.users.findByUsernameKey(alice.user.usernameKey))?.id, again.user.id);
    });

    it('answers unknown_user for an unknown user', async () => {
      assert.deepEqual(await deleteUser('no-such-id'), { outcome: 'unknown_user' });
    });
  });
}
