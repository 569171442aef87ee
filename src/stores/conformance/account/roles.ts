import assert from 'node:assert/strict';
import type { UserStoreTransaction } from '../../../services/user-store';
import { describe, it, type ConformanceSuite } from '../support';

export function describeRoles(suite: ConformanceSuite): void {
  const { registered } = suite;
  const write = <T>(work: (tx: UserStoreTransaction) => Promise<T>): Promise<T> => suite.store.transaction(work);
  describe('roles and permissions', () => {
    it('createRole and createPermission create once and then answer false', async () => {
      assert.equal(await write((tx) => tx.access.createRole('admin')), true);
      assert.equal(await write((tx) => tx.access.createRole('admin')), false);
      assert.equal(await write((tx) => tx.access.createPermission('posts:write')), true);
      assert.equal(await write((tx) => tx.access.createPermission('posts:write')), false);
      assert.equal(
        await write((tx) => tx.access.createPermission('admin')),
        true,
        'roles and permissions are separate namespaces',
      );
      assert.deepEqual(await suite.store.access.listRoles(), [{ name: 'admin', permissions: [] }]);
      assert.deepEqual(await suite.store.access.listPermissions(), ['admin', 'posts:write']);
    });

    it('grantPermission and revokePermission report unknown roles and permissions, in argument order', async () => {
      await write((tx) => tx.access.createRole('admin'));
      await write((tx) => tx.access.createPermission('posts:write'));

      assert.equal(await write((tx) => tx.access.grantPermission('ghost', 'posts:write')), 'unknown_role');
      assert.equal(await write((tx) => tx.access.grantPermission('admin', 'ghost')), 'unknown_permission');
      assert.equal(await write((tx) => tx.access.grantPermission('ghost', 'ghost')), 'unknown_role');
      assert.equal(await write((tx) => tx.access.revokePermission('ghost', 'posts:write')), 'unknown_role');
      assert.equal(await write((tx) => tx.access.revokePermission('admin', 'ghost')), 'unknown_permission');
      assert.deepEqual(await suite.store.access.listRoles(), [{ name: 'admin', permissions: [] }]);
    });

    it('grantRole and revokeRole report unknown users and roles, in argument order', async () => {
      const { user } = await registered('alice');
      await write((tx) => tx.access.createRole('admin'));

      assert.equal(await write((tx) => tx.access.grantRole('no-such-id', 'admin')), 'unknown_user');
      assert.equal(await write((tx) => tx.access.grantRole(user.id, 'ghost')), 'unknown_role');
      assert.equal(await write((tx) => tx.access.grantRole('no-such-id', 'ghost')), 'unknown_user');
      assert.equal(await write((tx) => tx.access.revokeRole('no-such-id', 'admin')), 'unknown_user');
      assert.equal(await write((tx) => tx.access.revokeRole(user.id, 'ghost')), 'unknown_role');
      assert.deepEqual(await suite.store.access.listUserRoles(user.id), []);
    });

    it('grants are idempotent, and revoking a grant that is not there is ok', async () => {
      const { user } = await registered('alice');
      await write((tx) => tx.access.createRole('admin'));
      await write((tx) => tx.access.createPermission('posts:write'));

      assert.equal(await write((tx) => tx.access.grantPermission('admin', 'posts:write')), 'ok');
      assert.equal(await write((tx) => tx.access.grantPermission('admin', 'posts:write')), 'ok');
      assert.equal(await write((tx) => tx.access.grantRole(user.id, 'admin')), 'ok');
      assert.equal(await write((tx) => tx.access.grantRole(user.id, 'admin')), 'ok');
      assert.deepEqual(await suite.store.access.listRoles(), [{ name: 'admin', permissions: ['posts:write'] }]);
      assert.deepEqual(await suite.store.access.listUserRoles(user.id), ['admin']);

      assert.equal(await write((tx) => tx.access.revokeRole(user.id, 'admin')), 'ok');
      assert.equal(await write((tx) => tx.access.revokeRole(user.id, 'admin')), 'ok');
      assert.equal(await write((tx) => tx.access.revokePermission('admin', 'posts:write')), 'ok');
      assert.equal(await write((tx) => tx.access.revokePermission('admin', 'posts:write')), 'ok');
    });

    it('with a grantor: no change of its own access, and no grant of a permission it does not hold', async () => {
      const { user: grantor } = await registered('grantor');
      const { user: other } = await registered('other');
      for (const role of ['managers', 'big', 'small']) await write((tx) => tx.access.createRole(role));
      for (const permission of ['manage', 'delete']) await write((tx) => tx.access.createPermission(permission));
      await write((tx) => tx.access.grantPermission('managers', 'manage'));
      await write((tx) => tx.access.grantPermission('big', 'manage'));
      await write((tx) => tx.access.grantPermission('big', 'delete'));
      await write((tx) => tx.access.grantRole(grantor.id, 'managers'));
      const g = grantor.id;

      assert.equal(await write((tx) => tx.access.grantRole(g, 'small', { grantor: g })), 'own_access');
      assert.equal(
        await write((tx) => tx.access.revokeRole(g, 'managers', { keepLastHolder: false, grantor: g })),
        'own_access',
      );
      assert.equal(await write((tx) => tx.access.grantPermission('managers', 'delete', g)), 'own_access');
      assert.equal(await write((tx) => tx.access.revokePermission('managers', 'manage', g)), 'own_access');
      assert.equal(await write((tx) => tx.access.grantRole(other.id, 'big', { grantor: g })), 'not_held');
      assert.equal(await write((tx) => tx.access.grantPermission('small', 'delete', g)), 'not_held');
      // Unknown names are named first, whoever asks.
      assert.equal(await write((tx) => tx.access.grantRole(other.id, 'ghost', { grantor: g })), 'unknown_role');
      assert.equal(await write((tx) => tx.access.grantPermission('small', 'ghost', g)), 'unknown_permission');
      assert.deepEqual(await suite.store.access.listUserRoles(g), ['managers']);
      assert.deepEqual(await suite.store.access.listUserRoles(other.id), []);
      assert.deepEqual(
        (await suite.store.access.listRoles()).map((role) => [role.name, role.permissions]),
        [
          ['big', ['delete', 'manage']],
          ['managers', ['manage']],
          ['small', []],
        ],
      );

      // What it holds, it may hand on, to others and to roles it does not hold.
      assert.equal(await write((tx) => tx.access.grantPermission('small', 'manage', g)), 'ok');
      assert.equal(await write((tx) => tx.access.grantRole(other.id, 'small', { grantor: g })), 'ok');
      assert.equal(
        await write((tx) => tx.access.revokeRole(other.id, 'small', { keepLastHolder: false, grantor: g })),
        'ok',
      );
      assert.equal(await write((tx) => tx.access.revokePermission('small', 'manage', g)), 'ok');
    });

    it('checkRole answers granted, denied, or unknown when the role does not exist', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await write((tx) => tx.access.createRole('admin'));
      await write((tx) => tx.access.grantRole(alice.user.id, 'admin'));

      assert.equal(await suite.store.access.checkRole(alice.user.id, 'admin'), 'granted');
      assert.equal(await suite.store.access.checkRole(bob.user.id, 'admin'), 'denied');
      assert.equal(await suite.store.access.checkRole('no-such-id', 'admin'), 'denied');
      assert.equal(await suite.store.access.checkRole(alice.user.id, 'ghost'), 'unknown');

      assert.equal(await write((tx) => tx.access.revokeRole(alice.user.id, 'admin')), 'ok');
      assert.equal(await suite.store.access.checkRole(alice.user.id, 'admin'), 'denied');
    });

    it('checkSession with an access query answers it as checkRole and checkPermission do, in the same read', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await write((tx) => tx.access.createRole('editor'));
      await write((tx) => tx.access.createPermission('posts:write'));
      await write((tx) => tx.access.grantPermission('editor', 'posts:write'));
      await write((tx) => tx.access.grantRole(alice.user.id, 'editor'));
      const aliceSession = (await suite.sessionFor(alice.user.id, 'alice')).tokenHash;
      const bobSession = (await suite.sessionFor(bob.user.id, 'bob')).tokenHash;
      const access = async (tokenHash: string, kind: 'role' | 'permission', name: string) =>
        (await suite.store.sessions.check(tokenHash, { kind, name }))?.access;

      assert.equal(await access(aliceSession, 'role', 'editor'), 'granted');
      assert.equal(await access(bobSession, 'role', 'editor'), 'denied');
      assert.equal(await access(aliceSession, 'role', 'ghost'), 'unknown');
      assert.equal(await access(aliceSession, 'permission', 'posts:write'), 'granted');
      assert.equal(await access(bobSession, 'permission', 'posts:write'), 'denied');
      assert.equal(await access(aliceSession, 'permission', 'editor'), 'unknown', 'a role is not a permission');
      assert.equal(await suite.store.sessions.check('unknown', { kind: 'role', name: 'editor' }), null);
      // The rest of the check is the plain one.
      const { access: answer, ...check } = (await suite.store.sessions.check(aliceSession, {
        kind: 'role',
        name: 'editor',
      }))!;
      assert.equal(answer, 'granted');
      assert.deepEqual(check, await suite.store.sessions.check(aliceSession));

      await write((tx) => tx.access.revokePermission('editor', 'posts:write'));
      assert.equal(
        await access(aliceSession, 'permission', 'posts:write'),
        'denied',
        'a change counts at the next read',
      );
    });

    it('checkPermission follows every role of the user, and answers unknown for a missing permission', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await write((tx) => tx.access.createRole('editor'));
      await write((tx) => tx.access.createRole('moderator'));
      await write((tx) => tx.access.createRole('reader'));
      await write((tx) => tx.access.createPermission('posts:write'));
      await write((tx) => tx.access.createPermission('posts:read'));
      await write((tx) => tx.access.grantPermission('editor', 'posts:write'));
      await write((tx) => tx.access.grantPermission('moderator', 'posts:write'));
      await write((tx) => tx.access.grantPermission('reader', 'posts:read'));
      await write((tx) => tx.access.grantRole(alice.user.id, 'editor'));
      await write((tx) => tx.access.grantRole(alice.user.id, 'moderator'));
      await write((tx) => tx.access.grantRole(bob.user.id, 'reader'));

      assert.equal(await suite.store.access.checkPermission(alice.user.id, 'posts:write'), 'granted');
      assert.equal(await suite.store.access.checkPermission(alice.user.id, 'posts:read'), 'denied');
      assert.equal(await suite.store.access.checkPermission(bob.user.id, 'posts:write'), 'denied');
      assert.equal(await suite.store.access.checkPermission('no-such-id', 'posts:write'), 'denied');
      assert.equal(await suite.store.access.checkPermission(alice.user.id, 'ghost'), 'unknown');
      assert.equal(
        await suite.store.access.checkPermission(alice.user.id, 'editor'),
        'unknown',
        'a role is not a permission',
      );

      await write((tx) => tx.access.revokeRole(alice.user.id, 'editor'));
      assert.equal(
        await suite.store.access.checkPermission(alice.user.id, 'posts:write'),
        'granted',
        'still via moderator',
      );
      await write((tx) => tx.access.revokePermission('moderator', 'posts:write'));
      assert.equal(await suite.store.access.checkPermission(alice.user.id, 'posts:write'), 'denied');
    });

    it('lists roles by name with their permissions sorted, permissions sorted, and user roles sorted', async () => {
      const { user } = await registered('alice');
      for (const role of ['moderator', 'admin', 'editor']) await write((tx) => tx.access.createRole(role));
      for (const permission of ['posts:write', 'comments:delete', 'posts:read']) {
        await write((tx) => tx.access.createPermission(permission));
      }
      await write((tx) => tx.access.grantPermission('editor', 'posts:write'));
      await write((tx) => tx.access.grantPermission('editor', 'posts:read'));
      await write((tx) => tx.access.grantPermission('moderator', 'posts:read'));
      await write((tx) => tx.access.grantPermission('moderator', 'comments:delete'));
      await write((tx) => tx.access.grantRole(user.id, 'moderator'));
      await write((tx) => tx.access.grantRole(user.id, 'admin'));

      assert.deepEqual(await suite.store.access.listRoles(), [
        { name: 'admin', permissions: [] },
        { name: 'editor', permissions: ['posts:read', 'posts:write'] },
        { name: 'moderator', permissions: ['comments:delete', 'posts:read'] },
      ]);
      assert.deepEqual(await suite.store.access.listPermissions(), ['comments:delete', 'posts:read', 'posts:write']);
      assert.deepEqual(await suite.store.access.listUserRoles(user.id), ['admin', 'moderator']);
      assert.deepEqual(await suite.store.access.listUserRoles('no-such-id'), []);
    });

    it('lists nothing on an empty store', async () => {
      assert.deepEqual(await suite.store.access.listRoles(), []);
      assert.deepEqual(await suite.store.access.listPermissions(), []);
    });
  });
}
