import { expect } from 'chai';
import { makeHarness } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';

describe('AccountService: roles and permissions', () => {
  async function withEditor() {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    await h.createVerifiedUser('bob');
    expect(await h.accounts.access.createRole('editor')).to.equal(true);
    expect(await h.accounts.access.createRole('editor')).to.equal(false);
    await h.accounts.access.createPermission('posts.write');
    await h.accounts.access.createPermission('posts.delete');
    await h.accounts.access.grantPermission('editor', 'posts.write');
    await h.accounts.access.grantRole('alice', 'editor');
    const alice = (await h.store.users.findByUsernameKey('alice'))!;
    const bob = (await h.store.users.findByUsernameKey('bob'))!;
    return { h, alice, bob };
  }

  it('answers role and permission checks through roles', async () => {
    const { h, alice, bob } = await withEditor();
    expect(await h.accounts.access.hasRole(alice, 'editor')).to.equal(true);
    expect(await h.accounts.access.hasRole(bob, 'editor')).to.equal(false);
    expect(await h.accounts.access.hasPermission(alice, 'posts.write')).to.equal(true);
    expect(await h.accounts.access.hasPermission(alice, 'posts.delete')).to.equal(false);
    expect(await h.accounts.access.requirePermission(alice, 'posts.write')).to.equal(alice);
    await expectAccountError(h.accounts.access.requireRole(bob, 'editor'), 'permission_denied');
    await expectAccountError(h.accounts.access.requirePermission(alice, 'posts.delete'), 'permission_denied');
  });

  it('reports unknown and invalid names with their own codes', async () => {
    const { h, alice } = await withEditor();
    await expectAccountError(h.accounts.access.hasRole(alice, 'ghost'), 'unknown_role');
    await expectAccountError(h.accounts.access.hasPermission(alice, 'ghost.read'), 'unknown_permission');
    await expectAccountError(h.accounts.access.grantRole('alice', 'ghost'), 'unknown_role');
    await expectAccountError(h.accounts.access.grantPermission('ghost', 'posts.write'), 'unknown_role');
    await expectAccountError(h.accounts.access.grantPermission('editor', 'ghost.read'), 'unknown_permission');
    await expectAccountError(h.accounts.access.grantRole('nobody', 'editor'), 'account_error');
    await expectAccountError(h.accounts.access.createRole('has space'), 'invalid_role');
    await expectAccountError(h.accounts.access.createRole(''), 'invalid_role');
    await expectAccountError(h.accounts.access.createPermission('semi;colon'), 'invalid_permission');
    await expectAccountError(h.accounts.access.hasRole(alice, 'x'.repeat(65)), 'invalid_role');
  });

  it('reads grants from the store on every check, so a revocation counts at once (S7)', async () => {
    const { h, alice } = await withEditor();
    await h.accounts.access.revokeRole('alice', 'editor');
    expect(await h.accounts.access.hasRole(alice, 'editor')).to.equal(false);
    await h.accounts.access.grantRole('alice', 'editor');
    await h.accounts.access.revokePermission('editor', 'posts.write');
    expect(await h.accounts.access.hasPermission(alice, 'posts.write')).to.equal(false);
  });

  it('lists roles with their permissions, permissions, and a user’s roles', async () => {
    const { h } = await withEditor();
    await h.accounts.access.createRole('admin');
    await h.accounts.access.grantPermission('editor', 'posts.delete');
    expect(await h.accounts.access.listRoles()).to.deep.equal([
      { name: 'admin', permissions: [] },
      { name: 'editor', permissions: ['posts.delete', 'posts.write'] },
    ]);
    expect(await h.accounts.access.listPermissions()).to.deep.equal(['posts.delete', 'posts.write']);
    expect(await h.accounts.access.listUserRoles('ALICE')).to.deep.equal(['editor']);
  });
});
