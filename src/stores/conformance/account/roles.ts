import assert from 'node:assert/strict';
import { describe, it, type ConformanceSuite } from '../support';

export function describeRoles(suite: ConformanceSuite): void {
  const { registered } = suite;
  describe('roles and permissions', () => {
    it('createRole and createPermission create once and then answer false', async () => {
      assert.equal(await suite.store.createRole('admin'), true);
      assert.equal(await suite.store.createRole('admin'), false);
      assert.equal(await suite.store.createPermission('posts:write'), true);
      assert.equal(await suite.store.createPermission('posts:write'), false);
      assert.equal(await suite.store.createPermission('admin'), true, 'roles and permissions are separate namespaces');
      assert.deepEqual(await suite.store.listRoles(), [{ name: 'admin', permissions: [] }]);
      assert.deepEqual(await suite.store.listPermissions(), ['admin', 'posts:write']);
    });

    it('grantPermission and revokePermission report unknown roles and permissions, in argument order', async () => {
      await suite.store.createRole('admin');
      await suite.store.createPermission('posts:write');

      assert.equal(await suite.store.grantPermission('ghost', 'posts:write'), 'unknown_role');
      assert.equal(await suite.store.grantPermission('admin', 'ghost'), 'unknown_permission');
      assert.equal(await suite.store.grantPermission('ghost', 'ghost'), 'unknown_role');
      assert.equal(await suite.store.revokePermission('ghost', 'posts:write'), 'unknown_role');
      assert.equal(await suite.store.revokePermission('admin', 'ghost'), 'unknown_permission');
      assert.deepEqual(await suite.store.listRoles(), [{ name: 'admin', permissions: [] }]);
    });

    it('grantRole and revokeRole report unknown users and roles, in argument order', async () => {
      const { user } = await registered('alice');
      await suite.store.createRole('admin');

      assert.equal(await suite.store.grantRole('no-such-id', 'admin'), 'unknown_user');
      assert.equal(await suite.store.grantRole(user.id, 'ghost'), 'unknown_role');
      assert.equal(await suite.store.grantRole('no-such-id', 'ghost'), 'unknown_user');
      assert.equal(await suite.store.revokeRole('no-such-id', 'admin'), 'unknown_user');
      assert.equal(await suite.store.revokeRole(user.id, 'ghost'), 'unknown_role');
      assert.deepEqual(await suite.store.listUserRoles(user.id), []);
    });

    it('grants are idempotent, and revoking a grant that is not there is ok', async () => {
      const { user } = await registered('alice');
      await suite.store.createRole('admin');
      await suite.store.createPermission('posts:write');

      assert.equal(await suite.store.grantPermission('admin', 'posts:write'), 'ok');
      assert.equal(await suite.store.grantPermission('admin', 'posts:write'), 'ok');
      assert.equal(await suite.store.grantRole(user.id, 'admin'), 'ok');
      assert.equal(await suite.store.grantRole(user.id, 'admin'), 'ok');
      assert.deepEqual(await suite.store.listRoles(), [{ name: 'admin', permissions: ['posts:write'] }]);
      assert.deepEqual(await suite.store.listUserRoles(user.id), ['admin']);

      assert.equal(await suite.store.revokeRole(user.id, 'admin'), 'ok');
      assert.equal(await suite.store.revokeRole(user.id, 'admin'), 'ok');
      assert.equal(await suite.store.revokePermission('admin', 'posts:write'), 'ok');
      assert.equal(await suite.store.revokePermission('admin', 'posts:write'), 'ok');
    });

    it('with a grantor: no change of its own access, and no grant of a permission it does not hold', async () => {
      const { user: grantor } = await registered('grantor');
      const { user: other } = await registered('other');
      for (const role of ['managers', 'big', 'small']) await suite.store.createRole(role);
      for (const permission of ['manage', 'delete']) await suite.store.createPermission(permission);
      await suite.store.grantPermission('managers', 'manage');
      await suite.store.grantPermission('big', 'manage');
      await suite.store.grantPermission('big', 'delete');
      await suite.store.grantRole(grantor.id, 'managers');
      const g = grantor.id;

      assert.equal(await suite.store.grantRole(g, 'small', undefined, g), 'own_access');
      assert.equal(await suite.store.revokeRole(g, 'managers', undefined, false, g), 'own_access');
      assert.equal(await suite.store.grantPermission('managers', 'delete', undefined, g), 'own_access');
      assert.equal(await suite.store.revokePermission('managers', 'manage', undefined, g), 'own_access');
      assert.equal(await suite.store.grantRole(other.id, 'big', undefined, g), 'not_held');
      assert.equal(await suite.store.grantPermission('small', 'delete', undefined, g), 'not_held');
      // Unknown names are named first, whoever asks.
      assert.equal(await suite.store.grantRole(other.id, 'ghost', undefined, g), 'unknown_role');
      assert.equal(await suite.store.grantPermission('small', 'ghost', undefined, g), 'unknown_permission');
      assert.deepEqual(await suite.store.listUserRoles(g), ['managers']);
      assert.deepEqual(await suite.store.listUserRoles(other.id), []);
      assert.deepEqual(
        (await suite.store.listRoles()).map((role) => [role.name, role.permissions]),
        [
          ['big', ['delete', 'manage']],
          ['managers', ['manage']],
          ['small', []],
        ],
      );

      // What it holds, it may hand on, to others and to roles it does not hold.
      assert.equal(await suite.store.grantPermission('small', 'manage', undefined, g), 'ok');
      assert.equal(await suite.store.grantRole(other.id, 'small', undefined, g), 'ok');
      assert.equal(await suite.store.revokeRole(other.id, 'small', undefined, false, g), 'ok');
      assert.equal(await suite.store.revokePermission('small', 'manage', undefined, g), 'ok');
    });

    it('checkRole answers granted, denied, or unknown when the role does not exist', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await suite.store.createRole('admin');
      await suite.store.grantRole(alice.user.id, 'admin');

      assert.equal(await suite.store.checkRole(alice.user.id, 'admin'), 'granted');
      assert.equal(await suite.store.checkRole(bob.user.id, 'admin'), 'denied');
      assert.equal(await suite.store.checkRole('no-such-id', 'admin'), 'denied');
      assert.equal(await suite.store.checkRole(alice.user.id, 'ghost'), 'unknown');

      assert.equal(await suite.store.revokeRole(alice.user.id, 'admin'), 'ok');
      assert.equal(await suite.store.checkRole(alice.user.id, 'admin'), 'denied');
    });

    it('checkSession with an access query answers it as checkRole and checkPermission do, in the same read', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await suite.store.createRole('editor');
      await suite.store.createPermission('posts:write');
      await suite.store.grantPermission('editor', 'posts:write');
      await suite.store.grantRole(alice.user.id, 'editor');
      const aliceSession = (await suite.sessionFor(alice.user.id, 'alice')).tokenHash;
      const bobSession = (await suite.sessionFor(bob.user.id, 'bob')).tokenHash;
      const access = async (tokenHash: string, kind: 'role' | 'permission', name: string) =>
        (await suite.store.checkSession(tokenHash, { kind, name }))?.access;

      assert.equal(await access(aliceSession, 'role', 'editor'), 'granted');
      assert.equal(await access(bobSession, 'role', 'editor'), 'denied');
      assert.equal(await access(aliceSession, 'role', 'ghost'), 'unknown');
      assert.equal(await access(aliceSession, 'permission', 'posts:write'), 'granted');
      assert.equal(await access(bobSession, 'permission', 'posts:write'), 'denied');
      assert.equal(await access(aliceSession, 'permission', 'editor'), 'unknown', 'a role is not a permission');
      assert.equal(await suite.store.checkSession('unknown', { kind: 'role', name: 'editor' }), null);
      // The rest of the check is the plain one.
      const { access: answer, ...check } = (await suite.store.checkSession(aliceSession, {
        kind: 'role',
        name: 'editor',
      }))!;
      assert.equal(answer, 'granted');
      assert.deepEqual(check, await suite.store.checkSession(aliceSession));

      await suite.store.revokePermission('editor', 'posts:write');
      assert.equal(
        await access(aliceSession, 'permission', 'posts:write'),
        'denied',
        'a change counts at the next read',
      );
    });

    it('checkPermission follows every role of the user, and answers unknown for a missing permission', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await suite.store.createRole('editor');
      await suite.store.createRole('moderator');
      await suite.store.createRole('reader');
      await suite.store.createPermission('posts:write');
      await suite.store.createPermission('posts:read');
      await suite.store.grantPermission('editor', 'posts:write');
      await suite.store.grantPermission('moderator', 'posts:write');
      await suite.store.grantPermission('reader', 'posts:read');
      await suite.store.grantRole(alice.user.id, 'editor');
      await suite.store.grantRole(alice.user.id, 'moderator');
      await suite.store.grantRole(bob.user.id, 'reader');

      assert.equal(await suite.store.checkPermission(alice.user.id, 'posts:write'), 'granted');
      assert.equal(await suite.store.checkPermission(alice.user.id, 'posts:read'), 'denied');
      assert.equal(await suite.store.checkPermission(bob.user.id, 'posts:write'), 'denied');
      assert.equal(await suite.store.checkPermission('no-such-id', 'posts:write'), 'denied');
      assert.equal(await suite.store.checkPermission(alice.user.id, 'ghost'), 'unknown');
      assert.equal(await suite.store.checkPermission(alice.user.id, 'editor'), 'unknown', 'a role is not a permission');

      await suite.store.revokeRole(alice.user.id, 'editor');
      assert.equal(await suite.store.checkPermission(alice.user.id, 'posts:write'), 'granted', 'still via moderator');
      await suite.store.revokePermission('moderator', 'posts:write');
      assert.equal(await suite.store.checkPermission(alice.user.id, 'posts:write'), 'denied');
    });

    it('lists roles by name with their permissions sorted, permissions sorted, and user roles sorted', async () => {
      const { user } = await registered('alice');
      for (const role of ['moderator', 'admin', 'editor']) await suite.store.createRole(role);
      for (const permission of ['posts:write', 'comments:delete', 'posts:read']) {
        await suite.store.createPermission(permission);
      }
      await suite.store.grantPermission('editor', 'posts:write');
      await suite.store.grantPermission('editor', 'posts:read');
      await suite.store.grantPermission('moderator', 'posts:read');
      await suite.store.grantPermission('moderator', 'comments:delete');
      await suite.store.grantRole(user.id, 'moderator');
      await suite.store.grantRole(user.id, 'admin');

      assert.deepEqual(await suite.store.listRoles(), [
        { name: 'admin', permissions: [] },
        { name: 'editor', permissions: ['posts:read', 'posts:write'] },
        { name: 'moderator', permissions: ['comments:delete', 'posts:read'] },
      ]);
      assert.deepEqual(await suite.store.listPermissions(), ['comments:delete', 'posts:read', 'posts:write']);
      assert.deepEqual(await suite.store.listUserRoles(user.id), ['admin', 'moderator']);
      assert.deepEqual(await suite.store.listUserRoles('no-such-id'), []);
    });

    it('lists nothing on an empty store', async () => {
      assert.deepEqual(await suite.store.listRoles(), []);
      assert.deepEqual(await suite.store.listPermissions(), []);
    });
  });
}
