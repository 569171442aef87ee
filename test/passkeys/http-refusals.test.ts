import { expect } from 'chai';
import { bearer, buildTestApp, DRIVERS, PREFIX } from '../support/test-app';
import { buildAdminApp, idOf } from '../http/admin-support';
import {
  ASSERTION_RESPONSE,
  CHALLENGE_TOKEN,
  codeOf,
  configurePasskeys,
  passkeyRoutes,
  REGISTRATION_RESPONSE,
  SOME_ID,
} from './http-passkeys-support';

// What the passkey routes answer before any ceremony: off, without a session, to a malformed body, to a bad id, to
// someone who is no administrator. The ceremonies themselves are the service's tests.
for (const driver of DRIVERS)
  describe(`passkeys over HTTP: the refusals (${driver})`, () => {
    it('answers 404 passkeys_not_configured on every route when no relying party is configured', async () => {
      const { t, admin, rootId } = await buildAdminApp(driver);
      for (const route of passkeyRoutes(rootId)) {
        const response = await route.send(t, admin);
        expect(response.status, `${route.name}: ${response.text}`).to.equal(404);
        expect(codeOf(response), route.name).to.equal('passkeys_not_configured');
      }
    });

    it('answers 401 without a bearer token on every route that reads a session, configured or not', async () => {
      const t = buildTestApp({ driver });
      for (const configured of [false, true]) {
        if (configured) configurePasskeys();
        for (const route of passkeyRoutes().filter((r) => r.bearer)) {
          const response = await route.send(t, {});
          expect(response.status, `${route.name}: ${response.text}`).to.equal(401);
          expect(response.body, route.name).to.deep.equal({ detail: 'Not authenticated' });
        }
      }
    });

    it('answers 400 validation_error to a malformed body, never 500', async () => {
      const t = buildTestApp({ driver, bodyLimit: '1mb' });
      configurePasskeys();
      const session = bearer(await t.loginNewUser('alice'));
      const big = 'A'.repeat(100_000);
      const withResponse = (response: unknown) => ({ name: 'Laptop', response });
      const cases: [string, string, object | unknown[]][] = [
        ['post', '/passkeys', { name: 'Laptop' }],
        ['post', '/passkeys', { response: REGISTRATION_RESPONSE }],
        ['post', '/passkeys', { name: '', response: REGISTRATION_RESPONSE }],
        ['post', '/passkeys', { name: '   ', response: REGISTRATION_RESPONSE }],
        ['post', '/passkeys', { name: 'x'.repeat(65), response: REGISTRATION_RESPONSE }],
        ['post', '/passkeys', { name: 'Line\nbreak', response: REGISTRATION_RESPONSE }],
        ['post', '/passkeys', { name: 'Esc\u001b[2J', response: REGISTRATION_RESPONSE }],
        ['post', '/passkeys', { name: 42, response: REGISTRATION_RESPONSE }],
        ['post', '/passkeys', withResponse('a string')],
        ['post', '/passkeys', withResponse([REGISTRATION_RESPONSE])],
        ['post', '/passkeys', withResponse(null)],
        ['post', '/passkeys', withResponse({ ...REGISTRATION_RESPONSE, id: 'A'.repeat(1401) })],
        ['post', '/passkeys', withResponse({ ...REGISTRATION_RESPONSE, rawId: 'not base64url!' })],
        ['post', '/passkeys', withResponse({ ...REGISTRATION_RESPONSE, type: 'password' })],
        ['post', '/passkeys', withResponse({ ...REGISTRATION_RESPONSE, response: 'x' })],
        ['post', '/passkeys', withResponse({ ...REGISTRATION_RESPONSE, response: { clientDataJSON: big } })],
        ['post', '/passkeys', withResponse({ ...REGISTRATION_RESPONSE, clientExtensionResults: { big } })],
        ['post', '/passkeys', [REGISTRATION_RESPONSE]],
        ['patch', `/passkeys/${SOME_ID}`, {}],
        ['patch', `/passkeys/${SOME_ID}`, { name: 'x'.repeat(65) }],
        ['patch', `/passkeys/${SOME_ID}`, { name: 'Tab\there' }],
        ['post', '/passkeys/login', {}],
        ['post', '/passkeys/login', { response: 'x' }],
        ['post', '/passkeys/login', { response: { ...ASSERTION_RESPONSE, id: big } }],
        ['post', '/passkeys/second-factor-options', {}],
        ['post', '/passkeys/second-factor-options', { challenge_token: big }],
        ['post', '/passkeys/second-factor', { response: ASSERTION_RESPONSE }],
        ['post', '/passkeys/second-factor', { challenge_token: CHALLENGE_TOKEN }],
        ['post', '/passkeys/second-factor', { challenge_token: CHALLENGE_TOKEN, response: [] }],
        ['post', '/passkeys/reauthenticate', {}],
        ['post', '/passkeys/reauthenticate', { response: { ...ASSERTION_RESPONSE, response: null } }],
      ];
      for (const [method, path, body] of cases) {
        const response = await t.http[method as 'post'](`${PREFIX}${path}`).set(session).send(body);
        const what = `${method} ${path} ${JSON.stringify(body).slice(0, 120)}`;
        expect(response.status, `${what}: ${response.text.slice(0, 300)}`).to.equal(400);
        expect(codeOf(response), what).to.equal('validation_error');
        // The refusal names the field, never echoes what was sent.
        expect(response.text, what).to.not.include(big.slice(0, 100));
      }
    });

    it('answers a malformed id as an id nothing has: 404 passkey_not_found, 404 user_not_found', async () => {
      const { t, admin } = await buildAdminApp(driver);
      configurePasskeys();
      const bad = ['not-a-uuid', 'x'.repeat(300), '%00'];
      for (const id of bad) {
        const renamed = await t.http.patch(`${PREFIX}/passkeys/${id}`).set(admin).send({ name: 'Phone' });
        expect([renamed.status, codeOf(renamed)], id).to.deep.equal([404, 'passkey_not_found']);
        const removed = await t.http.delete(`${PREFIX}/passkeys/${id}`).set(admin);
        expect([removed.status, codeOf(removed)], id).to.deep.equal([404, 'passkey_not_found']);
        const listed = await t.http.get(`${PREFIX}/admin/users/${id}/passkeys`).set(admin);
        expect([listed.status, codeOf(listed)], id).to.deep.equal([404, 'user_not_found']);
        const adminRemoved = await t.http.delete(`${PREFIX}/admin/users/${SOME_ID}/passkeys/${id}`).set(admin);
        expect([adminRemoved.status, codeOf(adminRemoved)], id).to.deep.equal([404, 'passkey_not_found']);
      }
    });

    it('refuses the admin routes to a signed-in user without the permission: 403 permission_denied', async () => {
      const app = await buildAdminApp(driver);
      const { t } = app;
      const session = bearer(await t.loginNewUser('mallory'));
      const victim = await idOf(app, 'root');
      configurePasskeys();
      const listed = await t.http.get(`${PREFIX}/admin/users/${victim}/passkeys`).set(session);
      expect([listed.status, codeOf(listed)], listed.text).to.deep.equal([403, 'permission_denied']);
      const removed = await t.http.delete(`${PREFIX}/admin/users/${victim}/passkeys/${SOME_ID}`).set(session);
      expect([removed.status, codeOf(removed)], removed.text).to.deep.equal([403, 'permission_denied']);
    });
  });
