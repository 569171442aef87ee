import { ACCOUNT_USER_KEYS } from '../support/fixtures';
import { expect } from 'chai';
import express from 'express';
import Koa from 'koa';
import request from 'supertest';
import { accountGuards } from '../../src/guards/account-guards';
import * as onExpress from '../../src/express';
import { gatehouseHttp } from '../../src/koa/gatehouse-http';
import {
  bearer,
  buildTestApp,
  Driver,
  DRIVERS,
  handlerOf,
  HostApp,
  resetContainer,
  TestApp,
  useServer,
} from '../support/test-app';
import { PostsController } from './fixtures/posts-controller';
import type { UserStore } from '../../src/services/user-store';
import { freshStoreEachTest, TEST_STORES, type TestStoreKind } from '../support/test-stores';

/** The host mounts its own controller beside the account routes, keeping routing-controllers' default handler. */
function mountPosts(app: HostApp) {
  useServer(app, { controllers: [PostsController], middlewares: [class None {}], ...accountGuards() });
}

const newApp = (driver: Driver): HostApp => (driver === 'koa' ? new Koa() : express());

// The memory store answers the session check with a promise; an SQLite file's direct read answers at once, and the
// guards then decide within the call. Every case runs on both paths.
const GUARD_STORES = TEST_STORES.filter((kind) => kind.name !== 'PostgreSQL');

for (const driver of DRIVERS) {
  for (const kind of GUARD_STORES) describeHostGuards(driver, kind);

  describe(`HTTP: guards with no USER_STORE configured (${driver})`, () => {
    it('fail loudly as a 500, never as an anonymous user', async () => {
      const { logger } = resetContainer();
      const { Container } = await import('typedi');
      const { USER_STORE } = await import('../../src/di/tokens');
      const app = newApp(driver);
      if (app instanceof Koa) app.use(gatehouseHttp());
      else app.use(onExpress.gatehouseHttp());
      useServer(app, {
        controllers: [PostsController],
        middlewares: [class None {}],
        defaultErrorHandler: false,
        ...accountGuards(),
      });
      if (!(app instanceof Koa)) app.use(onExpress.gatehouseErrors());
      Container.remove(USER_STORE);
      for (const path of ['/posts/feed', '/posts/mine']) {
        const response = await request(handlerOf(app))
          .get(path)
          .set(bearer('E'.repeat(43)));
        expect(response.status).to.equal(500);
        expect(response.body).to.deep.equal({ detail: { detail: 'Internal server error', code: 'internal_error' } });
      }
      expect(logger.errors()).to.have.length(2);
    });
  });
}

function describeHostGuards(driver: Driver, kind: TestStoreKind): void {
  describe(`HTTP: guards on a host controller (${driver}, ${kind.name})`, () => {
    let t: TestApp;
    let alice: string; // no roles
    let erin: string; // editor
    let wendy: string; // writer: posts.write and posts.publish, not editor
    let store: UserStore;

    freshStoreEachTest(kind, (opened) => {
      store = opened;
      return () => t.accounts.drain();
    });

    beforeEach(async () => {
      t = buildTestApp({ driver, mount: mountPosts, store });
      await t.accounts.access.createRole('editor');
      await t.accounts.access.createRole('writer');
      for (const permission of ['posts.write', 'posts.publish']) await t.accounts.access.createPermission(permission);
      await t.accounts.access.grantPermission('editor', 'posts.write');
      await t.accounts.access.grantPermission('writer', 'posts.write');
      await t.accounts.access.grantPermission('writer', 'posts.publish');
      alice = await t.loginNewUser('alice');
      erin = await t.loginNewUser('erin');
      wendy = await t.loginNewUser('wendy');
      await t.accounts.access.grantRole('erin', 'editor');
      await t.accounts.access.grantRole('wendy', 'writer');
    });

    const expectMissing = (response: request.Response) => {
      expect(response.status).to.equal(401);
      expect(response.body).to.deep.equal({ detail: 'Not authenticated' });
      expect(response.headers['www-authenticate']).to.equal('Bearer');
    };
    const expectRejected = (response: request.Response) => {
      expect(response.status).to.equal(401);
      expect(response.body.detail.code).to.equal('invalid_session_token');
      expect(response.body.detail.detail).to.be.a('string').and.not.empty;
      expect(response.headers['www-authenticate']).to.equal('Bearer');
    };
    const expectDenied = (response: request.Response) => {
      expect(response.status).to.equal(403);
      expect(response.body).to.deep.equal({ detail: { detail: 'Permission denied', code: 'permission_denied' } });
      expect(response.headers['www-authenticate']).to.equal(undefined);
    };
    const BAD = bearer('D'.repeat(43));

    describe('@CurrentUser({ required: false })', () => {
      it('gives the user for a valid session', async () => {
        expect((await t.http.get('/posts/feed').set(bearer(alice))).body).to.deep.equal({ viewer: 'alice' });
      });
      it('gives no user, without failing, when the header is absent, malformed or the token rejected', async () => {
        for (const headers of [{}, BAD, { Authorization: 'Basic abc' }]) {
          const response = await t.http.get('/posts/feed').set(headers);
          expect(response.status).to.equal(200);
          expect(response.body).to.deep.equal({ viewer: null });
          expect(response.headers['www-authenticate']).to.equal(undefined);
        }
      });
    });

    describe('@CurrentUser() without @Authorized()', () => {
      it('gives the user for a valid session', async () => {
        expect((await t.http.get('/posts/plain-current-user').set(bearer(erin))).body).to.deep.equal({
          viewer: 'erin',
        });
      });
      it('is optional, as routing-controllers makes it: no user and no failure without a session', async () => {
        for (const headers of [{}, BAD]) {
          const response = await t.http.get('/posts/plain-current-user').set(headers);
          expect(response.status).to.equal(200);
          expect(response.body).to.deep.equal({ viewer: null });
        }
      });
    });

    describe('what a host receives', () => {
      it('the injected user carries no secret: a route that sends it as it is leaks no hash, key or token', async () => {
        const response = await t.http.get('/posts/me-as-injected').set(bearer(alice)).expect(200);
        expect(Object.keys(response.body).sort()).to.deep.equal(ACCOUNT_USER_KEYS);
        const stored = (await t.store.users.findByUsernameKey('alice'))!;
        expect(response.text).to.not.include((await t.store.passwords.hashOf(stored.id))!);
        expect(response.text).to.not.match(/argon2|passwordHash|usernameKey|emailKey/);
        expect(response.text).to.not.include(alice);
        expect(await t.accounts.authenticate(alice)).to.not.have.any.keys('passwordHash', 'usernameKey', 'emailKey');
      });
    });

    describe('@CurrentUser({ required: true }) without @Authorized()', () => {
      it('gives the user', async () => {
        expect((await t.http.get('/posts/whoami').set(bearer(erin))).body).to.deep.equal({ username: 'erin' });
      });
      it('401 plain without a header', async () => expectMissing(await t.http.get('/posts/whoami')));
      it('401 invalid_session_token for a rejected token', async () =>
        expectRejected(await t.http.get('/posts/whoami').set(BAD)));
    });

    describe('@Authorized() with @CurrentUser()', () => {
      it('allows any valid session, and authenticates once per request', async () => {
        t.calls.clear();
        const response = await t.http.get('/posts/mine').set(bearer(alice));
        expect(response.status).to.equal(200);
        expect(response.body).to.deep.equal({ owner: 'alice' });
        expect(t.calls.get('sessions.check')).to.equal(1);
        expect(t.calls.get('sessions.findWithUser')).to.equal(undefined);
      });
      it('401 plain without a header', async () => expectMissing(await t.http.get('/posts/mine')));
      it('401 invalid_session_token for a rejected token', async () =>
        expectRejected(await t.http.get('/posts/mine').set(BAD)));
    });

    describe("@Authorized('role:editor')", () => {
      it('allows an editor', async () => {
        expect((await t.http.post('/posts/drafts').set(bearer(erin))).body).to.deep.equal({ ok: 'draft' });
      });
      it('403 permission_denied for a user without the role, even one with its permissions', async () => {
        expectDenied(await t.http.post('/posts/drafts').set(bearer(alice)));
        expectDenied(await t.http.post('/posts/drafts').set(bearer(wendy)));
      });
      it('401 without a header, 401 for a rejected token', async () => {
        expectMissing(await t.http.post('/posts/drafts'));
        expectRejected(await t.http.post('/posts/drafts').set(BAD));
      });
      it("a name without a prefix is a role: @Authorized('editor')", async () => {
        expect((await t.http.get('/posts/editor-by-bare-name').set(bearer(erin))).status).to.equal(200);
        expectDenied(await t.http.get('/posts/editor-by-bare-name').set(bearer(alice)));
      });
      it('a demoted user is refused on the next request', async () => {
        expect((await t.http.post('/posts/drafts').set(bearer(erin))).status).to.equal(200);
        await t.accounts.access.revokeRole('erin', 'editor');
        expectDenied(await t.http.post('/posts/drafts').set(bearer(erin)));
        await t.accounts.access.grantRole('erin', 'editor');
        expect((await t.http.post('/posts/drafts').set(bearer(erin))).status).to.equal(200);
      });
    });

    describe("@Authorized('perm:posts.write')", () => {
      it('allows users holding the permission through any role', async () => {
        expect((await t.http.post('/posts').set(bearer(erin))).body).to.deep.equal({ ok: 'write' });
        expect((await t.http.post('/posts').set(bearer(wendy))).body).to.deep.equal({ ok: 'write' });
      });
      it('403 for a user without it; 401s as usual', async () => {
        expectDenied(await t.http.post('/posts').set(bearer(alice)));
        expectMissing(await t.http.post('/posts'));
        expectRejected(await t.http.post('/posts').set(BAD));
      });
      it('asks the store once: the session and the permission in one checkSession', async () => {
        t.calls.clear();
        expect((await t.http.post('/posts').set(bearer(erin))).status).to.equal(200);
        expect(Object.fromEntries(t.calls)).to.deep.equal({ 'sessions.check': 1 });
      });
      it('a permission taken from the role is refused on the next request', async () => {
        await t.accounts.access.revokePermission('editor', 'posts.write');
        expectDenied(await t.http.post('/posts').set(bearer(erin)));
      });
    });

    describe("@Authorized(['role:editor', 'perm:posts.publish']): all must hold", () => {
      it('403 for an editor without posts.publish and for a publisher who is not an editor', async () => {
        expectDenied(await t.http.post('/posts/publish').set(bearer(erin)));
        expectDenied(await t.http.post('/posts/publish').set(bearer(wendy)));
        expectDenied(await t.http.post('/posts/publish').set(bearer(alice)));
      });
      it('allows a user holding both; the first is read with the session, the second on its own', async () => {
        await t.accounts.access.grantPermission('editor', 'posts.publish');
        t.calls.clear();
        expect((await t.http.post('/posts/publish').set(bearer(erin))).body).to.deep.equal({ ok: 'publish' });
        expect(Object.fromEntries(t.calls)).to.deep.equal({ 'sessions.check': 1, 'access.checkPermission': 1 });
      });
      it('401s as usual', async () => {
        expectMissing(await t.http.post('/posts/publish'));
        expectRejected(await t.http.post('/posts/publish').set(BAD));
      });
    });

    describe('unknown and invalid names', () => {
      it('an unknown role is 404 unknown_role', async () => {
        const response = await t.http.get('/posts/ghost-role').set(bearer(erin));
        expect(response.status).to.equal(404);
        expect(response.body.detail.code).to.equal('unknown_role');
      });
      it('an unknown permission is 404 unknown_permission', async () => {
        const response = await t.http.get('/posts/ghost-permission').set(bearer(erin));
        expect(response.status).to.equal(404);
        expect(response.body.detail.code).to.equal('unknown_permission');
      });
      it('an invalid role or permission name is 400 invalid_role / invalid_permission', async () => {
        const role = await t.http.get('/posts/empty-role').set(bearer(erin));
        expect(role.status).to.equal(400);
        expect(role.body.detail.code).to.equal('invalid_role');
        const permission = await t.http.get('/posts/empty-permission').set(bearer(erin));
        expect(permission.status).to.equal(400);
        expect(permission.body.detail.code).to.equal('invalid_permission');
      });
      it('authentication comes first: 401 before 404 for an unknown role', async () => {
        expectMissing(await t.http.get('/posts/ghost-role'));
      });
    });

    describe('a host that does not install gatehouseHttp()', () => {
      // routing-controllers' default error handler renders the guards' errors through their toJSON().
      let http: ReturnType<typeof request>;
      beforeEach(() => {
        const app = newApp(driver);
        mountPosts(app);
        http = request(handlerOf(app));
      });

      it('401 plain + challenge, 401 nested + challenge, 403 and 404 keep their bodies', async () => {
        expectMissing(await http.get('/posts/mine'));
        expectRejected(await http.get('/posts/mine').set(BAD));
        expectDenied(await http.post('/posts/drafts').set(bearer(alice)));
        const unknown = await http.get('/posts/ghost-role').set(bearer(erin));
        expect(unknown.status).to.equal(404);
        expect(unknown.body).to.deep.equal({ detail: { detail: 'Unknown role: ghost', code: 'unknown_role' } });
        expect((await http.post('/posts/drafts').set(bearer(erin))).status).to.equal(200);
      });
    });
  });
}
