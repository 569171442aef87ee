import { expect } from 'chai';
import { bearer, DRIVERS, PREFIX, type TestApp } from '../support/test-app';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';
import { buildOrgApp, createOrg, expectError, invite, joinedMember, NOBODY, org } from './http-support';

const STORES = TEST_STORES;

for (const kind of STORES)
  for (const driver of DRIVERS)
    describe(`Organizations over HTTP: the organization and member routes (${kind.name}, ${driver})`, function () {
      this.timeout(60_000);
      let t: TestApp;
      freshStoreEachTest(kind, async (store) => {
        t = buildOrgApp({ driver, store });
        return () => t.accounts.drain();
      });

      it('creates, lists, reads, renames and deletes an organization; the creator is its owner', async () => {
        const alice = await t.loginNewUser('alice');
        const created = await t.http.post(org()).set(bearer(alice)).send({ name: '  Acme  ' });
        expect(created.status, created.text).to.equal(201);
        expect(created.body).to.include({ name: 'Acme', role: 'owner' });
        expect(created.body.permissions).to.include.members([
          'gatehouse.members.manage',
          'gatehouse.organization.delete',
        ]);
        const id = created.body.id as string;
        const listed = await t.http.get(org()).set(bearer(alice)).expect(200);
        expect(listed.body.organizations.map((o: { id: string }) => o.id)).to.deep.equal([id]);
        const read = await t.http
          .get(org(`/${id}`))
          .set(bearer(alice))
          .expect(200);
        expect(read.body).to.include({ id, name: 'Acme', role: 'owner' });
        const renamed = await t.http
          .patch(org(`/${id}`))
          .set(bearer(alice))
          .send({ name: 'Acme Corp' })
          .expect(200);
        expect(renamed.body.name).to.equal('Acme Corp');
        const members = await t.http
          .get(org(`/${id}/members`))
          .set(bearer(alice))
          .expect(200);
        expect(members.body.members).to.have.length(1);
        expect(members.body.members[0]).to.include({ username: 'alice', role: 'owner', email: 'alice@example.com' });
        await t.http
          .delete(org(`/${id}`))
          .set(bearer(alice))
          .expect(204);
        expectError(await t.http.get(org(`/${id}`)).set(bearer(alice)), 404, 'organization_not_found');
        expect((await t.http.get(org()).set(bearer(alice)).expect(200)).body.organizations).to.deep.equal([]);
      });

      it('answers 401 before anything else, whatever the path holds', async () => {
        for (const id of [NOBODY, 'not-a-uuid', '%00']) {
          const none = await t.http.get(org(`/${id}`));
          expect(none.status, none.text).to.equal(401);
          const dead = await t.http.get(org(`/${id}/members`)).set(bearer('x'.repeat(43)));
          expectError(dead, 401, 'invalid_session_token');
        }
        expect((await t.http.post(`${PREFIX}/invitations/accept`).send({ token: 'abc' })).status).to.equal(401);
      });

      it('answers unknown, malformed and others’ organization ids with one identical 404 on every route', async () => {
        const alice = await t.loginNewUser('alice');
        const mallory = await t.loginNewUser('mallory');
        const foreign = await createOrg(t, alice, 'Alice Inc');
        await createOrg(t, mallory, 'Mallory Ltd');
        const routes = (id: string) => [
          () => t.http.get(org(`/${id}`)),
          () => t.http.patch(org(`/${id}`)).send({ name: 'Mine now' }),
          () => t.http.delete(org(`/${id}`)),
          () => t.http.get(org(`/${id}/members`)),
          () => t.http.patch(org(`/${id}/members/${NOBODY}`)).send({ role: 'admin' }),
          () => t.http.delete(org(`/${id}/members/${NOBODY}`)),
          () => t.http.post(org(`/${id}/leave`)).send({}),
          () => t.http.post(org(`/${id}/transfer`)).send({ user_id: NOBODY }),
          () => t.http.post(org(`/${id}/invitations`)).send({ email: 'x@example.com', role: 'member' }),
          () => t.http.get(org(`/${id}/invitations`)),
          () => t.http.post(org(`/${id}/invitations/${NOBODY}/resend`)).send({}),
          () => t.http.delete(org(`/${id}/invitations/${NOBODY}`)),
        ];
        let reference: unknown;
        for (const id of [foreign, NOBODY, 'not-a-uuid', foreign.toUpperCase().slice(0, 35), `${foreign}x`]) {
          for (const send of routes(id)) {
            const response = await send().set(bearer(mallory));
            expectError(response, 404, 'organization_not_found');
            reference ??= response.body;
            expect(response.body, `${id} ${response.text}`).to.deep.equal(reference);
          }
        }
        // Nothing of Alice's changed.
        const read = await t.http
          .get(org(`/${foreign}`))
          .set(bearer(alice))
          .expect(200);
        expect(read.body.name).to.equal('Alice Inc');
      });

      it('holds members to their role: 403 permission_denied, and addresses only for managers', async () => {
        const alice = await t.loginNewUser('alice');
        const id = await createOrg(t, alice);
        const bob = await joinedMember(t, alice, id, 'bob', 'member');
        const roster = await t.http
          .get(org(`/${id}/members`))
          .set(bearer(bob.token))
          .expect(200);
        expect(roster.body.members).to.have.length(2);
        for (const member of roster.body.members) expect(member).to.not.have.property('email');
        const refusals = [
          () => t.http.patch(org(`/${id}`)).send({ name: 'Bob’s' }),
          () => t.http.delete(org(`/${id}`)),
          () => t.http.get(org(`/${id}/invitations`)),
          () => t.http.post(org(`/${id}/invitations`)).send({ email: 'carol@example.com', role: 'member' }),
          () => t.http.patch(org(`/${id}/members/${bob.id}`)).send({ role: 'admin' }),
        ];
        for (const send of refusals) {
          const response = await send().set(bearer(bob.token));
          expect(response.status, response.text).to.equal(403);
          expect(response.body.detail.code).to.be.oneOf(['permission_denied', 'role_not_assignable']);
        }
      });

      it('changes a role, refuses escalation and the last owner’s demotion, removes and lets members leave', async () => {
        const alice = await t.loginNewUser('alice');
        const id = await createOrg(t, alice);
        const aliceId = await t.accounts.admin.userIdOf('alice');
        const bob = await joinedMember(t, alice, id, 'bob', 'admin');
        const carol = await joinedMember(t, alice, id, 'carol', 'member');
        // An admin may not make an owner, nor touch one.
        expectError(
          await t.http
            .patch(org(`/${id}/members/${carol.id}`))
            .set(bearer(bob.token))
            .send({ role: 'owner' }),
          403,
          'role_not_assignable',
        );
        expectError(
          await t.http.delete(org(`/${id}/members/${aliceId}`)).set(bearer(bob.token)),
          403,
          'role_not_assignable',
        );
        // The last owner stays.
        expectError(
          await t.http
            .patch(org(`/${id}/members/${aliceId}`))
            .set(bearer(alice))
            .send({ role: 'member' }),
          403,
          'role_not_assignable',
        );
        expectError(
          await t.http
            .post(org(`/${id}/leave`))
            .set(bearer(alice))
            .send({}),
          409,
          'last_owner',
        );
        // A role outside the template.
        expectError(
          await t.http
            .patch(org(`/${id}/members/${carol.id}`))
            .set(bearer(alice))
            .send({ role: 'wizard' }),
          400,
          'account_error',
        );
        const changed = await t.http
          .patch(org(`/${id}/members/${carol.id}`))
          .set(bearer(bob.token))
          .send({ role: 'admin' })
          .expect(200);
        expect(changed.body).to.include({ user_id: carol.id, username: 'carol', role: 'admin' });
        // Foreign and malformed member ids are one 404.
        const dave = await t.loginNewUser('dave');
        const daveId = await t.accounts.admin.userIdOf('dave');
        const first = await t.http.delete(org(`/${id}/members/${daveId}`)).set(bearer(alice));
        expectError(first, 404, 'member_not_found');
        for (const other of [NOBODY, 'nope']) {
          const response = await t.http.delete(org(`/${id}/members/${other}`)).set(bearer(alice));
          expect(response.status).to.equal(404);
          expect(response.body).to.deep.equal(first.body);
        }
        expect(dave).to.be.a('string');
        await t.http
          .delete(org(`/${id}/members/${carol.id}`))
          .set(bearer(bob.token))
          .expect(204);
        expectError(await t.http.get(org(`/${id}`)).set(bearer(carol.token)), 404, 'organization_not_found');
        await t.http
          .post(org(`/${id}/leave`))
          .set(bearer(bob.token))
          .send({})
          .expect(204);
        expectError(await t.http.get(org(`/${id}`)).set(bearer(bob.token)), 404, 'organization_not_found');
      });

      it('applies a demotion and a deletion on the very next request', async () => {
        const alice = await t.loginNewUser('alice');
        const id = await createOrg(t, alice);
        const bob = await joinedMember(t, alice, id, 'bob', 'admin');
        await t.http
          .get(org(`/${id}/invitations`))
          .set(bearer(bob.token))
          .expect(200);
        const read = await t.http
          .get(org(`/${id}`))
          .set(bearer(bob.token))
          .expect(200);
        expect(read.body).to.include({ role: 'admin', member_count: 2 });
        await t.http
          .patch(org(`/${id}/members/${bob.id}`))
          .set(bearer(alice))
          .send({ role: 'member' })
          .expect(200);
        expectError(await t.http.get(org(`/${id}/invitations`)).set(bearer(bob.token)), 403, 'permission_denied');
        await t.http
          .delete(org(`/${id}`))
          .set(bearer(alice))
          .expect(204);
        expectError(await t.http.get(org(`/${id}/members`)).set(bearer(bob.token)), 404, 'organization_not_found');
        await t.accounts.drain();
        expect(t.sender.of('organizationDeleted' as never, 'bob@example.com')).to.have.length(1);
        expect(t.sender.of('organizationDeleted' as never, 'alice@example.com')).to.have.length(0);
      });

      it('transfers ownership to a member; not to a stranger', async () => {
        const alice = await t.loginNewUser('alice');
        const id = await createOrg(t, alice);
        const bob = await joinedMember(t, alice, id, 'bob');
        expectError(
          await t.http
            .post(org(`/${id}/transfer`))
            .set(bearer(alice))
            .send({ user_id: NOBODY }),
          404,
          'member_not_found',
        );
        expectError(
          await t.http
            .post(org(`/${id}/transfer`))
            .set(bearer(bob.token))
            .send({ user_id: bob.id }),
          403,
          'permission_denied',
        );
        await t.http
          .post(org(`/${id}/transfer`))
          .set(bearer(alice))
          .send({ user_id: bob.id })
          .expect(204);
        expect(
          (
            await t.http
              .get(org(`/${id}`))
              .set(bearer(bob.token))
              .expect(200)
          ).body.role,
        ).to.equal('owner');
        expect(
          (
            await t.http
              .get(org(`/${id}`))
              .set(bearer(alice))
              .expect(200)
          ).body.role,
        ).to.equal('admin');
      });

      it('answers malformed bodies with a clear 400 validation_error, and changes nothing', async () => {
        const alice = await t.loginNewUser('alice');
        const id = await createOrg(t, alice);
        const bad: [string, string, unknown][] = [
          ['post', org(), {}],
          ['post', org(), { name: '' }],
          ['post', org(), { name: '   ' }],
          ['post', org(), { name: 'x'.repeat(101) }],
          ['post', org(), { name: 'bell\u0007' }],
          ['post', org(), { name: 42 }],
          ['post', org(), []],
          ['patch', org(`/${id}`), { name: null }],
          ['patch', org(`/${id}/members/${NOBODY}`), { role: 'Not A Role!' }],
          ['post', org(`/${id}/transfer`), { user_id: 'bob' }],
          ['post', org(`/${id}/invitations`), { email: 'a@example.com' }],
          ['post', org(`/${id}/invitations`), { email: ['a@example.com'], role: 'member' }],
          ['post', `${PREFIX}/invitations/preview`, {}],
          ['post', `${PREFIX}/invitations/accept`, { token: 7 }],
        ];
        for (const [method, path, body] of bad) {
          const response = await (t.http as unknown as Record<string, (p: string) => import('supertest').Test>)
            [method](path)
            .set(bearer(alice))
            .send(body as object);
          expect(response.status, `${method} ${path} ${JSON.stringify(body)}: ${response.text}`).to.equal(400);
          expect(response.body.detail.code).to.equal('validation_error');
          expect(response.body.detail.errors).to.be.an('array').that.is.not.empty;
        }
        const listed = await t.http.get(org()).set(bearer(alice)).expect(200);
        expect(listed.body.organizations.map((o: { name: string }) => o.name)).to.deep.equal(['Acme']);
      });

      it('refuses creation to an unverified account... and when organizations are off, every route is 404', async () => {
        const off = buildOrgApp({ driver, organizations: false });
        const alice = await off.loginNewUser('alice');
        expectError(
          await off.http.post(org()).set(bearer(alice)).send({ name: 'Acme' }),
          404,
          'organization_not_found',
        );
        expectError(await off.http.get(org()).set(bearer(alice)), 404, 'organization_not_found');
        expectError(await off.http.get(org(`/${NOBODY}`)).set(bearer(alice)), 404, 'organization_not_found');
        expectError(
          await off.http.post(`${PREFIX}/invitations/preview`).send({ token: 'x'.repeat(43) }),
          404,
          'organization_not_found',
        );
        await off.accounts.drain();
      });

      it('leaves creation to administrators when configured so', async () => {
        const admins = buildOrgApp({ driver, organizations: { creation: 'administrators' } });
        const alice = await admins.loginNewUser('alice');
        expectError(await admins.http.post(org()).set(bearer(alice)).send({ name: 'Acme' }), 403, 'permission_denied');
        const root = await admins.loginNewUser('root');
        await admins.accounts.admin.makeAdministrator('root');
        await admins.http.post(org()).set(bearer(root)).send({ name: 'Acme' }).expect(201);
        await admins.accounts.drain();
      });

      it('stops at the organizations-per-user limit with 409 organization_limit_reached', async () => {
        const limited = buildOrgApp({ driver, store: undefined, organizations: { maxOrganizationsPerUser: 2 } });
        const alice = await limited.loginNewUser('alice');
        await createOrg(limited, alice, 'One');
        await createOrg(limited, alice, 'Two');
        expectError(
          await limited.http.post(org()).set(bearer(alice)).send({ name: 'Three' }),
          409,
          'organization_limit_reached',
        );
        await limited.accounts.drain();
      });

      it('invites with a role, lists, resends and cancels; old and cancelled tokens stop working', async () => {
        const alice = await t.loginNewUser('alice');
        const id = await createOrg(t, alice);
        const first = await invite(t, alice, id, 'bob@example.com', 'admin');
        const listed = await t.http
          .get(org(`/${id}/invitations`))
          .set(bearer(alice))
          .expect(200);
        expect(listed.body.invitations).to.have.length(1);
        expect(listed.body.invitations[0]).to.include({
          id: first.id,
          email: 'bob@example.com',
          role: 'admin',
          invited_by: 'alice',
        });
        expect(JSON.stringify(listed.body)).to.not.include(first.token);
        const preview = await t.http.post(`${PREFIX}/invitations/preview`).send({ token: first.token }).expect(200);
        expect(preview.body).to.deep.include({
          organization: { id, name: 'Acme' },
          role: 'admin',
          invited_by: 'alice',
        });
        expect(JSON.stringify(preview.body)).to.not.include('bob@example.com');
        const resent = await t.http
          .post(org(`/${id}/invitations/${first.id}/resend`))
          .set(bearer(alice))
          .send({})
          .expect(200);
        expect(resent.body.id).to.equal(first.id);
        await t.accounts.drain();
        const second = t.sender.of('organizationInvitation' as never, 'bob@example.com').at(-1)!.token!;
        expect(second).to.not.equal(first.token);
        expectError(
          await t.http.post(`${PREFIX}/invitations/preview`).send({ token: first.token }),
          400,
          'invalid_invitation_token',
        );
        await t.http.post(`${PREFIX}/invitations/preview`).send({ token: second }).expect(200);
        // Another organization's invitation id, and one of nothing: one 404.
        const other = await createOrg(t, alice, 'Other');
        const foreign = await t.http.delete(org(`/${other}/invitations/${first.id}`)).set(bearer(alice));
        expectError(foreign, 404, 'invitation_not_found');
        for (const wrong of [NOBODY, 'zzz']) {
          const response = await t.http
            .post(org(`/${id}/invitations/${wrong}/resend`))
            .set(bearer(alice))
            .send({});
          expect(response.status).to.equal(404);
          expect(response.body).to.deep.equal(foreign.body);
        }
        await t.http
          .delete(org(`/${id}/invitations/${first.id}`))
          .set(bearer(alice))
          .expect(204);
        expectError(
          await t.http.post(`${PREFIX}/invitations/preview`).send({ token: second }),
          400,
          'invalid_invitation_token',
        );
        expect(
          (
            await t.http
              .get(org(`/${id}/invitations`))
              .set(bearer(alice))
              .expect(200)
          ).body.invitations,
        ).to.deep.equal([]);
      });

      it('lets only the verified owner of the address accept; once; declining ends it too', async () => {
        const alice = await t.loginNewUser('alice');
        const id = await createOrg(t, alice);
        const mallory = await t.loginNewUser('mallory');
        const bob = await t.loginNewUser('bob');
        const invitation = await invite(t, alice, id, 'bob@example.com');
        expectError(
          await t.http.post(`${PREFIX}/invitations/accept`).set(bearer(mallory)).send({ token: invitation.token }),
          403,
          'invitation_address_mismatch',
        );
        expectError(
          await t.http.post(`${PREFIX}/invitations/decline`).set(bearer(mallory)).send({ token: invitation.token }),
          403,
          'invitation_address_mismatch',
        );
        const accepted = await t.http
          .post(`${PREFIX}/invitations/accept`)
          .set(bearer(bob))
          .send({ token: invitation.token });
        expect(accepted.status, accepted.text).to.equal(200);
        expect(accepted.body).to.include({ id, name: 'Acme', role: 'member' });
        expectError(
          await t.http.post(`${PREFIX}/invitations/accept`).set(bearer(bob)).send({ token: invitation.token }),
          400,
          'invalid_invitation_token',
        );
        expectError(
          await t.http
            .post(org(`/${id}/invitations`))
            .set(bearer(alice))
            .send({ email: 'BOB@example.com', role: 'member' }),
          409,
          'already_member',
        );
        const carol = await t.loginNewUser('carol');
        const declined = await invite(t, alice, id, 'carol@example.com');
        await t.http
          .post(`${PREFIX}/invitations/decline`)
          .set(bearer(carol))
          .send({ token: declined.token })
          .expect(204);
        expectError(
          await t.http.post(`${PREFIX}/invitations/accept`).set(bearer(carol)).send({ token: declined.token }),
          400,
          'invalid_invitation_token',
        );
        const roster = await t.http
          .get(org(`/${id}/members`))
          .set(bearer(alice))
          .expect(200);
        expect(roster.body.members.map((m: { username: string }) => m.username).sort()).to.deep.equal(['alice', 'bob']);
      });

      it('accepts one of two concurrent accepts of one invitation: one membership', async () => {
        const alice = await t.loginNewUser('alice');
        const id = await createOrg(t, alice);
        const bob = await t.loginNewUser('bob');
        const invitation = await invite(t, alice, id, 'bob@example.com');
        const answers = await Promise.all(
          [1, 2, 3].map(() =>
            t.http.post(`${PREFIX}/invitations/accept`).set(bearer(bob)).send({ token: invitation.token }),
          ),
        );
        expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 400, 400]);
        const roster = await t.http
          .get(org(`/${id}/members`))
          .set(bearer(alice))
          .expect(200);
        expect(roster.body.members).to.have.length(2);
      });

      it('stops at the invitation and member limits with their 409s', async () => {
        const limited = buildOrgApp({ driver, organizations: { maxPendingInvitations: 2, maxMembers: 3 } });
        const alice = await limited.loginNewUser('alice');
        const id = await createOrg(limited, alice);
        await invite(limited, alice, id, 'a@example.com');
        await invite(limited, alice, id, 'b@example.com');
        expectError(
          await limited.http
            .post(org(`/${id}/invitations`))
            .set(bearer(alice))
            .send({ email: 'c@example.com', role: 'member' }),
          409,
          'invitation_limit_reached',
        );
        const fourth = buildOrgApp({ driver, organizations: { maxPendingInvitations: 5, maxMembers: 2 } });
        const owner = await fourth.loginNewUser('owner');
        const other = await createOrg(fourth, owner);
        await invite(fourth, owner, other, 'a@example.com');
        expectError(
          await fourth.http
            .post(org(`/${other}/invitations`))
            .set(bearer(owner))
            .send({ email: 'b@example.com', role: 'member' }),
          409,
          'member_limit_reached',
        );
        await limited.accounts.drain();
        await fourth.accounts.drain();
      });
    });
