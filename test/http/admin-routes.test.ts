import { expect } from 'chai';
import { accountApiDocument } from '../../src/app/account-api-document';
import { ADMIN_PERMISSIONS } from '../../src/services/admin-permissions';
import { bearer, buildTestApp, DRIVERS, PREFIX, type TestApp } from '../support/test-app';
import { configurePasskeys } from '../passkeys/http-passkeys-support';
import { buildAdminApp, expectCode, expectStatus, idOf } from './admin-support';

type Method = 'get' | 'post' | 'put' | 'delete';

/** A UUID no account has, a string that is no UUID at all: neither may tell a non-administrator anything. */
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const NOT_A_UUID = 'not-a-uuid';

/** Every admin route, as `METHOD path` with `{id}` for an account id; the document is checked to list no other. */
const ADMIN_ROUTES: [Method, string, object?][] = [
  ['get', '/admin/users'],
  ['get', '/admin/users/{id}'],
  ['post', '/admin/users/{id}/disable'],
  ['post', '/admin/users/{id}/enable'],
  ['post', '/admin/users/{id}/sessions/end'],
  ['post', '/admin/users/{id}/verify-email'],
  ['post', '/admin/users/{id}/resend-verification'],
  ['delete', '/admin/users/{id}'],
  ['put', '/admin/users/{id}/roles/{role}'],
  ['delete', '/admin/users/{id}/roles/{role}'],
  ['get', '/admin/users/{id}/audit-events'],
  ['get', '/admin/audit-events'],
  ['get', '/admin/roles'],
  ['post', '/admin/roles', { name: 'editor' }],
  ['get', '/admin/permissions'],
  ['post', '/admin/permissions', { name: 'posts.write' }],
  ['put', '/admin/roles/{role}/permissions/{permission}'],
  ['delete', '/admin/roles/{role}/permissions/{permission}'],
  ['get', '/admin/users/{id}/passkeys'],
  ['delete', '/admin/users/{id}/passkeys/{passkeyId}'],
  ['get', '/admin/organizations'],
  ['get', '/admin/organizations/{orgId}'],
  ['get', '/admin/users/{id}/organizations'],
  ['post', '/admin/organizations/{orgId}/owner', { user_id: UNKNOWN_ID }],
  ['get', '/admin/users/{id}/api-keys'],
  ['post', '/admin/users/{id}/api-keys', { name: 'deploy', scopes: ['posts.read'] }],
  ['post', '/admin/users/{id}/api-keys/revoke-all'],
  ['delete', '/admin/users/{id}/api-keys/{keyId}'],
  ['post', '/admin/service-accounts', { username: 'robot' }],
  ['get', '/admin/service-accounts'],
];

function send(t: TestApp, [method, path, body]: [Method, string, object?], id: string, headers = {}) {
  const url =
    PREFIX +
    path
      .replace('{id}', id)
      .replace('{role}', 'gatehouse-admin')
      .replace('{permission}', ADMIN_PERMISSIONS.readUsers)
      .replace('{passkeyId}', UNKNOWN_ID)
      .replace('{orgId}', UNKNOWN_ID)
      .replace('{keyId}', UNKNOWN_ID);
  const request = t.http[method](url).set(headers);
  return method === 'get' ? request : request.send(body ?? {});
}

describe('admin routes: the list the guard tests walk', () => {
  it('is every admin operation of the document', () => {
    const document = accountApiDocument({ prefix: PREFIX }) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/admin'))
      .flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => method !== 'head')
          .map((method) => `${method} ${path}`),
      );
    expect(documented.sort()).to.deep.equal(ADMIN_ROUTES.map(([method, path]) => `${method} ${path}`).sort());
  });
});

for (const driver of DRIVERS)
  describe(`admin routes over HTTP: who may call them (${driver})`, () => {
    it('every admin route is 401 without a session, and with a dead one', async () => {
      const t = buildTestApp({ driver });
      for (const route of ADMIN_ROUTES) {
        const none = await send(t, route, UNKNOWN_ID);
        expectStatus(none, 401, { detail: 'Not authenticated' });
        expect(none.headers['www-authenticate']).to.equal('Bearer');
        const dead = await send(t, route, UNKNOWN_ID, bearer('x'.repeat(43)));
        expectCode(dead, 401, 'invalid_session_token');
      }
    });

    it('every admin route is 403 permission_denied for a signed-in user without the permission, whatever the account', async () => {
      const { t } = await buildAdminApp(driver);
      // The passkeys' admin routes answer 404 passkeys_not_configured on a server without them.
      configurePasskeys();
      const mallory = bearer(await t.loginNewUser('mallory'));
      const ownId = await idOf({ t, admin: bearer(await t.login('root')) }, 'mallory');
      for (const route of ADMIN_ROUTES) {
        for (const id of [UNKNOWN_ID, ownId]) {
          const response = await send(t, route, id, mallory);
          expectCode(response, 403, 'permission_denied');
        }
        // An id of a shape no account has is refused at the edge, before any store or permission is read: it
        // names no account, so whoever asks learns nothing from its 404.
        const malformed = await send(t, route, NOT_A_UUID, mallory);
        if (route[1].includes('{id}')) expectCode(malformed, 404, 'user_not_found');
        else expectCode(malformed, 403, 'permission_denied');
      }
      // Nothing was done on the way: no role was created, nobody lost or gained anything.
      const roles = await t.accounts.admin.listRoles({ kind: 'operator' });
      expect(roles.map((role) => role.name)).to.deep.equal(['gatehouse-admin']);
    });

    it('holds each route to its own permission: a reader can read accounts, and nothing else', async () => {
      const { t, admin } = await buildAdminApp(driver);
      configurePasskeys();
      await t.createUser('reader');
      const readerId = await idOf({ t, admin }, 'reader');
      await t.http.post(`${PREFIX}/admin/roles`).set(admin).send({ name: 'support' }).expect(201);
      await t.http
        .put(`${PREFIX}/admin/roles/support/permissions/${ADMIN_PERMISSIONS.readUsers}`)
        .set(admin)
        .expect(200);
      await t.http.put(`${PREFIX}/admin/users/${readerId}/roles/support`).set(admin).expect(200);
      const reader = bearer(await t.login('reader'));

      expectStatus(await t.http.get(`${PREFIX}/admin/users`).set(reader), 200);
      expectStatus(await t.http.get(`${PREFIX}/admin/users/${readerId}`).set(reader), 200);
      for (const route of ADMIN_ROUTES.filter(
        ([method, path]) => !(method === 'get' && path.startsWith('/admin/users') && !path.endsWith('audit-events')),
      )) {
        expectCode(await send(t, route, readerId, reader), 403, 'permission_denied');
      }
    });

    it('an administrator gets 404 user_not_found for an id no account has, a UUID or not', async () => {
      const { t, admin } = await buildAdminApp(driver);
      for (const id of [UNKNOWN_ID, NOT_A_UUID]) {
        expectCode(await t.http.get(`${PREFIX}/admin/users/${id}`).set(admin), 404, 'user_not_found');
        expectCode(await t.http.post(`${PREFIX}/admin/users/${id}/disable`).set(admin).send({}), 404, 'user_not_found');
        expectCode(await t.http.delete(`${PREFIX}/admin/users/${id}`).set(admin), 404, 'user_not_found');
      }
    });
  });

for (const driver of DRIVERS)
  describe(`admin routes over HTTP: query parameters (${driver})`, () => {
    const BAD_USER_QUERIES: [Record<string, string>, string][] = [
      [{ limit: '0' }, 'limit'],
      [{ limit: '201' }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ limit: '1.5' }, 'limit'],
      [{ verified: 'yes' }, 'verified'],
      [{ disabled: '1' }, 'disabled'],
      [{ created_from: '2026-02-30' }, 'created_from'],
      [{ created_before: 'yesterday' }, 'created_before'],
      // Without an offset an instant would be read in the server's time zone.
      [{ created_before: '2026-01-01T00:00:00' }, 'created_before'],
      [{ prefix: 'a'.repeat(255) }, 'prefix'],
    ];

    it('refuses a bad value with validation_error naming the parameter, never repeating it', async () => {
      const { t, admin } = await buildAdminApp(driver);
      for (const [query, field] of BAD_USER_QUERIES) {
        const response = await t.http.get(`${PREFIX}/admin/users`).query(query).set(admin);
        expectCode(response, 400, 'validation_error');
        expect(response.body.detail.detail).to.equal('Invalid query parameters');
        expect(response.body.detail.errors.map((e: { field: string }) => e.field)).to.deep.equal([field]);
        const value = Object.values(query)[0];
        // A digit or two could be the message's own range; every other value must not come back.
        if (!/^\d+$/.test(value)) expect(response.text).to.not.include(value);
      }
      for (const query of [{ type: 'login,nonsense' }, { since: '2026-13-01' }, { limit: '500' }]) {
        const response = await t.http.get(`${PREFIX}/admin/audit-events`).query(query).set(admin);
        expectCode(response, 400, 'validation_error');
      }
      const repeated = await t.http.get(`${PREFIX}/admin/users?limit=5&limit=6`).set(admin);
      expectCode(repeated, 400, 'validation_error');
    });

    it('a cursor the list did not make is 400 invalid_cursor; a bad role name 400 invalid_role', async () => {
      const { t, admin } = await buildAdminApp(driver);
      for (const path of ['/admin/users', '/admin/audit-events']) {
        expectCode(
          await t.http.get(`${PREFIX}${path}`).query({ cursor: 'garbage!' }).set(admin),
          400,
          'invalid_cursor',
        );
      }
      expectCode(
        await t.http.get(`${PREFIX}/admin/users`).query({ role: 'no spaces' }).set(admin),
        400,
        'invalid_role',
      );
    });

    it('takes days and instants with offsets, true and false, and audit types repeated or comma-separated', async () => {
      const { t, admin } = await buildAdminApp(driver);
      const ok = [
        { created_from: '2020-01-01', created_before: '2999-12-31T23:59:59.999+02:00', verified: 'true' },
        { disabled: 'false', limit: '200', prefix: 'ROO' },
      ];
      for (const query of ok) {
        const response = await t.http.get(`${PREFIX}/admin/users`).query(query).set(admin);
        expectStatus(response, 200);
        expect(response.body.users.map((u: { username: string }) => u.username)).to.deep.equal(['root']);
      }
      const empty = await t.http.get(`${PREFIX}/admin/users`).query({ verified: 'false' }).set(admin);
      expectStatus(empty, 200, { users: [], next_cursor: null });
      for (const url of [
        '/admin/audit-events?type=login&type=admin.role_granted',
        '/admin/audit-events?type=login,admin.role_granted',
        '/admin/audit-events?type=login',
      ]) {
        const response = await t.http.get(PREFIX + url).set(admin);
        expectStatus(response, 200);
        const types = new Set(response.body.events.map((e: { type: string }) => e.type));
        expect(
          [...types].every((type) => type === 'login' || type === 'admin.role_granted'),
          url,
        ).to.equal(true);
        expect(types.has('login'), url).to.equal(true);
      }
    });
  });
