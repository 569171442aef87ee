import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { AccountOptions } from '../../src/services/account-options';
import { OPERATOR } from '../../src/services/admin-views';
import { TokenHasher } from '../../src/services/token-hasher';
import { expectAccountError } from '../support/expect-account-error';
import { HOUR, MINUTE } from '../support/manual-clock';
import { STRONG_PASSWORD, TEST_SECRET } from '../support/core-harness';
import { TEST_STORES } from '../support/test-stores';
import { freshWorld, type OrgWorld } from './organization-support';

const ALL_GATEHOUSE = [
  'gatehouse.members.invite',
  'gatehouse.members.manage',
  'gatehouse.members.read',
  'gatehouse.organization.delete',
  'gatehouse.organization.update',
];

/** The keyed hash the store keeps of a raw token: the one the session's own hash is made with. */
function hashOf(token: string): string {
  return new TokenHasher(Buffer.from(TEST_SECRET)).hash(token);
}

// Memory, SQLite in a real file, and PostgreSQL (skipped without a server, failed with CI=true), where the races meet
// real row locks.
for (const kind of TEST_STORES) {
  describe(`Organizations service (${kind.name} store)`, () => {
    let options: Partial<AccountOptions> = {};
    beforeEach(() => {
      options = {};
    });
    // Options are read when each test's world is built: a test that needs others sets them and builds its own.
    const world = freshWorld(kind, () => options);

    /** alice owns "Acme"; bob (member) and carol (member) joined through invitations. */
    async function acme(w: OrgWorld, roles: { bob?: string; carol?: string } = {}) {
      const alice = await w.person('alice');
      const bob = await w.person('bob');
      const carol = await w.person('carol');
      const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
      // Each joins a second later: lists are oldest first.
      for (const [who, person] of [
        ['bob', bob],
        ['carol', carol],
      ] as const) {
        w.clock.advance(1000);
        await w.accounts.organizations.invite(alice.token, org.id, {
          email: person.email,
          role: roles[who] ?? 'member',
        });
        await w.accounts.organizations.acceptInvitation(person.token, await w.invitationToken(person.email));
      }
      return { alice, bob, carol, org };
    }

    describe('creation and reading', () => {
      it('makes the creator the owner, with every permission of the template', async () => {
        const w = world();
        const alice = await w.person('alice');
        const org = await w.accounts.organizations.create(alice.token, { name: '  Acme\u0301 Ltd  ' });
        expect(org.name).to.equal('Acme\u0301 Ltd'.normalize('NFC'));
        expect(org.role).to.equal('owner');
        expect(org.permissions).to.deep.equal(ALL_GATEHOUSE);
        expect(org.id).to.match(/^[0-9a-f-]{36}$/);
        expect(await w.accounts.organizations.listMine(alice.token)).to.deep.equal([org]);
        expect(await w.accounts.organizations.get(alice.token, org.id)).to.deep.equal({ ...org, memberCount: 1 });
        const [created] = await w.events('organization_created');
        expect(created.details).to.deep.equal({ organizationId: org.id });
        expect(created.actorId).to.equal(alice.id);
      });

      it('refuses bad names', async () => {
        const w = world();
        const alice = await w.person('alice');
        for (const name of ['', '   ', 'x'.repeat(101), 'a\nb', 'tab\there', 'nul\u0000']) {
          await expectAccountError(w.accounts.organizations.create(alice.token, { name }), 'account_error');
        }
        expect((await w.accounts.organizations.create(alice.token, { name: 'é'.repeat(100) })).name).to.have.length(
          100,
        );
      });

      it('answers an unknown, malformed or not-a-member id alike, after the session', async () => {
        const w = world();
        const alice = await w.person('alice');
        const bob = await w.person('bob');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        for (const id of [org.id, randomUUID(), 'not-a-uuid', "' OR 1=1 --"]) {
          await expectAccountError(w.accounts.organizations.get(bob.token, id), 'organization_not_found');
          await expectAccountError(w.accounts.organizations.listMembers(bob.token, id), 'organization_not_found');
          await expectAccountError(w.accounts.organizations.rename(bob.token, id, 'Mine'), 'organization_not_found');
          await expectAccountError(w.accounts.organizations.leave(bob.token, id), 'organization_not_found');
        }
        await expectAccountError(w.accounts.organizations.get('bad-token', org.id), 'invalid_session_token');
        await expectAccountError(w.accounts.organizations.get('bad-token', 'x'), 'invalid_session_token');
      });

      it('renames with gatehouse.organization.update only', async () => {
        const w = world();
        const { alice, bob, org } = await acme(w, { bob: 'admin' });
        await expectAccountError(
          w.accounts.organizations.rename((await w.person('dave')).token, org.id, 'X'),
          'organization_not_found',
        );
        const carolToken = await w.accounts.login('carol', STRONG_PASSWORD);
        await expectAccountError(w.accounts.organizations.rename(carolToken, org.id, 'X'), 'permission_denied');
        expect((await w.accounts.organizations.rename(bob.token, org.id, ' Acme 2 ')).name).to.equal('Acme 2');
        expect((await w.accounts.organizations.get(alice.token, org.id)).name).to.equal('Acme 2');
        const [renamed] = await w.events('organization_updated');
        expect(renamed.details).to.deep.equal({ organizationId: org.id });
      });

      it("lists each of the caller's organizations with its role", async () => {
        const w = world();
        const { alice, bob, org } = await acme(w);
        w.clock.advance(1000);
        const own = await w.accounts.organizations.create(bob.token, { name: 'Bob & co' });
        const mine = await w.accounts.organizations.listMine(bob.token);
        expect(mine.map((o) => [o.id, o.role])).to.deep.equal([
          [org.id, 'member'],
          [own.id, 'owner'],
        ]);
        expect(mine[0].permissions).to.deep.equal(['gatehouse.members.read']);
        expect((await w.accounts.organizations.listMine(alice.token)).map((o) => o.id)).to.deep.equal([org.id]);
      });

      it("keeps the roster's addresses for managers", async () => {
        const w = world();
        const { alice, bob, org } = await acme(w);
        const seenByBob = await w.accounts.organizations.listMembers(bob.token, org.id);
        expect(seenByBob.map((m) => m.username)).to.deep.equal(['alice', 'bob', 'carol']);
        expect(seenByBob.every((m) => m.email === undefined)).to.equal(true);
        const seenByAlice = await w.accounts.organizations.listMembers(alice.token, org.id);
        expect(seenByAlice.map((m) => m.email)).to.deep.equal([
          'alice@example.com',
          'bob@example.com',
          'carol@example.com',
        ]);
        expect(seenByAlice.map((m) => m.role)).to.deep.equal(['owner', 'member', 'member']);
      });
    });

    describe('creation rules and limits', () => {
      it("leaves creation to administrators when 'administrators'", async () => {
        options = { organizations: { creation: 'administrators' } };
        const w = world();
        const alice = await w.person('alice');
        await expectAccountError(w.accounts.organizations.create(alice.token, { name: 'Acme' }), 'permission_denied');
        await w.administrator('root');
        const rootToken = await w.accounts.login('root', STRONG_PASSWORD);
        expect((await w.accounts.organizations.create(rootToken, { name: 'Acme' })).role).to.equal('owner');
      });

      it('counts memberships against maxOrganizationsPerUser, creating and accepting', async () => {
        options = { organizations: { maxOrganizationsPerUser: 2 } };
        const w = world();
        const alice = await w.person('alice');
        const bob = await w.person('bob');
        const a = await w.accounts.organizations.create(alice.token, { name: 'A' });
        await w.accounts.organizations.create(bob.token, { name: 'B1' });
        await w.accounts.organizations.create(bob.token, { name: 'B2' });
        await expectAccountError(
          w.accounts.organizations.create(bob.token, { name: 'B3' }),
          'organization_limit_reached',
        );
        await w.accounts.organizations.invite(alice.token, a.id, { email: bob.email, role: 'member' });
        const token = await w.invitationToken(bob.email);
        await expectAccountError(
          w.accounts.organizations.acceptInvitation(bob.token, token),
          'organization_limit_reached',
        );
        // Nothing was consumed: the invitation is still pending.
        expect(await w.accounts.organizations.listInvitations(alice.token, a.id)).to.have.length(1);
      });

      it('is off, everywhere, with organizations: false', async () => {
        options = { organizations: false };
        const w = world();
        const alice = await w.person('alice');
        await expectAccountError(w.accounts.organizations.create(alice.token, { name: 'A' }), 'organization_not_found');
        await expectAccountError(w.accounts.organizations.listMine(alice.token), 'organization_not_found');
        await expectAccountError(w.accounts.organizations.previewInvitation('x'.repeat(43)), 'organization_not_found');
        expect(() => w.accounts.organizations.template).to.throw();
        // The account's deletion is not held back by organizations it cannot see.
        await w.accounts.deleteAccount(alice.token, STRONG_PASSWORD);
      });
    });

    describe('roles', () => {
      it('lets a manager change roles within their own permissions, never their own, owners only by owners', async () => {
        const w = world();
        const { alice, bob, carol, org } = await acme(w);
        const promoted = await w.accounts.organizations.changeRole(alice.token, org.id, bob.id, 'admin');
        expect(promoted).to.include({ userId: bob.id, role: 'admin', email: bob.email });
        // bob (admin) manages carol, but cannot make owners, touch owners, or change himself.
        expect((await w.accounts.organizations.changeRole(bob.token, org.id, carol.id, 'admin')).role).to.equal(
          'admin',
        );
        await w.accounts.organizations.changeRole(bob.token, org.id, carol.id, 'member');
        await expectAccountError(
          w.accounts.organizations.changeRole(bob.token, org.id, carol.id, 'owner'),
          'role_not_assignable',
        );
        await expectAccountError(
          w.accounts.organizations.changeRole(bob.token, org.id, alice.id, 'member'),
          'role_not_assignable',
        );
        await expectAccountError(
          w.accounts.organizations.removeMember(bob.token, org.id, alice.id),
          'role_not_assignable',
        );
        await expectAccountError(
          w.accounts.organizations.changeRole(bob.token, org.id, bob.id, 'member'),
          'role_not_assignable',
        );
        await expectAccountError(
          w.accounts.organizations.changeRole(alice.token, org.id, alice.id, 'admin'),
          'role_not_assignable',
        );
        // A member cannot manage; ids not of this organization are member_not_found.
        await expectAccountError(
          w.accounts.organizations.changeRole(carol.token, org.id, bob.id, 'member'),
          'permission_denied',
        );
        await expectAccountError(
          w.accounts.organizations.changeRole(alice.token, org.id, randomUUID(), 'member'),
          'member_not_found',
        );
        await expectAccountError(
          w.accounts.organizations.changeRole(alice.token, org.id, 'nope', 'member'),
          'member_not_found',
        );
        const dave = await w.person('dave');
        await expectAccountError(
          w.accounts.organizations.changeRole(alice.token, org.id, dave.id, 'member'),
          'member_not_found',
        );
        await expectAccountError(
          w.accounts.organizations.changeRole(alice.token, org.id, carol.id, 'root'),
          'account_error',
        );
        // An owner makes another owner, who may then demote the first.
        await w.accounts.organizations.changeRole(alice.token, org.id, carol.id, 'owner');
        await w.accounts.organizations.changeRole(carol.token, org.id, alice.id, 'member');
        expect((await w.accounts.organizations.get(alice.token, org.id)).role).to.equal('member');
        const changes = await w.events('organization_member_role_changed');
        expect(changes.map((e) => [e.subjectId, e.details?.role, e.details?.previous_role])).to.deep.equal([
          [bob.id, 'admin', 'member'],
          [carol.id, 'admin', 'member'],
          [carol.id, 'member', 'admin'],
          [carol.id, 'owner', 'member'],
          [alice.id, 'member', 'owner'],
        ]);
        expect(changes.every((e) => e.details?.organizationId === org.id)).to.equal(true);
      });

      it('refuses a role holding a host permission the actor lacks', async () => {
        options = {
          organizations: {
            roles: {
              admin: ['gatehouse.members.read', 'gatehouse.members.invite', 'gatehouse.members.manage'],
              developer: ['gatehouse.members.read', 'projects.write'],
              member: ['gatehouse.members.read'],
            },
          },
        };
        const w = world();
        const { alice, bob, carol, org } = await acme(w, { bob: 'admin' });
        await expectAccountError(
          w.accounts.organizations.changeRole(bob.token, org.id, carol.id, 'developer'),
          'role_not_assignable',
        );
        await expectAccountError(
          w.accounts.organizations.invite(bob.token, org.id, { email: 'x@example.com', role: 'developer' }),
          'role_not_assignable',
        );
        await w.accounts.organizations.changeRole(alice.token, org.id, carol.id, 'developer');
        // Nor may he touch a member whose role holds more than his.
        await expectAccountError(
          w.accounts.organizations.changeRole(bob.token, org.id, carol.id, 'member'),
          'role_not_assignable',
        );
        await expectAccountError(
          w.accounts.organizations.removeMember(bob.token, org.id, carol.id),
          'role_not_assignable',
        );
        expect((await w.accounts.organizations.get(carol.token, org.id)).permissions).to.deep.equal([
          'gatehouse.members.read',
          'projects.write',
        ]);
      });

      it('keeps the last owner: no leaving, no demotion, no removal', async () => {
        const w = world();
        const { alice, bob, org } = await acme(w, { bob: 'admin' });
        await expectAccountError(w.accounts.organizations.leave(alice.token, org.id), 'last_owner');
        await expectAccountError(w.accounts.organizations.removeMember(alice.token, org.id, alice.id), 'last_owner');
        await expectAccountError(
          w.accounts.organizations.removeMember(bob.token, org.id, alice.id),
          'role_not_assignable',
        );
        await w.accounts.organizations.changeRole(alice.token, org.id, bob.id, 'owner');
        await w.accounts.organizations.leave(alice.token, org.id);
        await expectAccountError(w.accounts.organizations.leave(bob.token, org.id), 'last_owner');
        expect((await w.accounts.organizations.listMembers(bob.token, org.id)).map((m) => m.username)).to.deep.equal([
          'bob',
          'carol',
        ]);
      });

      it('lets exactly one of two owners removing each other succeed', async () => {
        const w = world();
        const { alice, bob, org } = await acme(w);
        await w.accounts.organizations.changeRole(alice.token, org.id, bob.id, 'owner');
        const results = await Promise.allSettled([
          w.accounts.organizations.removeMember(alice.token, org.id, bob.id),
          w.accounts.organizations.removeMember(bob.token, org.id, alice.id),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
        const members = await w.store.organizations.listMembers(org.id);
        expect(members.filter((m) => m.role === 'owner')).to.have.length(1);
        // And two last owners leaving at once: one goes, the other is the last owner.
        const [owner] = members.filter((m) => m.role === 'owner');
        const ownerToken = owner.userId === alice.id ? alice.token : bob.token;
        const other = owner.userId === alice.id ? bob : alice;
        // The survivor names the other owner again (re-invited), then both leave at once.
        await w.accounts.organizations.invite(ownerToken, org.id, { email: other.email, role: 'owner' });
        await w.accounts.organizations.acceptInvitation(other.token, await w.invitationToken(other.email));
        const leaving = await Promise.allSettled([
          w.accounts.organizations.leave(alice.token, org.id),
          w.accounts.organizations.leave(bob.token, org.id),
        ]);
        expect(leaving.filter((r) => r.status === 'fulfilled')).to.have.length(1);
        const refused = leaving.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect(refused.reason.code).to.equal('last_owner');
        expect(await w.store.organizations.countMembersWithRole(org.id, 'owner')).to.equal(1);
      });

      it('lets any member leave, and a manager remove a member (the own id is leaving)', async () => {
        const w = world();
        const { alice, bob, carol, org } = await acme(w);
        await w.accounts.organizations.leave(carol.token, org.id);
        await expectAccountError(w.accounts.organizations.get(carol.token, org.id), 'organization_not_found');
        await expectAccountError(
          w.accounts.organizations.removeMember(bob.token, org.id, alice.id),
          'permission_denied',
        );
        await w.accounts.organizations.removeMember(alice.token, org.id, bob.id);
        await expectAccountError(
          w.accounts.organizations.removeMember(alice.token, org.id, bob.id),
          'member_not_found',
        );
        expect((await w.accounts.organizations.listMembers(alice.token, org.id)).map((m) => m.username)).to.deep.equal([
          'alice',
        ]);
        const [left] = await w.events('organization_member_left');
        expect(left).to.include({ actorId: carol.id, subjectId: carol.id });
        expect(left.details).to.deep.equal({ organizationId: org.id, role: 'member' });
        const [removed] = await w.events('organization_member_removed');
        expect(removed).to.include({ actorId: alice.id, subjectId: bob.id });
        expect(removed.details).to.deep.equal({ organizationId: org.id, role: 'member' });
      });
    });

    describe('transfer', () => {
      it('swaps owner and admin, for an owner with a recent session', async () => {
        const w = world();
        const { alice, bob, carol, org } = await acme(w, { bob: 'admin' });
        await expectAccountError(w.accounts.organizations.transfer(bob.token, org.id, carol.id), 'permission_denied');
        await expectAccountError(
          w.accounts.organizations.transfer(alice.token, org.id, randomUUID()),
          'member_not_found',
        );
        await expectAccountError(
          w.accounts.organizations.transfer(alice.token, org.id, alice.id),
          'role_not_assignable',
        );
        w.clock.advance(11 * MINUTE);
        await expectAccountError(
          w.accounts.organizations.transfer(alice.token, org.id, carol.id),
          'reauthentication_required',
        );
        await w.accounts.sessions.reauthenticate(alice.token, STRONG_PASSWORD);
        await w.accounts.organizations.transfer(alice.token, org.id, carol.id);
        const roles = (await w.accounts.organizations.listMembers(carol.token, org.id)).map((m) => [
          m.username,
          m.role,
        ]);
        expect(roles).to.deep.equal([
          ['alice', 'admin'],
          ['bob', 'admin'],
          ['carol', 'owner'],
        ]);
        const [transferred] = await w.events('organization_ownership_transferred');
        expect(transferred).to.include({ actorId: alice.id, subjectId: carol.id });
        expect(transferred.details?.organizationId).to.equal(org.id);
      });
    });

    describe('deletion', () => {
      it('needs the permission and a recent session; tells the other members and calls the hook after commit', async () => {
        const deleted: { id: string; name: string }[] = [];
        options = { organizations: { onDeleted: (org) => void deleted.push(org) } };
        const w = world();
        const { alice, bob, org } = await acme(w, { bob: 'admin' });
        await expectAccountError(w.accounts.organizations.delete(bob.token, org.id), 'permission_denied');
        w.clock.advance(11 * MINUTE);
        await expectAccountError(w.accounts.organizations.delete(alice.token, org.id), 'reauthentication_required');
        await w.accounts.sessions.reauthenticate(alice.token, STRONG_PASSWORD);
        await w.accounts.organizations.invite(alice.token, org.id, { email: 'newcomer@example.com', role: 'member' });
        await w.accounts.organizations.delete(alice.token, org.id);
        await w.accounts.drain();
        expect(deleted).to.deep.equal([{ id: org.id, name: 'Acme' }]);
        expect(
          w.sender
            .of('organizationDeleted')
            .map((m) => m.username)
            .sort(),
        ).to.deep.equal(['bob', 'carol']);
        expect(await w.store.organizations.find(org.id)).to.equal(null);
        expect(await w.store.organizations.countForUser(bob.id)).to.equal(0);
        expect(await w.store.organizations.listInvitations(org.id, w.clock.now())).to.deep.equal([]);
        await expectAccountError(w.accounts.organizations.get(alice.token, org.id), 'organization_not_found');
        const [event] = await w.events('organization_deleted');
        expect(event.details).to.deep.equal({ organizationId: org.id, members: 3 });
      });

      it('logs a failing hook and keeps the deletion', async () => {
        options = {
          organizations: {
            onDeleted: () => {
              throw new Error('host down');
            },
          },
        };
        const w = world();
        const alice = await w.person('alice');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        await w.accounts.organizations.delete(alice.token, org.id);
        expect(await w.store.organizations.find(org.id)).to.equal(null);
        expect(w.logger.events('organization_deleted_hook')).to.have.length(1);
      });
    });

    describe('invitations', () => {
      it('brings an existing user in: preview without the address, accept, audited without the address', async () => {
        const w = world();
        const alice = await w.person('alice');
        const bob = await w.person('bob', 'Bob.Smith@example.com');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        const view = await w.accounts.organizations.invite(alice.token, org.id, {
          email: 'bob.smith@EXAMPLE.com',
          role: 'admin',
        });
        expect(view).to.include({ email: 'bob.smith@example.com', role: 'admin', invitedBy: 'alice' });
        expect(view).not.to.have.property('token');
        const token = await w.invitationToken('bob.smith@example.com');
        // Stored only as a keyed hash.
        const [stored] = await w.store.organizations.listInvitations(org.id, w.clock.now());
        expect(JSON.stringify(stored)).not.to.include(token);
        expect(stored.tokenHash).to.equal(hashOf(token));
        const preview = await w.accounts.organizations.previewInvitation(token);
        expect(preview).to.deep.equal({
          organization: { id: org.id, name: 'Acme' },
          role: 'admin',
          invitedBy: 'alice',
          expiresAt: view.expiresAt,
        });
        const joined = await w.accounts.organizations.acceptInvitation(bob.token, token);
        expect(joined).to.include({ id: org.id, role: 'admin' });
        await expectAccountError(
          w.accounts.organizations.acceptInvitation(bob.token, token),
          'invalid_invitation_token',
        );
        await expectAccountError(w.accounts.organizations.previewInvitation(token), 'invalid_invitation_token');
        const events = (await w.events('organization_invitation_created', 'organization_invitation_accepted')).filter(
          (e) => e.outcome === 'success',
        );
        expect(events.map((e) => e.details?.organizationId)).to.deep.equal([org.id, org.id]);
        expect(events[0].details).to.deep.equal({
          organizationId: org.id,
          invitationId: view.id,
          role: 'admin',
          replaced: false,
        });
        const all = JSON.stringify(await w.store.audit.list({ limit: 1000 })).toLowerCase();
        expect(all).not.to.include('bob.smith');
      });

      it("refuses another account (the invitation stays), and a member's address", async () => {
        const w = world();
        const { alice, bob, carol, org } = await acme(w);
        const dave = await w.person('dave');
        await w.accounts.organizations.invite(alice.token, org.id, { email: dave.email, role: 'member' });
        const token = await w.invitationToken(dave.email);
        await expectAccountError(
          w.accounts.organizations.acceptInvitation(carol.token, token),
          'invitation_address_mismatch',
        );
        await expectAccountError(
          w.accounts.organizations.declineInvitation(bob.token, token),
          'invitation_address_mismatch',
        );
        expect(await w.accounts.organizations.listInvitations(alice.token, org.id)).to.have.length(1);
        const refused = await w.events('organization_invitation_accepted');
        expect(refused.map((e) => e.outcome)).to.deep.equal(['success', 'success', 'address_mismatch']);
        expect(refused[2].details?.organizationId).to.equal(org.id);
        await w.accounts.organizations.acceptInvitation(dave.token, token);
        await expectAccountError(
          w.accounts.organizations.invite(alice.token, org.id, { email: 'BOB@example.com', role: 'member' }),
          'already_member',
        );
      });

      it('kills cancelled, replaced, resent-over and expired tokens; an expired one blocks nothing', async () => {
        options = { organizations: { invitationTtlMs: HOUR } };
        const w = world();
        const alice = await w.person('alice');
        const bob = await w.person('bob');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        const invite = () => w.accounts.organizations.invite(alice.token, org.id, { email: bob.email, role: 'member' });

        const cancelled = await invite();
        const cancelledToken = await w.invitationToken(bob.email);
        await w.accounts.organizations.cancelInvitation(alice.token, org.id, cancelled.id);
        await expectAccountError(
          w.accounts.organizations.cancelInvitation(alice.token, org.id, cancelled.id),
          'invitation_not_found',
        );
        await expectAccountError(
          w.accounts.organizations.acceptInvitation(bob.token, cancelledToken),
          'invalid_invitation_token',
        );

        await invite();
        const replacedToken = await w.invitationToken(bob.email);
        const replacing = await invite();
        expect((await w.events('organization_invitation_created')).at(-1)?.details?.replaced).to.equal(true);
        await expectAccountError(
          w.accounts.organizations.acceptInvitation(bob.token, replacedToken),
          'invalid_invitation_token',
        );

        const beforeResend = await w.invitationToken(bob.email);
        const resent = await w.accounts.organizations.resendInvitation(alice.token, org.id, replacing.id);
        expect(resent.id).to.equal(replacing.id);
        const afterResend = await w.invitationToken(bob.email);
        expect(afterResend).not.to.equal(beforeResend);
        await expectAccountError(
          w.accounts.organizations.acceptInvitation(bob.token, beforeResend),
          'invalid_invitation_token',
        );

        w.clock.advance(HOUR);
        await expectAccountError(
          w.accounts.organizations.acceptInvitation(bob.token, afterResend),
          'invalid_invitation_token',
        );
        expect(await w.accounts.organizations.listInvitations(alice.token, org.id)).to.deep.equal([]);
        await expectAccountError(
          w.accounts.organizations.resendInvitation(alice.token, org.id, replacing.id),
          'invitation_not_found',
        );
        // A new invitation despite the expired one.
        await w.accounts.sessions.reauthenticate(alice.token, STRONG_PASSWORD);
        await invite();
        expect(
          (await w.accounts.organizations.acceptInvitation(bob.token, await w.invitationToken(bob.email))).role,
        ).to.equal('member');
        for (const token of ['', 'short', 'x'.repeat(43)]) {
          await expectAccountError(w.accounts.organizations.previewInvitation(token), 'invalid_invitation_token');
        }
      });

      it('lets the invitee decline', async () => {
        const w = world();
        const alice = await w.person('alice');
        const bob = await w.person('bob');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        await w.accounts.organizations.invite(alice.token, org.id, { email: bob.email, role: 'member' });
        const token = await w.invitationToken(bob.email);
        await w.accounts.organizations.declineInvitation(bob.token, token);
        await expectAccountError(
          w.accounts.organizations.acceptInvitation(bob.token, token),
          'invalid_invitation_token',
        );
        expect(await w.store.organizations.countMembers(org.id)).to.equal(1);
        const [declined] = await w.events('organization_invitation_declined');
        expect(declined.details?.organizationId).to.equal(org.id);
      });

      it('makes one membership of two concurrent accepts', async () => {
        const w = world();
        const alice = await w.person('alice');
        const bob = await w.person('bob');
        const other = await w.accounts.login('bob', STRONG_PASSWORD);
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        await w.accounts.organizations.invite(alice.token, org.id, { email: bob.email, role: 'member' });
        const token = await w.invitationToken(bob.email);
        const results = await Promise.allSettled([
          w.accounts.organizations.acceptInvitation(bob.token, token),
          w.accounts.organizations.acceptInvitation(other, token),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
        const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect(refused.reason.code).to.equal('invalid_invitation_token');
        expect(await w.store.organizations.countMembers(org.id)).to.equal(2);
      });

      it('brings a newcomer in: registers, verifies, then accepts', async () => {
        const w = world();
        const alice = await w.person('alice');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        await w.accounts.organizations.invite(alice.token, org.id, { email: 'newcomer@example.com', role: 'member' });
        const token = await w.invitationToken('newcomer@example.com');
        expect(w.sender.of('organizationInvitation', 'newcomer@example.com')[0].username).to.equal(
          'newcomer@example.com',
        );
        await w.accounts.register({ username: 'newcomer', email: 'newcomer@example.com', password: STRONG_PASSWORD });
        await w.accounts.drain();
        // Unverified: no session at all (an invitation verifies nothing).
        await expectAccountError(w.accounts.login('newcomer', STRONG_PASSWORD), 'unverified_user');
        await w.accounts.verifyEmail(w.sender.lastToken('sendVerification', 'newcomer@example.com'));
        const session = await w.accounts.login('newcomer', STRONG_PASSWORD);
        expect((await w.accounts.organizations.acceptInvitation(session, token)).id).to.equal(org.id);
      });

      it('refuses an account whose address is not verified', async () => {
        const w = world();
        const alice = await w.person('alice');
        const bob = await w.person('bob');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        await w.accounts.organizations.invite(alice.token, org.id, { email: bob.email, role: 'member' });
        const token = await w.invitationToken(bob.email);
        // bob's row, unverified (as an account signed in through a provider that vouched for nothing would be).
        const realFind = w.store.sessions.findWithUser.bind(w.store.sessions);
        (w.store.sessions as { findWithUser: typeof realFind }).findWithUser = async (hash) => {
          const found = await realFind(hash);
          return found && { ...found, user: { ...found.user, verified: false } };
        };
        await expectAccountError(
          w.accounts.organizations.acceptInvitation(bob.token, token),
          'invitation_address_mismatch',
        );
        (w.store.sessions as { findWithUser: typeof realFind }).findWithUser = realFind;
        await w.accounts.organizations.acceptInvitation(bob.token, token);
      });

      it('needs gatehouse.members.invite to invite and .manage to list, resend and cancel; owner only by owners', async () => {
        const w = world();
        const { alice, bob, carol, org } = await acme(w, { bob: 'admin' });
        await expectAccountError(
          w.accounts.organizations.invite(carol.token, org.id, { email: 'x@example.com', role: 'member' }),
          'permission_denied',
        );
        await expectAccountError(
          w.accounts.organizations.invite(bob.token, org.id, { email: 'x@example.com', role: 'owner' }),
          'role_not_assignable',
        );
        await expectAccountError(
          w.accounts.organizations.invite(bob.token, org.id, { email: 'not an address', role: 'member' }),
          'invalid_email',
        );
        const invited = await w.accounts.organizations.invite(bob.token, org.id, {
          email: 'x@example.com',
          role: 'admin',
        });
        await expectAccountError(w.accounts.organizations.listInvitations(carol.token, org.id), 'permission_denied');
        await expectAccountError(
          w.accounts.organizations.resendInvitation(carol.token, org.id, invited.id),
          'permission_denied',
        );
        await expectAccountError(
          w.accounts.organizations.cancelInvitation(carol.token, org.id, invited.id),
          'permission_denied',
        );
        // Another organization's invitation id is not found here.
        const other = await w.accounts.organizations.create(carol.token, { name: 'Other' });
        await expectAccountError(
          w.accounts.organizations.cancelInvitation(carol.token, other.id, invited.id),
          'invitation_not_found',
        );
        await expectAccountError(
          w.accounts.organizations.resendInvitation(carol.token, other.id, 'x'),
          'invitation_not_found',
        );
        expect((await w.accounts.organizations.listInvitations(bob.token, org.id)).map((i) => i.id)).to.deep.equal([
          invited.id,
        ]);
        expect(
          (await w.accounts.organizations.invite(alice.token, org.id, { email: 'y@example.com', role: 'owner' })).role,
        ).to.equal('owner');
      });

      it('counts pending invitations and seats inside the transaction', async () => {
        options = { organizations: { maxPendingInvitations: 2, maxMembers: 4 } };
        const w = world();
        const alice = await w.person('alice');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        // A second apart: the newest mail to an address is the one of the newest invitation.
        const invite = (email: string) => {
          w.clock.advance(1000);
          return w.accounts.organizations.invite(alice.token, org.id, { email, role: 'member' });
        };
        await invite('a@example.com');
        await invite('b@example.com');
        await expectAccountError(invite('c@example.com'), 'invitation_limit_reached');
        // Replacing one at the limit is fine.
        await invite('b@example.com');
        const bob = await w.person('bob', 'a@example.com');
        await w.accounts.organizations.acceptInvitation(bob.token, await w.invitationToken('a@example.com'));
        // alice, bob and one pending: one seat left.
        await invite('c@example.com');
        await expectAccountError(invite('d@example.com'), 'invitation_limit_reached');
        const carol = await w.person('carol', 'c@example.com');
        await w.accounts.organizations.acceptInvitation(carol.token, await w.invitationToken('c@example.com'));
        await expectAccountError(invite('d@example.com'), 'member_limit_reached');
        // An administrator's owner fills the last seat: the last invitee can no longer join.
        const root = await w.administrator('root');
        await w.accounts.organizations.admin.setOwner(root, org.id, root.kind === 'admin' ? root.user.id : '');
        await expectAccountError(
          w.accounts.organizations.acceptInvitation(
            (await w.person('dan', 'b@example.com')).token,
            await w.invitationToken('b@example.com'),
          ),
          'member_limit_reached',
        );
      });

      it('gives two joins for the last seat one seat', async () => {
        options = { organizations: { maxMembers: 3 } };
        const w = world();
        const alice = await w.person('alice');
        const bob = await w.person('bob');
        const carol = await w.person('carol');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        await w.accounts.organizations.invite(alice.token, org.id, { email: bob.email, role: 'member' });
        await w.accounts.organizations.invite(alice.token, org.id, { email: carol.email, role: 'member' });
        const root = await w.administrator('root');
        const rootId = root.kind === 'admin' ? root.user.id : '';
        const [bobToken, carolToken] = [await w.invitationToken(bob.email), await w.invitationToken(carol.email)];
        // The operator adds an owner: 2 members + 2 pending over 3 seats; one seat is left, for one of the two.
        await w.accounts.organizations.admin.setOwner(OPERATOR, org.id, rootId);
        const results = await Promise.allSettled([
          w.accounts.organizations.acceptInvitation(bob.token, bobToken),
          w.accounts.organizations.acceptInvitation(carol.token, carolToken),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
        expect(await w.store.organizations.countMembers(org.id)).to.equal(3);
      });
    });

    describe('audit', () => {
      it('writes every change with the organization id, and never an invited address', async () => {
        const w = world();
        const { alice, bob, carol, org } = await acme(w);
        const invited = await w.accounts.organizations.invite(alice.token, org.id, {
          email: 'Someone.Else@example.org',
          role: 'member',
        });
        await w.accounts.organizations.resendInvitation(alice.token, org.id, invited.id);
        await w.accounts.organizations.cancelInvitation(alice.token, org.id, invited.id);
        await w.accounts.organizations.invite(alice.token, org.id, { email: 'other@example.org', role: 'member' });
        await w.accounts.organizations.rename(alice.token, org.id, 'Acme 2');
        await w.accounts.organizations.changeRole(alice.token, org.id, bob.id, 'admin');
        await w.accounts.organizations.transfer(alice.token, org.id, bob.id);
        await w.accounts.organizations.removeMember(bob.token, org.id, carol.id);
        await w.accounts.organizations.leave(alice.token, org.id);
        await w.accounts.organizations.delete(bob.token, org.id);
        const events = (await w.store.audit.list({ limit: 1000 })).filter((e) => e.type.startsWith('organization_'));
        // Every type but a declined invitation's.
        expect(new Set(events.map((e) => e.type)).size).to.equal(11);
        for (const event of events) expect(event.details?.organizationId, event.type).to.equal(org.id);
        const text = JSON.stringify(await w.store.audit.list({ limit: 1000 })).toLowerCase();
        for (const address of ['someone.else', 'other@example.org', 'bob@example.com', 'carol@example.com']) {
          expect(text).not.to.include(address);
        }
      });

      it('keeps the invitation when its invitee is a member already', async () => {
        const w = world();
        const alice = await w.person('alice');
        const bob = await w.person('bob');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        await w.accounts.organizations.invite(alice.token, org.id, { email: bob.email, role: 'member' });
        const token = await w.invitationToken(bob.email);
        // The operator makes bob an owner meanwhile: joining again is refused, the invitation stays for declining.
        await w.accounts.organizations.admin.setOwner(OPERATOR, org.id, bob.id);
        await expectAccountError(w.accounts.organizations.acceptInvitation(bob.token, token), 'already_member');
        expect((await w.accounts.organizations.previewInvitation(token)).role).to.equal('member');
        await w.accounts.organizations.declineInvitation(bob.token, token);
      });
    });

    describe('administration', () => {
      it("lists, reads, shows a user's organizations and names an owner, each checked and audited", async () => {
        const w = world();
        const { alice, bob, org } = await acme(w);
        w.clock.advance(1000);
        const second = await w.accounts.organizations.create(bob.token, { name: 'Second' });
        await w.accounts.organizations.invite(alice.token, org.id, { email: 'pending@example.com', role: 'member' });
        const mallory = await w.person('mallory');
        const notAdmin = { kind: 'admin' as const, user: { id: mallory.id }, sessionToken: mallory.token };
        const admin = w.accounts.organizations.admin;
        await expectAccountError(admin.list(notAdmin), 'permission_denied');
        await expectAccountError(admin.get(notAdmin, org.id), 'permission_denied');
        await expectAccountError(admin.userOrganizations(notAdmin, bob.id), 'permission_denied');
        await expectAccountError(admin.setOwner(notAdmin, org.id, mallory.id), 'permission_denied');

        const root = await w.administrator('root');
        const first = await admin.list(root, { limit: 1 });
        expect(first.items).to.have.length(1);
        expect(first.nextCursor).to.be.a('string');
        const rest = await admin.list(root, { cursor: first.nextCursor as string, limit: 10 });
        expect([...first.items, ...rest.items].map((o) => o.id).sort()).to.deep.equal([org.id, second.id].sort());
        expect(rest.nextCursor).to.equal(null);
        await expectAccountError(admin.list(root, { cursor: 'forged.cursor' }), 'invalid_cursor');

        const read = await admin.get(root, org.id);
        expect(read).to.include({ id: org.id, name: 'Acme', memberCount: 3, createdBy: alice.id });
        expect(read.members.map((m) => m.email)).to.deep.equal([
          'alice@example.com',
          'bob@example.com',
          'carol@example.com',
        ]);
        expect(read.invitations.map((i) => [i.email, i.invitedBy])).to.deep.equal([['pending@example.com', 'alice']]);
        await expectAccountError(admin.get(root, randomUUID()), 'organization_not_found');
        await expectAccountError(admin.get(root, 'nope'), 'organization_not_found');

        const bobs = await admin.userOrganizations(root, bob.id);
        expect(bobs.map((o) => [o.id, o.role])).to.deep.equal([
          [org.id, 'member'],
          [second.id, 'owner'],
        ]);
        await expectAccountError(admin.userOrganizations(root, randomUUID()), 'user_not_found');

        const afterSet = await admin.setOwner(root, org.id, mallory.id);
        expect(afterSet.members.find((m) => m.userId === mallory.id)?.role).to.equal('owner');
        await admin.setOwner(root, org.id, bob.id);
        expect((await w.accounts.organizations.get(bob.token, org.id)).role).to.equal('owner');
        await expectAccountError(admin.setOwner(root, org.id, randomUUID()), 'user_not_found');
        await expectAccountError(admin.setOwner(root, randomUUID(), bob.id), 'organization_not_found');
        w.clock.advance(11 * MINUTE);
        await expectAccountError(admin.setOwner(root, org.id, alice.id), 'reauthentication_required');

        const events = await w.events(
          'admin.organizations_listed',
          'admin.organization_read',
          'admin.user_organizations_read',
          'admin.organization_owner_set',
        );
        expect(events.map((e) => e.type)).to.deep.equal([
          'admin.organizations_listed',
          'admin.organizations_listed',
          'admin.organization_read',
          'admin.user_organizations_read',
          'admin.organization_owner_set',
          'admin.organization_owner_set',
        ]);
        expect(events.every((e) => e.actorType === 'admin')).to.equal(true);
        expect(events[2].details).to.deep.equal({ organizationId: org.id });
        expect(events[4].details).to.deep.equal({ organizationId: org.id, previous_role: 'none' });
        expect(events[5].details).to.deep.equal({ organizationId: org.id, previous_role: 'member' });
      });
    });

    describe('account deletion', () => {
      it('refuses the last owner of an organization with others (own, admin, operator); takes the ones it is alone in', async () => {
        const deleted: string[] = [];
        options = { organizations: { onDeleted: (org) => void deleted.push(org.name) } };
        const w = world();
        const { alice, bob, org } = await acme(w);
        const solo = await w.accounts.organizations.create(alice.token, { name: 'Solo' });
        const root = await w.administrator('root');
        await expectAccountError(w.accounts.deleteAccount(alice.token, STRONG_PASSWORD), 'last_owner');
        await expectAccountError(w.accounts.admin.deleteUser(root, alice.id), 'last_owner');
        await expectAccountError(w.accounts.admin.deleteUser(OPERATOR, alice.id), 'last_owner');
        expect(await w.store.users.findById(alice.id)).not.to.equal(null);
        expect(await w.store.organizations.find(solo.id)).not.to.equal(null);
        expect(deleted).to.deep.equal([]);
        const refusals = await w.events('account_deleted', 'admin.user_deleted');
        expect(refusals.map((e) => [e.type, e.outcome, e.subjectId])).to.deep.equal([
          ['account_deleted', 'last_owner', alice.id],
          ['admin.user_deleted', 'last_owner', alice.id],
          ['admin.user_deleted', 'last_owner', alice.id],
        ]);
        // A member who is not the last owner goes, and the organization keeps its owner.
        await w.accounts.deleteAccount(bob.token, STRONG_PASSWORD);
        expect(await w.store.organizations.countMembers(org.id)).to.equal(2);

        await w.accounts.organizations.changeRole(
          alice.token,
          org.id,
          await w.accounts.admin.userIdOf('carol'),
          'owner',
        );
        await w.accounts.deleteAccount(alice.token, STRONG_PASSWORD);
        expect(deleted).to.deep.equal(['Solo']);
        expect(await w.store.organizations.find(solo.id)).to.equal(null);
        expect(await w.store.organizations.find(org.id)).not.to.equal(null);
        const removed = (await w.events('organization_deleted')).map((e) => e.details);
        expect(removed).to.deep.equal([{ organizationId: solo.id, reason: 'account_deleted' }]);
      });

      it('lets an administrator delete a sole member, taking its organization', async () => {
        const deleted: string[] = [];
        options = { organizations: { onDeleted: (org) => void deleted.push(org.id) } };
        const w = world();
        const alice = await w.person('alice');
        const org = await w.accounts.organizations.create(alice.token, { name: 'Acme' });
        await w.accounts.admin.deleteUser(OPERATOR, alice.id);
        expect(deleted).to.deep.equal([org.id]);
        expect(await w.store.organizations.find(org.id)).to.equal(null);
      });
    });
  });
}
