import assert from 'node:assert/strict';
import type { UserStoreTransaction } from '../../../services/user-store';
import { describe, it, T0, type ConformanceSuite } from '../support';

/** A scope other than the global one, as an organization's grants will have. */
const ORG = 'org-1';

/**
 * Grants carry a scope (`GrantScope`): every read and check of today is global, and a grant in another scope is a
 * grant of its own that none of them counts.
 */
export function describeScopedGrants(suite: ConformanceSuite): void {
  const { registered } = suite;
  const write = <T>(work: (tx: UserStoreTransaction) => Promise<T>): Promise<T> => suite.store.transaction(work);
  const roles = async (...names: string[]) => {
    for (const name of names) await write((tx) => tx.access.createRole(name));
  };

  describe('scoped grants', () => {
    it('a grant in another scope answers no global role or permission check, the guard included', async () => {
      const { user } = await registered('alice');
      const session = await suite.sessionFor(user.id, 'alice');
      await roles('editor');
      await write((tx) => tx.access.createPermission('posts.write'));
      await write((tx) => tx.access.grantPermission('editor', 'posts.write'));
      assert.equal(await write((tx) => tx.access.grantRole(user.id, 'editor', { scope: ORG })), 'ok');

      const answers = async () => ({
        role: await suite.store.access.checkRole(user.id, 'editor'),
        permission: await suite.store.access.checkPermission(user.id, 'posts.write'),
        guardRole: (await suite.store.sessions.check(session.tokenHash, { kind: 'role', name: 'editor' }))?.access,
        guardPermission: (
          await suite.store.sessions.check(session.tokenHash, { kind: 'permission', name: 'posts.write' })
        )?.access,
      });
      const all = (answer: string) => ({
        role: answer,
        permission: answer,
        guardRole: answer,
        guardPermission: answer,
      });
      assert.deepEqual(await answers(), all('denied'));
      assert.equal(await write((tx) => tx.access.checkRole(user.id, 'editor')), 'denied', 'inside a transaction');
      assert.deepEqual(await suite.store.access.listUserRoles(user.id), []);
      assert.deepEqual(await suite.store.access.listUserRoles(user.id, ORG), ['editor']);

      // The same role granted globally too: two grants, each granted and revoked apart.
      assert.equal(await write((tx) => tx.access.grantRole(user.id, 'editor')), 'ok');
      assert.equal(await write((tx) => tx.access.grantRole(user.id, 'editor', { scope: ORG })), 'ok', 'idempotent');
      assert.deepEqual(await answers(), all('granted'));
      assert.equal(await write((tx) => tx.access.revokeRole(user.id, 'editor')), 'ok');
      assert.deepEqual(await answers(), all('denied'));
      assert.deepEqual(await suite.store.access.listUserRoles(user.id, ORG), ['editor']);
      assert.equal(await write((tx) => tx.access.grantRole(user.id, 'editor')), 'ok');
      assert.equal(await write((tx) => tx.access.revokeRole(user.id, 'editor', { scope: ORG })), 'ok');
      assert.deepEqual(await answers(), all('granted'));
      assert.deepEqual(await suite.store.access.listUserRoles(user.id, ORG), []);
      assert.deepEqual(await suite.store.access.listUserRoles(user.id), ['editor']);
    });

    it('the admin views show global grants only', async () => {
      const { user: alice } = await registered('alice');
      const { user: bob } = await registered('bob');
      await roles('editor', 'viewer');
      await write((tx) => tx.access.createPermission('posts.write'));
      await write((tx) => tx.access.grantPermission('editor', 'posts.write'));
      await write((tx) => tx.access.grantRole(alice.id, 'editor', { scope: ORG }));
      await write((tx) => tx.access.grantRole(alice.id, 'viewer'));
      await write((tx) => tx.access.grantRole(bob.id, 'editor'));

      const details = await suite.store.admin.userDetails(alice.id, T0, T0);
      assert.deepEqual(details?.roles, ['viewer']);
      assert.deepEqual(details?.permissions, []);
      const holders = await suite.store.admin.listUsers({ limit: 10, role: 'editor' });
      assert.deepEqual(
        holders.map((user) => user.id),
        [bob.id],
      );
    });

    it('grants in every scope go with their user', async () => {
      const { user } = await registered('alice');
      await roles('editor');
      await write((tx) => tx.access.grantRole(user.id, 'editor'));
      await write((tx) => tx.access.grantRole(user.id, 'editor', { scope: ORG }));
      assert.equal((await suite.deleteUser(user.id)).outcome, 'deleted');
      assert.deepEqual(await suite.store.access.listUserRoles(user.id), []);
      assert.deepEqual(await suite.store.access.listUserRoles(user.id, ORG), []);
      // A new account under the same id inherits nothing.
      await registered('alice', { id: user.id });
      assert.deepEqual(await suite.store.access.listUserRoles(user.id, ORG), []);
    });

    it('last-holder protections count the holders in the scope of the grant, global for deletion and disabling', async () => {
      const { user: alice } = await registered('alice');
      const { user: bob } = await registered('bob');
      const { user: carol } = await registered('carol');
      await roles('admin');
      await write((tx) => tx.access.grantRole(alice.id, 'admin'));
      await write((tx) => tx.access.grantRole(bob.id, 'admin', { scope: ORG }));

      // bob holds admin in another scope only: alice is still the last global holder.
      const keep = { keepLastHolder: true };
      assert.equal(await write((tx) => tx.access.revokeRole(alice.id, 'admin', keep)), 'last_holder');
      assert.equal(
        (await write((tx) => tx.users.delete(alice.id, T0, { keepLastHolderOf: 'admin' }))).outcome,
        'last_holder',
      );
      assert.equal(await write((tx) => tx.users.disable(alice.id, T0, 'admin')), 'last_holder');
      // And within the scope, alice's global grant does not count: bob is its last holder.
      assert.equal(await write((tx) => tx.access.revokeRole(bob.id, 'admin', { ...keep, scope: ORG })), 'last_holder');
      await write((tx) => tx.access.grantRole(carol.id, 'admin', { scope: ORG }));
      assert.equal(await write((tx) => tx.access.revokeRole(bob.id, 'admin', { ...keep, scope: ORG })), 'ok');
      assert.deepEqual(await suite.store.access.listUserRoles(bob.id, ORG), []);
      assert.deepEqual(await suite.store.access.listUserRoles(alice.id), ['admin']);
    });

    it("a grantor's access is its global grants: a role held in another scope hands nothing on", async () => {
      const { user: grantor } = await registered('grantor');
      const { user: other } = await registered('other');
      await roles('managers', 'big');
      await write((tx) => tx.access.createPermission('manage'));
      await write((tx) => tx.access.grantPermission('managers', 'manage'));
      await write((tx) => tx.access.grantPermission('big', 'manage'));
      await write((tx) => tx.access.grantRole(grantor.id, 'managers', { scope: ORG }));

      const g = { grantor: grantor.id };
      assert.equal(await write((tx) => tx.access.grantRole(other.id, 'big', g)), 'not_held');
      assert.equal(await write((tx) => tx.access.grantRole(other.id, 'big', { ...g, scope: ORG })), 'not_held');
      assert.deepEqual(await suite.store.access.listUserRoles(other.id, ORG), []);
      await write((tx) => tx.access.grantRole(grantor.id, 'managers'));
      assert.equal(await write((tx) => tx.access.grantRole(other.id, 'big', { ...g, scope: ORG })), 'ok');
      assert.deepEqual(await suite.store.access.listUserRoles(other.id, ORG), ['big']);
      assert.deepEqual(await suite.store.access.listUserRoles(other.id), []);
    });
  });
}
