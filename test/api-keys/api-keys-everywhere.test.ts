import { expect } from 'chai';
import { getMetadataArgsStorage } from 'routing-controllers';
import { Container } from 'typedi';
import { FEATURES, featurePages } from '../../src/app/features';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { resolveAccountService } from '../../src/di/resolve';
import { ADMIN_PERMISSIONS } from '../../src/services/admin-permissions';
import { apiKeyChecksum, mintApiKey } from '../../src/services/api-keys/api-key-format';
import { CHEAP_HASHING } from '../support/fixtures';
import { bearer, DRIVERS, PASSWORD, PREFIX, TEST_SECRET, type TestApp } from '../support/test-app';
import { buildAdminApp } from '../http/admin-support';
import { buildPagesAppOn } from '../pages/pages-app';
import { createKey, expectCode, grantPermissions, NOBODY } from './api-key-support';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Every action of every feature's controllers, as routing-controllers' metadata declares it: method and path. */
function gatehouseRoutes(): { method: Method; path: string; name: string }[] {
  const controllers = new Set<unknown>(FEATURES.flatMap((feature) => feature.controllers));
  return getMetadataArgsStorage()
    .actions.filter((action) => controllers.has(action.target))
    .map((action) => ({
      method: action.type as Method,
      path: String(action.route),
      name: `${(action.target as { name: string }).name}.${action.method}`,
    }));
}

/** The path with each `:param` filled: the key owner's own ids where a route takes them, a valid shape elsewhere. */
function filled(path: string, values: Record<string, string>): string {
  return PREFIX + path.replace(/:([A-Za-z]+)/g, (_match, name: string) => values[name] ?? NOBODY);
}

function send(t: TestApp, method: Method, url: string, headers: Record<string, string>, body: unknown = {}) {
  const request = t.http[method](url).set(headers);
  return method === 'get' ? request : request.send(body as object);
}

for (const driver of DRIVERS)
  describe(`API keys are refused on every Gatehouse route (${driver})`, () => {
    it('walks every route of FEATURES’ controllers: a live key of an administrator gets 403 api_key_not_allowed before any read', async () => {
      const { t, admin, rootId } = await buildAdminApp(driver);
      await grantPermissions(t, 'root', 'reporter', ['posts.read']);
      const session = admin.Authorization.slice('Bearer '.length);
      const { key, api_key } = await createKey(t, session);
      const keyId = api_key.id as string;
      const values: Record<string, string> = {
        id: rootId,
        userId: rootId,
        keyId,
        provider: 'corp',
        role: 'gatehouse-admin',
        permission: ADMIN_PERMISSIONS.readUsers,
      };
      const routes = gatehouseRoutes();
      // Sessions, passwords, email, second factor, passkeys, providers, organizations, keys, administration.
      expect(routes.length).to.be.greaterThan(80);
      for (const prefix of ['/me', '/password/change', '/email-change', '/admin/users', '/api-keys', '/logout']) {
        expect(
          routes.some((route) => route.path.startsWith(prefix)),
          prefix,
        ).to.equal(true);
      }
      // The creation's notice is delivered first, so the outbox's own work is not taken for a route's.
      await t.accounts.drain();
      t.calls.clear();
      for (const { method, path, name } of routes) {
        const url = filled(path, values);
        expectCode(await send(t, method, url, bearer(key)), 403, 'api_key_not_allowed');
        // A body the route would refuse does not change the answer: the key is refused first.
        if (method !== 'get') expectCode(await send(t, method, url, bearer(key), []), 403, 'api_key_not_allowed');
        expect([...t.calls.keys()], `${name}: refused before any store call`).to.deep.equal([]);
      }

      // Nothing was done on the way: the key lives, the account is as it was, and the key still serves a host.
      const listed = await t.accounts.apiKeys.list(session);
      expect(listed.map((view) => view.id)).to.deep.equal([keyId]);
      const me = await t.http.get(`${PREFIX}/me`).set(admin);
      expect(me.status, me.text).to.equal(200);
    });

    it('refuses a live key on every hosted page and on the API document, before any store call', async () => {
      const app = buildPagesAppOn(driver);
      const { accounts, sender } = app;
      await accounts.register({ username: 'alice', email: 'alice@example.com', password: PASSWORD });
      await accounts.drain();
      await accounts.verifyEmail(sender.lastToken('sendVerification', 'alice@example.com'));
      await accounts.access.createRole('reporter');
      await accounts.access.createPermission('posts.read');
      await accounts.access.grantPermission('reporter', 'posts.read');
      await accounts.access.grantRole('alice', 'reporter');
      const session = await accounts.login('alice', PASSWORD);
      const { key } = await accounts.apiKeys.create(session, { name: 'ci', scopes: ['posts.read'] });
      await accounts.drain();
      const paths = [...Object.keys(featurePages()), '/openapi.json', '/reference'];
      expect(paths).to.include.members(['/login', '/account', '/security', '/admin']);
      app.calls.clear();
      for (const path of paths) {
        expectCode(await app.http.get(`${PREFIX}${path}`).set(bearer(key)), 403, 'api_key_not_allowed');
      }
      expect([...app.calls.keys()], 'refused before any store call').to.deep.equal([]);
      expect(await accounts.apiKeys.list(session)).to.have.length(1);
    });

    it('refuses a key of the configured prefix whatever its checksum, and only a key: a session token is judged as before', async () => {
      const { t, admin } = await buildAdminApp(driver);
      const minted = mintApiKey('gatehouse');
      const wrong = minted.slice(0, -6) + (minted.slice(-6) === '000000' ? '000001' : '000000');
      expect(wrong.slice(-6)).to.not.equal(apiKeyChecksum(wrong.slice(0, -6)));
      for (const token of [minted, wrong]) {
        expectCode(await t.http.get(`${PREFIX}/me`).set(bearer(token)), 403, 'api_key_not_allowed');
        expectCode(await t.http.post(`${PREFIX}/logout`).set(bearer(token)).send({}), 403, 'api_key_not_allowed');
      }
      // Not a key's shape (one character short): an unknown session, as any other bearer token.
      expectCode(await t.http.get(`${PREFIX}/me`).set(bearer(minted.slice(0, -1))), 401, 'invalid_session_token');
      expect((await t.http.get(`${PREFIX}/me`).set(admin)).status).to.equal(200);
      // The possession revocation reads the key from its body, not the header: a key there is what it takes.
      const possession = await t.http.post(`${PREFIX}/api-keys/revoke`).send({ key: minted });
      expect(possession.status, possession.text).to.equal(200);
    });

    it('follows the configured prefix: another prefix’s key is no key here', async () => {
      const { t } = await buildAdminApp(driver);
      Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, hashing: CHEAP_HASHING, apiKeyPrefix: 'acme_live' });
      t.accounts = resolveAccountService();
      expect(t.accounts.apiKeys.prefix).to.equal('acme_live');
      const ours = mintApiKey('acme_live');
      expectCode(await t.http.get(`${PREFIX}/me`).set(bearer(ours)), 403, 'api_key_not_allowed');
      const theirs = mintApiKey('gatehouse');
      expectCode(await t.http.get(`${PREFIX}/me`).set(bearer(theirs)), 401, 'invalid_session_token');
    });
  });
