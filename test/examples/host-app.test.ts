import { expect } from 'chai';
import { PASSWORD, ACCOUNT_USER_KEYS } from '../support/fixtures';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { Container } from 'typedi';
import Koa from 'koa';
import * as onKoa from '../../examples/host-app';
import * as onExpress from '../../examples/host-app-express';
import { EMAIL_SENDER, LOGGER, RATE_LIMITS, resolveAccountService, SmtpEmailSender, USER_STORE } from '../../src';
import { CapturingLogger } from '../support/capturing-logger';
import { parseMail, SmtpTestServer, startSmtpServer } from '../email/smtp-test-server';
import { controllersOnlyWhileRunning } from '../support/controller-metadata';

const FLAVOURS = [
  { file: 'examples/host-app.ts', createHostApp: onKoa.createHostApp },
  { file: 'examples/host-app-express.ts', createHostApp: onExpress.createHostApp },
];

/** The README's host app, on each driver, built from the package entry points, on SQLite and a real SMTP server. */
describe('the README host apps', () => {
  // Their organization routes are written for their template: other suites' guards, checking every controller of
  // the process at start against theirs, must not see them.
  controllersOnlyWhileRunning(onKoa.ProjectsController, onExpress.ProjectsController);

  for (const { file, createHostApp } of FLAVOURS)
    describe(`the README host app (${file})`, () => {
      let dir: string;
      let smtp: SmtpTestServer;
      let http: ReturnType<typeof request>;
      let logger: CapturingLogger;

      beforeEach(async () => {
        dir = mkdtempSync(join(tmpdir(), 'gatehouse-host-'));
        smtp = await startSmtpServer();
        // The default limits, as the example has them, counted afresh: every test registers alice@example.com.
        Container.set(RATE_LIMITS, {});
        const app = await createHostApp({
          databaseFile: join(dir, 'accounts.db'),
          smtpUrl: smtp.url,
          secretKey: 'host-app-secret-key-0123456789-abcdefghijkl',
          publicUrl: 'https://example.com',
        });
        // The example logs JSON lines to stderr; here they are kept instead, and checked for secrets.
        logger = new CapturingLogger();
        Container.set(LOGGER, logger);
        http = request(app instanceof Koa ? app.callback() : app);
      });
      afterEach(async () => {
        // The example's shutdown: stop the delivery worker it started, then release what it opened.
        await resolveAccountService().delivery?.stop();
        await resolveAccountService().drain();
        await (Container.get(EMAIL_SENDER) as SmtpEmailSender).close();
        await Container.get(USER_STORE).close();
        Container.remove(LOGGER);
        Container.remove(RATE_LIMITS);
        await smtp.close();
        rmSync(dir, { recursive: true, force: true });
      });

      async function linkToken(to: string, path: string): Promise<string> {
        await resolveAccountService().drain();
        const mail = smtp.received.filter((m) => m.rcptTo.includes(to)).at(-1);
        expect(mail, `an email to ${to}`).to.not.equal(undefined);
        const text = (await parseMail(mail!)).text ?? '';
        const match = new RegExp(`https://example\\.com/auth${path}\\?token=([A-Za-z0-9_-]{43})`).exec(text);
        expect(match, `a ${path} link in the email`).to.not.equal(null);
        return match![1];
      }

      async function signIn(username: string): Promise<string> {
        await http
          .post('/auth/register')
          .send({ username, email: `${username}@example.com`, password: PASSWORD })
          .expect(201);
        const token = await linkToken(`${username}@example.com`, '/verify-email');
        await http.post('/auth/verify-email').send({ token }).expect(200, { detail: 'Email verified' });
        const login = await http.post('/auth/login').send({ username, password: PASSWORD }).expect(200);
        expect(login.body.token_type).to.equal('bearer');
        return `Bearer ${login.body.access_token}`;
      }

      it('serves the account routes under /auth, with the host serializer on /me only', async () => {
        const auth = await signIn('alice');
        await http.get('/auth/me').set('Authorization', auth).expect(200, { name: 'alice', verified: true });
        expect(logger.text()).to.include('login succeeded');
        expect(logger.text()).to.not.include(auth.slice('Bearer '.length));
        expect(logger.text()).to.not.include(PASSWORD);
      });

      it('guards the host routes under /api with the four guards', async () => {
        await http.get('/api/posts').expect(200, { viewer: null, posts: [] });
        const missing = await http.get('/api/posts/mine').expect(401);
        expect(missing.body).to.deep.equal({ detail: 'Not authenticated' });
        expect(missing.headers['www-authenticate']).to.equal('Bearer');

        const auth = await signIn('alice');
        await http.get('/api/posts').set('Authorization', auth).expect(200, { viewer: 'alice', posts: [] });
        await http.get('/api/posts/mine').set('Authorization', auth).expect(200, { author: 'alice', posts: [] });

        const unknownPermission = await http
          .post('/api/posts')
          .set('Authorization', auth)
          .send({ title: 'Hi' })
          .expect(404);
        expect(unknownPermission.body.detail.code).to.equal('unknown_permission');
        const unknownRole = await http.get('/api/posts/drafts').set('Authorization', auth).expect(404);
        expect(unknownRole.body.detail.code).to.equal('unknown_role');

        const accounts = resolveAccountService();
        await accounts.access.createRole('editor');
        await accounts.access.createPermission('posts.write');
        await accounts.access.grantPermission('editor', 'posts.write');
        const denied = await http.post('/api/posts').set('Authorization', auth).send({ title: 'Hi' }).expect(403);
        expect(denied.body).to.deep.equal({ detail: { detail: 'Permission denied', code: 'permission_denied' } });
        await http.get('/api/posts/drafts').set('Authorization', auth).expect(403);

        await accounts.access.grantRole('alice', 'editor');
        await http
          .post('/api/posts')
          .set('Authorization', auth)
          .send({ title: 'Hi' })
          .expect(200, { author: 'alice', title: 'Hi' });
        await http.get('/api/posts/drafts').set('Authorization', auth).expect(200, { drafts: [] });

        // The host's own errors come out in the same JSON shape, without a stack, and with the security headers.
        const notFound = await http.get('/api/posts/42').expect(404);
        expect(notFound.body).to.deep.equal({ detail: { detail: 'No such post', code: 'not_found' } });
        expect(notFound.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(notFound.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
        expect(notFound.headers['x-content-type-options']).to.equal('nosniff');
        expect(notFound.text).to.not.match(/\bat \w|\.ts:\d|<html/i);
        const nowhere = await http.get('/api/nowhere').expect(404);
        expect(nowhere.body.detail.code).to.equal('not_found');

        const required = await http.get('/api/posts/author').expect(401);
        expect(required.body).to.deep.equal({ detail: 'Not authenticated' });
        expect(required.headers['www-authenticate']).to.equal('Bearer');

        await http.post('/auth/logout').set('Authorization', auth).expect(200);
        const rejected = await http.get('/api/posts/mine').set('Authorization', auth).expect(401);
        expect(rejected.body.detail.code).to.equal('invalid_session_token');
      });

      it('lets a machine client in with an API key: its scopes on perm routes, never a person-only route', async () => {
        const auth = await signIn('alice');
        const accounts = resolveAccountService();
        await accounts.access.createRole('reader');
        await accounts.access.createPermission('posts.read');
        await accounts.access.grantPermission('reader', 'posts.read');
        await accounts.access.grantRole('alice', 'reader');
        // The owner makes a key over HTTP with her (recent) session; it is shown once, in this answer.
        const created = await http
          .post('/auth/api-keys')
          .set('Authorization', auth)
          .send({ name: 'feed reader', scopes: ['posts.read'] })
          .expect(201);
        const key: string = created.body.key;
        const keyId: string = created.body.api_key.id;
        expect(key).to.match(/^gatehouse_[0-9A-Za-z]{38}$/);
        const asKey = `Bearer ${key}`;

        await http
          .get('/api/posts/feed')
          .set('Authorization', asKey)
          .expect(200, { reader: 'alice', via: { kind: 'api_key', keyId }, posts: [] });
        await http
          .get('/api/posts/feed')
          .set('Authorization', auth)
          .expect(200, { reader: 'alice', via: { kind: 'session' }, posts: [] });
        await http.get('/api/posts/mine').set('Authorization', asKey).expect(200, { author: 'alice', posts: [] });
        // Outside its scopes, a person-only route, and Gatehouse's own routes: refused.
        const outOfScope = await http.post('/api/posts').set('Authorization', asKey).send({ title: 'Hi' }).expect(403);
        expect(outOfScope.body.detail.code).to.equal('permission_denied');
        const personOnly = await http.get('/api/posts/settings').set('Authorization', asKey).expect(403);
        expect(personOnly.body.detail.code).to.equal('api_key_not_allowed');
        await http.get('/api/posts/settings').set('Authorization', auth).expect(200, { owner: 'alice' });
        const account = await http.get('/auth/me').set('Authorization', asKey).expect(403);
        expect(account.body.detail.code).to.equal('api_key_not_allowed');

        // The owner loses the role: the key loses the scope at its next request.
        await accounts.access.revokeRole('alice', 'reader');
        const lost = await http.get('/api/posts/feed').set('Authorization', asKey).expect(403);
        expect(lost.body.detail.code).to.equal('permission_denied');
        // Revoked: one 401 invalid_api_key.
        await http.delete(`/auth/api-keys/${keyId}`).set('Authorization', auth).expect(200);
        const revoked = await http.get('/api/posts/mine').set('Authorization', asKey).expect(401);
        expect(revoked.body.detail.code).to.equal('invalid_api_key');
        expect(revoked.headers['www-authenticate']).to.equal('Bearer');
        await resolveAccountService().drain();
        expect(logger.text()).to.not.include(key);
      });

      it('hands the host route an account view: the injected user, sent as it is, carries no secret', async () => {
        const auth = await signIn('alice');
        const response = await http.get('/api/posts/author').set('Authorization', auth).expect(200);
        expect(Object.keys(response.body).sort()).to.deep.equal(ACCOUNT_USER_KEYS);
        expect(response.body).to.include({ username: 'alice', email: 'alice@example.com', verified: true });
        const stored = (await Container.get(USER_STORE).users.findByUsernameKey('alice'))!;
        expect(response.text).to.not.include((await Container.get(USER_STORE).passwords.hashOf(stored.id))!);
        expect(response.text).to.not.match(/argon2|passwordHash|usernameKey|emailKey/);
        expect(response.text).to.not.include(auth.slice('Bearer '.length));
      });

      it('scopes the project routes to an organization: members in, others 404, writers by their role', async () => {
        const alice = await signIn('alice');
        const bob = await signIn('bob');
        const carol = await signIn('carol');
        const accounts = resolveAccountService();
        const acme = await accounts.organizations.create(alice.slice('Bearer '.length), { name: 'Acme' });
        const globex = await accounts.organizations.create(carol.slice('Bearer '.length), { name: 'Globex' });
        // Bob joins Acme as a member through an invitation mailed to his address.
        await accounts.organizations.invite(alice.slice('Bearer '.length), acme.id, {
          email: 'bob@example.com',
          role: 'member',
        });
        const invitation = await linkToken('bob@example.com', '/invitation');
        await accounts.organizations.acceptInvitation(bob.slice('Bearer '.length), invitation);

        const missing = await http.get(`/api/orgs/${acme.id}/projects`).expect(401);
        expect(missing.body).to.deep.equal({ detail: 'Not authenticated' });
        await http
          .get(`/api/orgs/${acme.id}/projects`)
          .set('Authorization', alice)
          .expect(200, { organization: acme.id, role: 'owner', projects: [] });
        await http
          .get(`/api/orgs/${acme.id}/projects`)
          .set('Authorization', bob)
          .expect(200, { organization: acme.id, role: 'member', projects: [] });

        // Another's organization, an unknown id and a malformed one: one answer.
        const answers = new Set<string>();
        for (const id of [globex.id, '00000000-0000-4000-8000-000000000000', 'acme']) {
          const response = await http.get(`/api/orgs/${id}/projects`).set('Authorization', bob).expect(404);
          expect(response.body.detail.code).to.equal('organization_not_found');
          answers.add(response.text);
        }
        expect(answers.size).to.equal(1);

        const denied = await http
          .post(`/api/orgs/${acme.id}/projects`)
          .set('Authorization', bob)
          .send({ name: 'Rocket' })
          .expect(403);
        expect(denied.body.detail.code).to.equal('permission_denied');
        await http
          .post(`/api/orgs/${acme.id}/projects`)
          .set('Authorization', alice)
          .send({ name: 'Rocket' })
          .expect(200, { organization: acme.id, author: 'alice', name: 'Rocket' });

        // Made an admin: he writes at his very next request.
        const bobId = (await Container.get(USER_STORE).users.findByUsernameKey('bob'))!.id;
        await accounts.organizations.changeRole(alice.slice('Bearer '.length), acme.id, bobId, 'admin');
        await http
          .post(`/api/orgs/${acme.id}/projects`)
          .set('Authorization', bob)
          .send({ name: 'Moon' })
          .expect(200, { organization: acme.id, author: 'bob', name: 'Moon' });
        // Removed: gone at once.
        await accounts.organizations.removeMember(alice.slice('Bearer '.length), acme.id, bobId);
        await http.get(`/api/orgs/${acme.id}/projects`).set('Authorization', bob).expect(404);
      });
    });
});
