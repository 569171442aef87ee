import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Container } from 'typedi';
import { EMAIL_SENDER } from '../../src/di/tokens';
import { resolveAccountService } from '../../src/di/resolve';
import { EmailLinks } from '../../src/email/email-links';
import { SmtpEmailSender } from '../../src/email/smtp-email-sender';
import { ConfigurationError } from '../../src/errors/configuration-error';
import { accountOptionsOf, loadConfig } from '../../src/server/config';
import { invitationTtlMsOf } from '../../src/server/build-sender';
import { resolveOrganizationSettings } from '../../src/services/organizations/organization-options';
import { parseMail, startSmtpServer } from '../email/smtp-test-server';
import { expectRateLimited } from '../limits/expect-rate-limited';
import { bearer, DRIVERS, PREFIX, type TestApp } from '../support/test-app';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';
import { buildOrgApp, createOrg, expectError, invite, joinedMember, NOBODY, org } from './http-support';

const STORES = TEST_STORES;

for (const kind of STORES)
  for (const driver of DRIVERS)
    describe(`Organizations over HTTP: administration, mail and limits (${kind.name}, ${driver})`, function () {
      this.timeout(60_000);
      let t: TestApp;
      freshStoreEachTest(kind, async (store) => {
        t = buildOrgApp({ driver, store });
        return () => t.accounts.drain();
      });

      it('lets administrators list and read organizations, a user’s organizations, and name an owner', async () => {
        const alice = await t.loginNewUser('alice');
        const id = await createOrg(t, alice);
        const bob = await joinedMember(t, alice, id, 'bob');
        await invite(t, alice, id, 'carol@example.com', 'admin');
        const root = await t.loginNewUser('root');
        // Not an administrator yet: 403 on every admin route.
        expectError(await t.http.get(`${PREFIX}/admin/organizations`).set(bearer(root)), 403, 'permission_denied');
        await t.accounts.admin.makeAdministrator('root');
        const page = await t.http.get(`${PREFIX}/admin/organizations?limit=10`).set(bearer(root)).expect(200);
        expect(page.body.organizations.map((o: { id: string }) => o.id)).to.deep.equal([id]);
        expect(page.body.organizations[0]).to.include({ name: 'Acme', member_count: 2 });
        expect(page.body.next_cursor).to.equal(null);
        const read = await t.http.get(`${PREFIX}/admin/organizations/${id}`).set(bearer(root)).expect(200);
        expect(read.body.members.map((m: { email: string }) => m.email).sort()).to.deep.equal([
          'alice@example.com',
          'bob@example.com',
        ]);
        expect(read.body.invitations).to.have.length(1);
        expect(read.body.invitations[0]).to.include({ email: 'carol@example.com', role: 'admin' });
        const mine = await t.http.get(`${PREFIX}/admin/users/${bob.id}/organizations`).set(bearer(root)).expect(200);
        expect(mine.body.organizations).to.have.length(1);
        expect(mine.body.organizations[0]).to.include({ id, role: 'member' });
        // An unknown or malformed organization id: one 404.
        const unknown = await t.http.get(`${PREFIX}/admin/organizations/${NOBODY}`).set(bearer(root));
        expectError(unknown, 404, 'organization_not_found');
        const malformed = await t.http.get(`${PREFIX}/admin/organizations/nope`).set(bearer(root));
        expect(malformed.status).to.equal(404);
        expect(malformed.body.detail.code).to.equal('organization_not_found');
        const owner = await t.http
          .post(`${PREFIX}/admin/organizations/${id}/owner`)
          .set(bearer(root))
          .send({ user_id: bob.id });
        expect(owner.status, owner.text).to.equal(200);
        expect(owner.body.members.find((m: { user_id: string }) => m.user_id === bob.id).role).to.equal('owner');
        expect(
          (
            await t.http
              .get(org(`/${id}`))
              .set(bearer(bob.token))
              .expect(200)
          ).body.role,
        ).to.equal('owner');
        expectError(
          await t.http.post(`${PREFIX}/admin/organizations/${id}/owner`).set(bearer(root)).send({ user_id: 'bob' }),
          400,
          'validation_error',
        );
        expectError(
          await t.http.get(`${PREFIX}/admin/organizations?limit=0`).set(bearer(root)),
          400,
          'validation_error',
        );
        // Reads and the change are audited, never with the invited address.
        const events = await t.http.get(`${PREFIX}/admin/audit-events?limit=100`).set(bearer(root)).expect(200);
        const types = events.body.events.map((e: { type: string }) => e.type);
        expect(types).to.include.members([
          'admin.organizations_listed',
          'admin.organization_read',
          'admin.organization_owner_set',
        ]);
        expect(JSON.stringify(events.body)).to.not.include('carol@example.com');
      });

      it('spends org-invite.user per account and org-accept.ip per address', async () => {
        const limited = buildOrgApp({
          driver,
          rateLimits: {
            limits: { 'org-invite.user': { points: 2, duration: 3600 }, 'org-accept.ip': { points: 3, duration: 60 } },
          },
        });
        const alice = await limited.loginNewUser('alice');
        const id = await createOrg(limited, alice);
        await invite(limited, alice, id, 'a@example.com');
        const second = await invite(limited, alice, id, 'b@example.com');
        expectRateLimited(
          await limited.http
            .post(org(`/${id}/invitations/${second.id}/resend`))
            .set(bearer(alice))
            .send({}),
          3600,
        );
        // Another account of the same address has its own budget.
        const bob = await limited.loginNewUser('bob');
        const other = await createOrg(limited, bob);
        await invite(limited, bob, other, 'c@example.com');
        for (let i = 0; i < 3; i++) await limited.http.post(`${PREFIX}/invitations/preview`).send({ token: `t${i}` });
        expectRateLimited(await limited.http.post(`${PREFIX}/invitations/preview`).send({ token: 'more' }), 60);
        await limited.accounts.drain();
      });
    });

for (const driver of DRIVERS)
  describe(`Organizations over HTTP: an invitation end to end through real SMTP (${driver})`, function () {
    this.timeout(60_000);

    it('mails the link to the invited address; the newcomer registers, verifies and accepts with its token', async () => {
      const smtp = await startSmtpServer();
      let sender: SmtpEmailSender | undefined;
      try {
        const t = buildOrgApp({ driver });
        const alice = await t.loginNewUser('alice');
        const id = await createOrg(t, alice, 'Acme');
        // From here on, mail goes through SMTP as a deployment's does.
        sender = new SmtpEmailSender({
          url: smtp.url,
          from: 'Accounts <accounts@example.com>',
          links: new EmailLinks({ publicUrl: 'https://id.example.com', prefix: PREFIX }),
        });
        Container.set(EMAIL_SENDER, sender);
        const accounts = resolveAccountService();
        const invited = await t.http
          .post(org(`/${id}/invitations`))
          .set(bearer(alice))
          .send({ email: 'newcomer@example.com', role: 'admin' });
        expect(invited.status, invited.text).to.equal(201);
        await accounts.drain();
        expect(smtp.received).to.have.length(1);
        expect(smtp.received[0].rcptTo).to.deep.equal(['newcomer@example.com']);
        const mail = await parseMail(smtp.received[0]);
        const token = /https:\/\/id\.example\.com\/auth\/invitation\?token=([A-Za-z0-9_-]{43})/.exec(
          mail.text ?? '',
        )?.[1];
        expect(token, mail.text).to.be.a('string');
        expect(mail.text).to.not.include('Acme');
        const preview = await t.http.post(`${PREFIX}/invitations/preview`).send({ token }).expect(200);
        expect(preview.body).to.deep.include({ organization: { id, name: 'Acme' }, role: 'admin' });
        // The newcomer registers with the address and verifies it from its mail.
        await t.http
          .post(`${PREFIX}/register`)
          .send({ username: 'newcomer', email: 'newcomer@example.com', password: 'violet staircase 42 umbrella' })
          .expect(201);
        await accounts.drain();
        const verification = await parseMail(smtp.received[1]);
        const verifyToken = /verify-email\?token=([A-Za-z0-9_-]{43})/.exec(verification.text ?? '')?.[1];
        const login = await t.http
          .post(`${PREFIX}/login`)
          .send({ username: 'newcomer', password: 'violet staircase 42 umbrella' });
        // Not verified yet: no session, so nothing to accept with.
        expect(login.status).to.not.equal(200);
        await t.http.post(`${PREFIX}/verify-email`).send({ token: verifyToken }).expect(200);
        const session = await t.http
          .post(`${PREFIX}/login`)
          .send({ username: 'newcomer', password: 'violet staircase 42 umbrella' })
          .expect(200);
        const accepted = await t.http
          .post(`${PREFIX}/invitations/accept`)
          .set(bearer(session.body.access_token))
          .send({ token });
        expect(accepted.status, accepted.text).to.equal(200);
        expect(accepted.body).to.include({ id, role: 'admin' });
        await accounts.drain();
      } finally {
        await sender?.close();
        await smtp.close();
      }
    });
  });

describe('Organizations: the standalone configuration', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-org-config-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));
  const load = (env: Record<string, string>) => loadConfig({ GATEHOUSE_SECRET_KEY: 'k'.repeat(40), ...env }, { cwd });

  it('is on with the defaults when nothing is set', () => {
    const config = load({});
    expect(config.organizations).to.deep.equal({});
    const settings = resolveOrganizationSettings(accountOptionsOf(config).organizations)!;
    expect([...settings.template.roles.keys()]).to.deep.equal(['owner', 'admin', 'member']);
    expect(settings.invitationTtlMs).to.equal(7 * 86_400_000);
  });

  it('reads the roles file, the creation rule, the lifetime and the limits; the sender states the core’s lifetime', () => {
    writeFileSync(
      join(cwd, 'roles.json'),
      JSON.stringify({
        roles: { admin: ['gatehouse.members.manage', 'projects.write'], viewer: ['gatehouse.members.read'] },
      }),
    );
    const config = load({
      GATEHOUSE_ORG_ROLES_FILE: 'roles.json',
      GATEHOUSE_ORG_CREATION: 'administrators',
      GATEHOUSE_ORG_INVITATION_TTL: '2d',
      GATEHOUSE_ORG_MAX_PER_USER: '5',
      GATEHOUSE_ORG_MAX_MEMBERS: '50',
      GATEHOUSE_ORG_MAX_PENDING_INVITATIONS: '10',
    });
    const settings = resolveOrganizationSettings(accountOptionsOf(config).organizations)!;
    expect([...settings.template.roles.keys()]).to.deep.equal(['owner', 'admin', 'viewer']);
    expect(settings.template.roles.get('owner')).to.include('projects.write');
    expect(settings).to.include({
      creation: 'administrators',
      invitationTtlMs: 2 * 86_400_000,
      maxOrganizationsPerUser: 5,
      maxMembers: 50,
      maxPendingInvitations: 10,
    });
    expect(invitationTtlMsOf(config)).to.equal(settings.invitationTtlMs);
  });

  it('is off with GATEHOUSE_ORGANIZATIONS=off, and then refuses a GATEHOUSE_ORG_* as a typo', () => {
    expect(load({ GATEHOUSE_ORGANIZATIONS: 'off' }).organizations).to.equal(false);
    expect(() => load({ GATEHOUSE_ORGANIZATIONS: 'off', GATEHOUSE_ORG_MAX_MEMBERS: '5' })).to.throw(
      ConfigurationError,
      'GATEHOUSE_ORG_MAX_MEMBERS',
    );
  });

  it('stops the start on each bad value, naming its variable', () => {
    writeFileSync(join(cwd, 'bad.json'), '{ "roles": { "Admin": ["x"] } }');
    writeFileSync(join(cwd, 'owner.json'), '{ "roles": { "owner": [] } }');
    writeFileSync(join(cwd, 'foreign.json'), '{ "roles": { "admin": ["gatehouse.users.manage"] } }');
    writeFileSync(join(cwd, 'notjson.json'), 'roles: admin');
    writeFileSync(join(cwd, 'flat.json'), '{ "admin": ["gatehouse.members.read"] }');
    const cases: Record<string, string>[] = [
      { GATEHOUSE_ORGANIZATIONS: 'maybe' },
      { GATEHOUSE_ORG_ROLES_FILE: 'missing.json' },
      { GATEHOUSE_ORG_ROLES_FILE: 'bad.json' },
      { GATEHOUSE_ORG_ROLES_FILE: 'owner.json' },
      { GATEHOUSE_ORG_ROLES_FILE: 'foreign.json' },
      { GATEHOUSE_ORG_ROLES_FILE: 'notjson.json' },
      { GATEHOUSE_ORG_ROLES_FILE: 'flat.json' },
      { GATEHOUSE_ORG_CREATION: 'everyone' },
      { GATEHOUSE_ORG_INVITATION_TTL: '31d' },
      { GATEHOUSE_ORG_INVITATION_TTL: '10s' },
      { GATEHOUSE_ORG_MAX_PER_USER: '0' },
      { GATEHOUSE_ORG_MAX_MEMBERS: '1.5' },
      { GATEHOUSE_ORG_MAX_PENDING_INVITATIONS: '2000000' },
    ];
    for (const env of cases) {
      const [name] = Object.keys(env);
      expect(() => load(env), JSON.stringify(env)).to.throw(ConfigurationError, name);
    }
  });
});
