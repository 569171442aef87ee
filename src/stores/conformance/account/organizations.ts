import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type {
  OrganizationRecords,
  StoredInvitation,
  StoredMembership,
  StoredOrganization,
} from '../../../services/organizations/organization-records';
import type { UserStoreTransaction } from '../../../services/user-store';
import { describe, it, DAY_LATER, HOUR, HOUR_LATER, T0, fulfilled, type ConformanceSuite } from '../support';

const MINUTE = 60_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

/**
 * Organizations (`tx.organizations`, `store.organizations`): organizations, memberships (the user's rows) and
 * invitations, the locks the core decides under, the session check's membership, and the races the core relies on
 * the store for.
 */
export function describeOrganizations(suite: ConformanceSuite): void {
  const { registered, transaction, sessionFor } = suite;
  const reads = () => suite.store.organizations;
  const write = <T>(work: (tx: OrganizationRecords, whole: UserStoreTransaction) => Promise<T>): Promise<T> =>
    transaction((tx) => work(tx.organizations, tx));

  const organizationOf = (overrides: Partial<StoredOrganization> = {}): StoredOrganization => ({
    id: randomUUID(),
    name: 'Acme',
    createdBy: null,
    createdAt: new Date(T0),
    updatedAt: new Date(T0),
    ...overrides,
  });
  const membershipOf = (
    organizationId: string,
    userId: string,
    role: string,
    createdAt = new Date(T0),
  ): StoredMembership => ({ organizationId, userId, role, createdAt, updatedAt: createdAt });
  const invitationOf = (
    organizationId: string,
    label: string,
    overrides: Partial<StoredInvitation> = {},
  ): StoredInvitation => ({
    id: randomUUID(),
    organizationId,
    email: `${label}@example.com`,
    emailKey: `${label}@example.com`,
    role: 'member',
    tokenHash: `invitation-${label}-${randomUUID()}`,
    invitedBy: null,
    createdAt: new Date(T0),
    expiresAt: new Date(DAY_LATER),
    ...overrides,
  });

  /** A new organization, stored, with `owner` as its owner when given. */
  const created = async (overrides: Partial<StoredOrganization> = {}, owner?: string): Promise<StoredOrganization> => {
    const organization = organizationOf({ createdBy: owner ?? null, ...overrides });
    await write(async (tx) => {
      if (owner) assert.equal(await tx.lockUser(owner), true);
      await tx.create(organization);
      if (owner) assert.equal(await tx.addMember(membershipOf(organization.id, owner, 'owner')), 'added');
    });
    return organization;
  };
  const join = (organizationId: string, userId: string, role: string, when = new Date(T0)) =>
    write(async (tx) => {
      await tx.lockUser(userId);
      await tx.lock(organizationId);
      return tx.addMember(membershipOf(organizationId, userId, role, when));
    });
  const invite = (invitation: StoredInvitation) =>
    write(async (tx) => {
      await tx.lock(invitation.organizationId);
      await tx.createInvitation(invitation);
    });
  const consume = (tokenHash: string, now = new Date(T0)) => write((tx) => tx.consumeInvitation(tokenHash, now));
  const userId = async (label: string) => (await registered(label)).user.id;

  describe('organizations', () => {
    it('creates, finds, locks, renames and lists organizations by id, a page at a time', async () => {
      const alice = await userId('alice');
      const acme = await created({ name: 'Acme' }, alice);
      assert.deepEqual(await reads().find(acme.id), acme);
      assert.equal(await reads().find(randomUUID()), null);
      assert.deepEqual(await write((tx) => tx.find(acme.id)), acme);
      assert.deepEqual(await write((tx) => tx.lock(acme.id)), acme);
      assert.equal(await write((tx) => tx.lock(randomUUID())), null);
      assert.equal(await write((tx) => tx.lockUser(alice)), true);
      assert.equal(await write((tx) => tx.lockUser(randomUUID())), false);

      assert.equal(await write((tx) => tx.rename(acme.id, 'Acme Corp', HOUR_LATER)), true);
      assert.deepEqual(await reads().find(acme.id), { ...acme, name: 'Acme Corp', updatedAt: HOUR_LATER });
      assert.equal(await write((tx) => tx.rename(randomUUID(), 'Nobody', HOUR_LATER)), false);

      const ids = [acme.id, (await created()).id, (await created()).id, (await created()).id].sort();
      const all = await reads().list({ limit: 10 });
      assert.deepEqual(
        all.map((organization) => organization.id),
        ids,
      );
      const first = await reads().list({ limit: 2 });
      assert.deepEqual(
        first.map((organization) => organization.id),
        ids.slice(0, 2),
      );
      const next = await reads().list({ after: first[1].id, limit: 2 });
      assert.deepEqual(
        next.map((organization) => organization.id),
        ids.slice(2, 4),
      );
      assert.deepEqual(await reads().list({ after: ids[3], limit: 2 }), []);
      assert.deepEqual(await write((tx) => tx.list({ after: ids[0], limit: 1 })), [all[1]]);
    });

    it('refuses a duplicate organization id and an unknown creator, and keeps nothing of the transaction', async () => {
      const acme = await created();
      await assert.rejects(write((tx) => tx.create(organizationOf({ id: acme.id, name: 'Again' }))));
      assert.equal((await reads().find(acme.id))?.name, 'Acme');
      const ghost = organizationOf({ createdBy: randomUUID() });
      await assert.rejects(write((tx) => tx.create(ghost)));
      assert.equal(await reads().find(ghost.id), null);
    });

    it('adds members once, changes roles, removes them, and counts them', async () => {
      const [alice, bob, carol] = [await userId('alice'), await userId('bob'), await userId('carol')];
      const acme = await created({}, alice);
      assert.equal(await join(acme.id, bob, 'admin', HOUR_LATER), 'added');
      assert.equal(await join(acme.id, bob, 'member'), 'duplicate');
      assert.equal(await join(acme.id, randomUUID(), 'member'), 'gone');
      assert.equal(await join(randomUUID(), carol, 'member'), 'gone');

      assert.deepEqual(await reads().membership(acme.id, bob), membershipOf(acme.id, bob, 'admin', HOUR_LATER));
      assert.equal(await reads().membership(acme.id, carol), null);
      assert.equal(await reads().membership(randomUUID(), bob), null);
      assert.equal(await reads().countMembers(acme.id), 2);
      assert.equal(await reads().countMembersWithRole(acme.id, 'owner'), 1);
      assert.equal(await reads().countMembersWithRole(acme.id, 'admin'), 1);
      assert.equal(await reads().countMembersWithRole(acme.id, 'member'), 0);
      assert.equal(await reads().countForUser(bob), 1);
      assert.equal(await reads().countForUser(carol), 0);

      const later = at(2 * HOUR);
      assert.equal(await write((tx) => tx.setRole(acme.id, bob, 'owner', later)), true);
      assert.deepEqual(await reads().membership(acme.id, bob), {
        ...membershipOf(acme.id, bob, 'owner', HOUR_LATER),
        updatedAt: later,
      });
      assert.equal(await write((tx) => tx.setRole(acme.id, carol, 'owner', later)), false);
      assert.equal(await write((tx) => tx.countMembersWithRole(acme.id, 'owner')), 2);

      assert.equal(await write((tx) => tx.removeMember(acme.id, bob)), true);
      assert.equal(await write((tx) => tx.removeMember(acme.id, bob)), false);
      assert.equal(await reads().membership(acme.id, bob), null);
      assert.equal(await write((tx) => tx.countMembers(acme.id)), 1);
      assert.equal(await write((tx) => tx.countForUser(bob)), 0);
    });

    it("lists a user's organizations by oldest membership, and an organization's members oldest first", async () => {
      const [alice, bob, carol] = [await userId('alice'), await userId('bob'), await userId('carol')];
      const first = await created({ name: 'First' }, alice);
      const second = await created({ name: 'Second' });
      const third = await created({ name: 'Third' });
      // bob joins third, then first, then second: his list follows when he joined, not the organizations.
      assert.equal(await join(third.id, bob, 'member', at(1 * MINUTE)), 'added');
      assert.equal(await join(first.id, bob, 'admin', at(2 * MINUTE)), 'added');
      assert.equal(await join(second.id, bob, 'owner', at(3 * MINUTE)), 'added');
      assert.equal(await join(first.id, carol, 'member', at(MINUTE / 2)), 'added');

      const bobs = await reads().listForUser(bob);
      assert.deepEqual(bobs, [
        { organization: third, role: 'member', joinedAt: at(1 * MINUTE) },
        { organization: first, role: 'admin', joinedAt: at(2 * MINUTE) },
        { organization: second, role: 'owner', joinedAt: at(3 * MINUTE) },
      ]);
      assert.deepEqual(await write((tx) => tx.listForUser(bob)), bobs);
      assert.deepEqual(await reads().listForUser(randomUUID()), []);

      const members = await reads().listMembers(first.id);
      assert.deepEqual(
        members.map(({ userId: id, role, username, email }) => ({ id, role, username, email })),
        [
          { id: alice, role: 'owner', username: 'alice', email: 'alice@example.com' },
          { id: carol, role: 'member', username: 'carol', email: 'carol@example.com' },
          { id: bob, role: 'admin', username: 'bob', email: 'bob@example.com' },
        ],
      );
      assert.deepEqual(members[2].createdAt, at(2 * MINUTE));
      assert.deepEqual(await write((tx) => tx.listMembers(first.id)), members);
      assert.deepEqual(await reads().listMembers(randomUUID()), []);
    });

    it('stores invitations, lists and counts the pending ones oldest first, and finds them by id and token', async () => {
      const alice = await userId('alice');
      const acme = await created({}, alice);
      const other = await created();
      const early = invitationOf(acme.id, 'dave', { invitedBy: alice, role: 'admin' });
      const late = invitationOf(acme.id, 'erin', { createdAt: at(MINUTE), expiresAt: at(2 * HOUR) });
      const expired = invitationOf(acme.id, 'frank', { createdAt: at(MINUTE / 2), expiresAt: HOUR_LATER });
      const elsewhere = invitationOf(other.id, 'dave');
      for (const invitation of [late, expired, early, elsewhere]) await invite(invitation);

      const now = at(HOUR);
      assert.deepEqual(await reads().listInvitations(acme.id, now), [early, late]);
      assert.deepEqual(await write((tx) => tx.listInvitations(acme.id, now)), [early, late]);
      assert.deepEqual(await reads().listInvitations(acme.id, new Date(T0)), [early, expired, late]);
      assert.equal(await reads().countPendingInvitations(acme.id, now), 2);
      assert.equal(await reads().countPendingInvitations(acme.id, new Date(T0)), 3);
      assert.equal(await write((tx) => tx.countPendingInvitations(other.id, now)), 1);

      assert.deepEqual(await reads().findInvitation(acme.id, early.id, now), early);
      assert.deepEqual(await write((tx) => tx.findInvitation(acme.id, early.id, now)), early);
      assert.equal(await reads().findInvitation(other.id, early.id, now), null, "another organization's id");
      assert.equal(await reads().findInvitation(acme.id, expired.id, now), null, 'expired');
      assert.equal(await reads().findInvitation(acme.id, randomUUID(), now), null);

      assert.deepEqual(await reads().findInvitationByToken(early.tokenHash, now), early);
      assert.deepEqual(await write((tx) => tx.findInvitationByToken(late.tokenHash, now)), late);
      assert.equal(await reads().findInvitationByToken(expired.tokenHash, now), null, 'expired');
      assert.equal(await reads().findInvitationByToken(late.tokenHash, at(2 * HOUR)), null, 'expiry is exclusive');
      assert.equal(await reads().findInvitationByToken('invitation-unknown', now), null);
    });

    it('refuses an invitation of an unknown organization or inviter, and a taken token hash', async () => {
      const acme = await created();
      await assert.rejects(invite(invitationOf(randomUUID(), 'dave')));
      await assert.rejects(invite(invitationOf(acme.id, 'dave', { invitedBy: randomUUID() })));
      const first = invitationOf(acme.id, 'dave');
      await invite(first);
      await assert.rejects(invite(invitationOf(acme.id, 'erin', { tokenHash: first.tokenHash })));
      assert.deepEqual(await reads().listInvitations(acme.id, new Date(T0)), [first]);
    });

    it('a new invitation of the same address replaces the old one, pending or expired; others stay', async () => {
      const acme = await created();
      const other = await created();
      const old = invitationOf(acme.id, 'dave', { expiresAt: HOUR_LATER });
      const elsewhere = invitationOf(other.id, 'dave');
      await invite(old);
      await invite(elsewhere);
      const renewed = invitationOf(acme.id, 'dave', { role: 'admin', createdAt: at(MINUTE) });
      await invite(renewed);
      assert.equal(await reads().findInvitationByToken(old.tokenHash, new Date(T0)), null, 'the old token is dead');
      assert.equal(await consume(old.tokenHash), null);
      assert.deepEqual(await reads().listInvitations(acme.id, new Date(T0)), [renewed]);
      assert.deepEqual(await reads().listInvitations(other.id, new Date(T0)), [elsewhere]);

      // An expired one never blocks a new one.
      const short = invitationOf(acme.id, 'erin', { expiresAt: HOUR_LATER });
      await invite(short);
      const afterExpiry = invitationOf(acme.id, 'erin', { createdAt: at(2 * HOUR), expiresAt: at(3 * HOUR) });
      await invite(afterExpiry);
      assert.deepEqual(await reads().listInvitations(acme.id, at(2 * HOUR)), [renewed, afterExpiry]);
      assert.equal(await reads().countPendingInvitations(acme.id, at(2 * HOUR)), 2);
    });

    it('consumes an invitation once; an expired one is consumed into nothing', async () => {
      const acme = await created();
      const pending = invitationOf(acme.id, 'dave');
      const expired = invitationOf(acme.id, 'erin', { expiresAt: HOUR_LATER });
      await invite(pending);
      await invite(expired);
      assert.deepEqual(await consume(pending.tokenHash), pending);
      assert.equal(await consume(pending.tokenHash), null, 'single use');
      assert.equal(await reads().findInvitation(acme.id, pending.id, new Date(T0)), null);

      assert.equal(await consume(expired.tokenHash, HOUR_LATER), null, 'expiry is exclusive');
      assert.equal(await reads().findInvitation(acme.id, expired.id, new Date(T0)), null, 'deleted as well');
      assert.equal(await consume('invitation-unknown'), null);
      assert.equal(await reads().countPendingInvitations(acme.id, new Date(T0)), 0);
    });

    it('renews a pending invitation with a new token and expiry; the old token stops working', async () => {
      const acme = await created();
      const other = await created();
      const invitation = invitationOf(acme.id, 'dave');
      await invite(invitation);
      const renewal = { tokenHash: `renewed-${randomUUID()}`, createdAt: HOUR_LATER, expiresAt: at(30 * HOUR) };
      const renewed = { ...invitation, ...renewal };
      const now = HOUR_LATER;
      assert.equal(await write((tx) => tx.renewInvitation(other.id, invitation.id, renewal, now)), null);
      assert.deepEqual(await write((tx) => tx.renewInvitation(acme.id, invitation.id, renewal, now)), renewed);
      assert.equal(await reads().findInvitationByToken(invitation.tokenHash, now), null);
      assert.deepEqual(await reads().findInvitationByToken(renewal.tokenHash, now), renewed);
      assert.deepEqual(await reads().findInvitation(acme.id, invitation.id, now), renewed);

      const expired = invitationOf(acme.id, 'erin', { expiresAt: HOUR_LATER });
      await invite(expired);
      const late = { tokenHash: `late-${randomUUID()}`, createdAt: now, expiresAt: at(30 * HOUR) };
      assert.equal(await write((tx) => tx.renewInvitation(acme.id, expired.id, late, now)), null, 'expired');
      assert.equal(await write((tx) => tx.renewInvitation(acme.id, randomUUID(), late, now)), null);
    });

    it('deletes (cancels) an invitation of its own organization only, and answers the deleted row', async () => {
      const acme = await created();
      const other = await created();
      const invitation = invitationOf(acme.id, 'dave');
      await invite(invitation);
      assert.equal(await write((tx) => tx.deleteInvitation(other.id, invitation.id)), null);
      assert.deepEqual(await reads().findInvitation(acme.id, invitation.id, new Date(T0)), invitation);
      assert.deepEqual(await write((tx) => tx.deleteInvitation(acme.id, invitation.id)), invitation);
      assert.equal(await write((tx) => tx.deleteInvitation(acme.id, invitation.id)), null);
      assert.equal(await consume(invitation.tokenHash), null);
    });

    it('deletes an organization with its memberships and invitations, and nothing of another', async () => {
      const [alice, bob] = [await userId('alice'), await userId('bob')];
      const acme = await created({}, alice);
      const other = await created({}, alice);
      await join(acme.id, bob, 'member');
      await join(other.id, bob, 'member');
      const invitation = invitationOf(acme.id, 'dave');
      const kept = invitationOf(other.id, 'dave');
      await invite(invitation);
      await invite(kept);

      assert.equal(await write((tx) => tx.delete(acme.id)), true);
      assert.equal(await write((tx) => tx.delete(acme.id)), false);
      assert.equal(await reads().find(acme.id), null);
      assert.equal(await reads().membership(acme.id, bob), null);
      assert.equal(await reads().countMembers(acme.id), 0);
      assert.equal(await reads().findInvitationByToken(invitation.tokenHash, new Date(T0)), null);
      assert.deepEqual(
        (await reads().listForUser(bob)).map((entry) => entry.organization.id),
        [other.id],
      );
      assert.equal(await reads().countForUser(alice), 1);
      assert.deepEqual(await reads().listInvitations(other.id, new Date(T0)), [kept]);
      // Its id names nothing any more: a new membership of it is refused.
      assert.equal(await join(acme.id, bob, 'member'), 'gone');
    });

    it("a user's memberships go with the user; what it created and whom it invited stay, without its name", async () => {
      const [alice, bob] = [await userId('alice'), await userId('bob')];
      const acme = await created({}, alice);
      await join(acme.id, bob, 'owner', HOUR_LATER);
      const invitation = invitationOf(acme.id, 'dave', { invitedBy: alice });
      await invite(invitation);
      const other = await created({}, alice);

      assert.equal((await suite.deleteUser(alice)).outcome, 'deleted');
      assert.deepEqual(await reads().find(acme.id), { ...acme, createdBy: null });
      assert.equal((await reads().find(other.id))?.createdBy, null);
      assert.equal(await reads().membership(acme.id, alice), null);
      assert.equal(await reads().countMembers(acme.id), 1);
      assert.equal(await reads().countMembers(other.id), 0);
      assert.equal(await reads().countForUser(alice), 0);
      assert.deepEqual(
        (await reads().listMembers(acme.id)).map((member) => member.userId),
        [bob],
      );
      assert.deepEqual(await reads().listInvitations(acme.id, new Date(T0)), [{ ...invitation, invitedBy: null }]);
      assert.equal(await write((tx) => tx.lockUser(alice)), false);
      assert.equal(await join(acme.id, alice, 'member'), 'gone');
    });

    it('an unconfirmed registration that expires takes its memberships with it', async () => {
      const [alice, bob] = [await userId('alice'), await userId('bob')];
      const acme = await created({}, alice);
      await join(acme.id, bob, 'member');
      await suite.store.deleteExpired({
        now: new Date(T0),
        sessionIdleBefore: new Date(0),
        unverifiedCreatedBefore: new Date(T0),
      });
      assert.equal(await reads().countMembers(acme.id), 0);
      assert.equal((await reads().find(acme.id))?.createdBy, null);
    });

    it('deleteExpired removes the expired invitations and keeps the pending ones', async () => {
      const acme = await created();
      const pending = invitationOf(acme.id, 'dave', { expiresAt: at(2 * HOUR) });
      const expired = invitationOf(acme.id, 'erin', { expiresAt: HOUR_LATER });
      const atNow = invitationOf(acme.id, 'frank', { expiresAt: at(90 * MINUTE) });
      for (const invitation of [pending, expired, atNow]) await invite(invitation);
      const deleted = await suite.store.deleteExpired({ now: at(90 * MINUTE), sessionIdleBefore: new Date(0) });
      assert.equal(deleted, 2);
      assert.deepEqual(await reads().listInvitations(acme.id, new Date(T0)), [pending]);
    });

    it('hands out copies: changing a returned row changes nothing stored', async () => {
      const alice = await userId('alice');
      const acme = await created({}, alice);
      const invitation = invitationOf(acme.id, 'dave');
      await invite(invitation);
      invitation.role = 'owner';
      const found = await reads().find(acme.id);
      assert.ok(found);
      found.name = 'Changed';
      found.createdAt.setTime(0);
      const membership = await reads().membership(acme.id, alice);
      assert.ok(membership);
      membership.role = 'member';
      const [listed] = await reads().listInvitations(acme.id, new Date(T0));
      listed.expiresAt.setTime(0);
      assert.equal((await reads().find(acme.id))?.name, 'Acme');
      assert.deepEqual((await reads().find(acme.id))?.createdAt, new Date(T0));
      assert.equal((await reads().membership(acme.id, alice))?.role, 'owner');
      const [again] = await reads().listInvitations(acme.id, new Date(T0));
      assert.equal(again.role, 'member');
      assert.deepEqual(again.expiresAt, new Date(DAY_LATER));
    });

    it("the session check answers the user's role in the organization in the same read, uncached", async () => {
      const [alice, bob] = [await userId('alice'), await userId('bob')];
      const acme = await created({}, alice);
      const other = await created({}, bob);
      const session = await sessionFor(bob, 'bob');
      const check = (organizationId: string) =>
        suite.store.sessions.check(session.tokenHash, { kind: 'membership', organizationId });

      const outside = await check(acme.id);
      assert.ok(outside);
      assert.equal(outside.user.id, bob);
      assert.equal(outside.membership, null);
      assert.equal(outside.access, undefined);
      assert.equal((await check(other.id))?.membership, 'owner');
      assert.equal((await check(randomUUID()))?.membership, null, 'no such organization');
      assert.equal(
        await suite.store.sessions.check('session-unknown', { kind: 'membership', organizationId: acme.id }),
        null,
      );
      const plain = await suite.store.sessions.check(session.tokenHash);
      assert.ok(plain);
      assert.equal('membership' in plain, false);

      await join(acme.id, bob, 'member');
      assert.equal((await check(acme.id))?.membership, 'member');
      await write((tx) => tx.setRole(acme.id, bob, 'admin', HOUR_LATER));
      assert.equal((await check(acme.id))?.membership, 'admin', 'a change applies at the next check');
      await write((tx) => tx.removeMember(acme.id, bob));
      assert.equal((await check(acme.id))?.membership, null, 'a removal too');
      // The global access checks are unchanged beside it.
      const role = await suite.store.sessions.check(session.tokenHash, { kind: 'role', name: 'no-such-role' });
      assert.equal(role?.access, 'unknown');
      assert.equal(role?.membership, undefined);
    });

    describe('races', () => {
      const RACERS = 8;

      it(`${RACERS} concurrent consumes of one invitation: exactly one gets it`, async () => {
        const acme = await created();
        const invitation = invitationOf(acme.id, 'dave');
        await invite(invitation);
        const settled = await Promise.allSettled(Array.from({ length: RACERS }, () => consume(invitation.tokenHash)));
        const results = fulfilled(settled);
        assert.equal(results.length, RACERS, 'none throws');
        assert.deepEqual(
          results.filter((result) => result !== null),
          [invitation],
        );
      });

      it('two accepts of one invitation, each consuming then joining under the locks: one membership', async () => {
        const [alice, bob] = [await userId('alice'), await userId('bob')];
        const acme = await created({}, alice);
        const invitation = invitationOf(acme.id, 'bob');
        await invite(invitation);
        const accept = () =>
          write(async (tx) => {
            await tx.lockUser(bob);
            if (!(await tx.lock(acme.id))) return 'gone';
            const consumed = await tx.consumeInvitation(invitation.tokenHash, new Date(T0));
            if (!consumed) return 'invalid';
            return tx.addMember(membershipOf(acme.id, bob, consumed.role));
          });
        const results = fulfilled(await Promise.allSettled([accept(), accept(), accept()]));
        assert.deepEqual([...results].sort(), ['added', 'invalid', 'invalid']);
        assert.equal(await reads().countMembers(acme.id), 2);
      });

      it('the last two owners removing each other at once: exactly one removal happens', async () => {
        for (let round = 0; round < 3; round++) {
          const [alice, bob] = [await userId(`alice${round}`), await userId(`bob${round}`)];
          const acme = await created({}, alice);
          assert.equal(await join(acme.id, bob, 'owner'), 'added');
          const remove = (actor: string, target: string) =>
            write(async (tx) => {
              await tx.lockUser(actor);
              if (!(await tx.lock(acme.id))) return 'gone';
              if (!(await tx.membership(acme.id, actor))) return 'not_member';
              if ((await tx.countMembersWithRole(acme.id, 'owner')) <= 1) return 'last_owner';
              return (await tx.removeMember(acme.id, target)) ? 'removed' : 'not_member';
            });
          const results = fulfilled(await Promise.allSettled([remove(alice, bob), remove(bob, alice)]));
          assert.equal(results.length, 2, 'none throws');
          assert.equal(results.filter((result) => result === 'removed').length, 1, JSON.stringify(results));
          assert.equal(await reads().countMembersWithRole(acme.id, 'owner'), 1);
          assert.equal(await reads().countMembers(acme.id), 1);
        }
      });

      it(`${RACERS} joins racing for the last seat under the lock: exactly one gets it`, async () => {
        const MAX_MEMBERS = 2;
        const owner = await userId('owner');
        const acme = await created({}, owner);
        const joiners: string[] = [];
        for (let i = 0; i < RACERS; i++) joiners.push(await userId(`joiner${i}`));
        const joinIfRoom = (user: string) =>
          write(async (tx) => {
            if (!(await tx.lockUser(user))) return 'gone';
            if (!(await tx.lock(acme.id))) return 'gone';
            const seats = (await tx.countMembers(acme.id)) + (await tx.countPendingInvitations(acme.id, new Date(T0)));
            if (seats >= MAX_MEMBERS) return 'full';
            return tx.addMember(membershipOf(acme.id, user, 'member'));
          });
        const results = fulfilled(await Promise.allSettled(joiners.map(joinIfRoom)));
        assert.equal(results.length, RACERS, 'none throws');
        assert.equal(results.filter((result) => result === 'added').length, 1, JSON.stringify(results));
        assert.equal(await reads().countMembers(acme.id), MAX_MEMBERS);
      });

      it('membership checks racing role changes answer the old or the new role, never an error', async () => {
        const [alice, bob] = [await userId('alice'), await userId('bob')];
        const acme = await created({}, alice);
        await join(acme.id, bob, 'member');
        const session = await sessionFor(bob, 'bob');
        let changing = true;
        const answers = new Set<string | null | undefined>();
        const checks = (async () => {
          let count = 0;
          while (changing || count < 20) {
            const check = await suite.store.sessions.check(session.tokenHash, {
              kind: 'membership',
              organizationId: acme.id,
            });
            assert.ok(check, 'the session is always found');
            answers.add(check.membership);
            count++;
            // Lets the writers run between reads on a store that answers synchronously.
            await new Promise((resolve) => setImmediate(resolve));
          }
          return count;
        })();
        const changes = (async () => {
          try {
            for (let i = 0; i < 10; i++) {
              const role = i % 2 === 0 ? 'admin' : 'member';
              const changed = await write(async (tx) => {
                await tx.lock(acme.id);
                return tx.setRole(acme.id, bob, role, at(i * MINUTE));
              });
              assert.equal(changed, true);
            }
          } finally {
            changing = false;
          }
        })();
        await Promise.all([checks, changes]);
        for (const answer of answers) assert.ok(answer === 'admin' || answer === 'member', String(answer));
        assert.equal((await reads().membership(acme.id, bob))?.role, 'member');
      });
    });
  });
}
