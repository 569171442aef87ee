import { expect } from 'chai';
import { ADMIN_ROLE, ALL_ADMIN_PERMISSIONS } from '../../src/services/admin-permissions';
import { OPERATOR, type AdminActor } from '../../src/services/admin-views';
import { makeHarness, STRONG_PASSWORD, type Harness } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { MINUTE } from '../support/manual-clock';

/** root, made administrator by the operator and signed in: its session is recent, as admin changes need. */
async function withAdmin(h: Harness, username = 'root'): Promise<AdminActor> {
  await h.createVerifiedUser(username);
  await h.accounts.admin.makeAdministrator(username);
  const sessionToken = await h.accounts.login(username, STRONG_PASSWORD);
  return { kind: 'admin', user: { id: await h.accounts.admin.userIdOf(username) }, sessionToken };
}

describe('Administration (AccountService.admin)', () => {
  it('makes the first administrator with every Gatehouse permission, once', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('root');
    expect(await h.accounts.admin.makeAdministrator('root')).to.equal(true);
    expect(await h.accounts.admin.makeAdministrator('root')).to.equal(false);
    const roles = await h.accounts.access.listRoles();
    expect(roles).to.deep.equal([{ name: ADMIN_ROLE, permissions: [...ALL_ADMIN_PERMISSIONS].sort() }]);
    const view = await h.accounts.admin.getUser(OPERATOR, await h.accounts.admin.userIdOf('root'));
    expect(view.roles).to.deep.equal([ADMIN_ROLE]);
    expect(view.permissions).to.deep.equal([...ALL_ADMIN_PERMISSIONS].sort());
  });

  it('refuses every action to a user without the permission, before looking at the id', async () => {
    const h = makeHarness();
    await withAdmin(h);
    await h.createVerifiedUser('mallory');
    const mallory: AdminActor = { kind: 'admin', user: { id: await h.accounts.admin.userIdOf('mallory') } };
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const admin = h.accounts.admin;
    const attempts: Promise<unknown>[] = [
      admin.listUsers(mallory, {}),
      admin.getUser(mallory, unknownId),
      admin.disableUser(mallory, unknownId),
      admin.enableUser(mallory, unknownId),
      admin.endSessions(mallory, unknownId),
      admin.markVerified(mallory, unknownId),
      admin.resendVerification(mallory, unknownId),
      admin.deleteUser(mallory, unknownId),
      admin.grantRole(mallory, unknownId, ADMIN_ROLE),
      admin.revokeRole(mallory, unknownId, ADMIN_ROLE),
      admin.listRoles(mallory),
      admin.listPermissions(mallory),
      admin.createRole(mallory, 'x'),
      admin.createPermission(mallory, 'x'),
      admin.grantPermission(mallory, ADMIN_ROLE, 'x'),
      admin.revokePermission(mallory, ADMIN_ROLE, 'x'),
      admin.listAuditEvents(mallory, {}),
    ];
    for (const attempt of attempts) await expectAccountError(attempt, 'permission_denied');
  });

  it('changes need the acting administrator’s own session, recently authenticated; reads do not', async () => {
    const h = makeHarness();
    const root = await withAdmin(h);
    const rootId = (root as { user: { id: string } }).user.id;
    const token = (root as { sessionToken: string }).sessionToken;
    const aliceToken = await h.loginNewUser('alice');
    const aliceId = await h.accounts.admin.userIdOf('alice');
    const admin = h.accounts.admin;

    await expectAccountError(
      admin.disableUser({ kind: 'admin', user: { id: rootId } }, aliceId),
      'reauthentication_required',
    );
    // A recent session of someone else is no proof of the administrator's.
    await expectAccountError(
      admin.disableUser({ kind: 'admin', user: { id: rootId }, sessionToken: aliceToken }, aliceId),
      'permission_denied',
    );
    h.clock.advance(11 * MINUTE);
    for (const change of [
      () => admin.disableUser(root, aliceId),
      () => admin.enableUser(root, aliceId),
      () => admin.endSessions(root, aliceId),
      () => admin.markVerified(root, aliceId),
      () => admin.resendVerification(root, aliceId),
      () => admin.deleteUser(root, aliceId),
      () => admin.grantRole(root, aliceId, ADMIN_ROLE),
      () => admin.revokeRole(root, aliceId, ADMIN_ROLE),
      () => admin.createRole(root, 'x'),
      () => admin.createPermission(root, 'x'),
      () => admin.grantPermission(root, ADMIN_ROLE, 'x'),
      () => admin.revokePermission(root, ADMIN_ROLE, 'x'),
    ]) {
      await expectAccountError(change(), 'reauthentication_required');
    }
    expect((await admin.getUser(root, aliceId)).disabled).to.equal(false);
    await h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD);
    expect((await admin.disableUser(root, aliceId)).disabled).to.equal(true);
    // The operator is never asked.
    expect((await admin.enableUser(OPERATOR, aliceId)).disabled).to.equal(false);
  });

  it('grants each permission separately: reading users does not allow disabling them', async () => {
    const h = makeHarness();
    await withAdmin(h);
    await h.createVerifiedUser('reader');
    await h.accounts.access.createRole('support');
    await h.accounts.access.grantPermission('support', 'gatehouse.users.read');
    await h.accounts.access.grantRole('reader', 'support');
    const reader: AdminActor = { kind: 'admin', user: { id: await h.accounts.admin.userIdOf('reader') } };
    const page = await h.accounts.admin.listUsers(reader, {});
    expect(page.items.map((u) => u.username)).to.have.members(['root', 'reader']);
    await expectAccountError(h.accounts.admin.disableUser(reader, page.items[0].id), 'permission_denied');
  });

  it('disables an account: its sessions die at once, login is refused after the right password only', async () => {
    const h = makeHarness();
    const root = await withAdmin(h);
    await h.createVerifiedUser('alice');
    const first = await h.accounts.login('alice', STRONG_PASSWORD);
    const second = await h.accounts.login('alice', STRONG_PASSWORD);
    const aliceId = await h.accounts.admin.userIdOf('alice');
    expect((await h.accounts.admin.getUser(root, aliceId)).sessionCount).to.equal(2);

    const view = await h.accounts.admin.disableUser(root, aliceId);
    expect(view.disabled).to.equal(true);
    expect(view.sessionCount).to.equal(0);
    expect(await h.accounts.validateSession(first)).to.equal(null);
    expect(await h.accounts.validateSession(second)).to.equal(null);
    await expectAccountError(h.accounts.login('alice', STRONG_PASSWORD), 'account_disabled');
    await expectAccountError(h.accounts.login('alice', 'wrong password entirely'), 'invalid_credentials');

    // Idempotent, and re-enabling lets the person sign in again (the old sessions stay ended).
    await h.accounts.admin.disableUser(root, aliceId);
    const enabled = await h.accounts.admin.enableUser(root, aliceId);
    expect(enabled.disabled).to.equal(false);
    expect(await h.accounts.validateSession(first)).to.equal(null);
    const fresh = await h.accounts.login('alice', STRONG_PASSWORD);
    expect(await h.accounts.validateSession(fresh)).to.not.equal(null);
  });

  it('kills the links of a disabled account and sends it no new reset link', async () => {
    const h = makeHarness();
    const root = await withAdmin(h);
    await h.createVerifiedUser('alice');
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    const link = h.sender.lastToken('sendPasswordReset', 'alice@example.com');
    await h.accounts.admin.disableUser(root, await h.accounts.admin.userIdOf('alice'));
    await expectAccountError(
      h.accounts.confirmPasswordReset(link, 'a brand new passphrase'),
      'invalid_password_reset_token',
    );
    const before = h.sender.sent.length;
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    expect(h.sender.sent.length).to.equal(before);
  });

  it('never leaves the administrator role without an enabled holder', async () => {
    const h = makeHarness();
    const root = await withAdmin(h);
    const rootId = (root as { user: { id: string } }).user.id;
    // Nobody changes their own roles; the operator is refused the last administrator's role too.
    await expectAccountError(h.accounts.admin.revokeRole(root, rootId, ADMIN_ROLE), 'permission_denied');
    await expectAccountError(h.accounts.admin.disableUser(root, rootId), 'last_administrator');
    await expectAccountError(h.accounts.admin.deleteUser(root, rootId), 'last_administrator');
    await expectAccountError(h.accounts.access.revokeRole('root', ADMIN_ROLE), 'last_administrator');
    await expectAccountError(
      h.accounts.admin.revokePermission(root, ADMIN_ROLE, 'gatehouse.users.read'),
      'protected_permission',
    );

    const second = await withAdmin(h, 'second');
    expect(await h.accounts.admin.revokeRole(second, rootId, ADMIN_ROLE)).to.deep.equal([]);
  });

  it('pages through users newest first with a cursor, unaffected by registrations in between', async () => {
    const h = makeHarness();
    const root = await withAdmin(h);
    for (let i = 0; i < 7; i += 1) {
      h.clock.advance(1000);
      await h.accounts.register({ username: `user${i}`, email: `user${i}@example.com`, password: STRONG_PASSWORD });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.accounts.admin.listUsers(root, { limit: 3, cursor });
      seen.push(...page.items.map((u) => u.username));
      h.clock.advance(1000);
      await h.accounts.register({
        username: `late${seen.length}`,
        email: `late${seen.length}@x.org`,
        password: STRONG_PASSWORD,
      });
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).to.deep.equal(['user6', 'user5', 'user4', 'user3', 'user2', 'user1', 'user0', 'root']);

    const filtered = await h.accounts.admin.listUsers(root, { prefix: 'USER1', verified: false });
    expect(filtered.items.map((u) => u.username)).to.deep.equal(['user1']);
    const admins = await h.accounts.admin.listUsers(root, { role: ADMIN_ROLE });
    expect(admins.items.map((u) => u.username)).to.deep.equal(['root']);
    await expectAccountError(h.accounts.admin.listUsers(root, { cursor: 'not a cursor' }), 'invalid_cursor');
    await expectAccountError(h.accounts.admin.listUsers(root, { limit: 0 }), 'account_error');
  });

  it('marks an address verified, making the account its owner, and resends a link to an unverified one', async () => {
    const h = makeHarness();
    const root = await withAdmin(h);
    await h.accounts.register({ username: 'carol', email: 'carol@example.com', password: STRONG_PASSWORD });
    await h.accounts.register({ username: 'carla', email: 'carol@example.com', password: STRONG_PASSWORD });
    await h.accounts.drain();
    const carolId = await h.accounts.admin.userIdOf('carol');
    const carlaId = await h.accounts.admin.userIdOf('carla');
    await h.accounts.admin.resendVerification(root, carlaId);
    await h.accounts.drain();
    expect(h.sender.sent.filter((m) => m.operation === 'sendVerification' && m.username === 'carla')).to.have.length(2);

    const view = await h.accounts.admin.markVerified(root, carolId);
    expect(view.verified).to.equal(true);
    await expectAccountError(h.accounts.admin.getUser(root, carlaId), 'user_not_found');
    await expectAccountError(h.accounts.admin.resendVerification(root, carolId), 'account_error');
    expect(await h.accounts.login('carol', STRONG_PASSWORD)).to.be.a('string');
  });

  it('ends a user’s sessions and deletes a user', async () => {
    const h = makeHarness();
    const root = await withAdmin(h);
    const token = await h.loginNewUser('dave');
    const daveId = await h.accounts.admin.userIdOf('dave');
    expect(await h.accounts.admin.endSessions(root, daveId)).to.equal(1);
    expect(await h.accounts.validateSession(token)).to.equal(null);
    await h.accounts.admin.deleteUser(root, daveId);
    await expectAccountError(h.accounts.admin.getUser(root, daveId), 'user_not_found');
    await expectAccountError(h.accounts.admin.endSessions(root, daveId), 'user_not_found');
  });

  it('reads last sign-in and the second factor flag', async () => {
    const h = makeHarness();
    const root = await withAdmin(h);
    await h.createVerifiedUser('erin');
    const erinId = await h.accounts.admin.userIdOf('erin');
    expect((await h.accounts.admin.getUser(root, erinId)).lastSignInAt).to.equal(null);
    h.clock.advance(MINUTE);
    await h.accounts.login('erin', STRONG_PASSWORD);
    const view = await h.accounts.admin.getUser(root, erinId);
    expect(view.lastSignInAt?.getTime()).to.equal(h.clock.now().getTime());
    expect(view.secondFactor).to.equal(false);
  });
});
