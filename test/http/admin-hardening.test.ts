import { expect } from 'chai';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { CLOCK } from '../../src/di/tokens';
import { ADMIN_PERMISSIONS, ADMIN_ROLE, ALL_ADMIN_PERMISSIONS } from '../../src/services/admin-permissions';
import type { UserStore } from '../../src/services/user-store';
import { ManualClock, MINUTE } from '../support/manual-clock';
import { bearer, DRIVERS, PASSWORD, PREFIX, type Driver } from '../support/test-app';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';
import { buildAdminApp, expectCode, expectStatus, idOf, registerUnverified, type AdminApp } from './admin-support';

// Issue 37, items 3 to 6: typed text stays out of the trail, list cursors are authenticated and bound, role
// management cannot escalate, and admin writes need a recently authenticated session.

type Method = 'get' | 'post' | 'put' | 'delete';

/** Every admin route that changes something, in an order where each succeeds on the world the test builds. */
function writeRoutes(victimId: string): [Method, string, object | undefined, number][] {
  return [
    ['post', '/admin/roles', { name: 'editor' }, 201],
    ['post', '/admin/permissions', { name: 'posts.read' }, 201],
    ['put', `/admin/roles/editor/permissions/${ADMIN_PERMISSIONS.readUsers}`, undefined, 200],
    ['delete', `/admin/roles/editor/permissions/${ADMIN_PERMISSIONS.readUsers}`, undefined, 200],
    ['put', `/admin/users/${victimId}/roles/editor`, undefined, 200],
    ['delete', `/admin/users/${victimId}/roles/editor`, undefined, 200],
    ['post', `/admin/users/${victimId}/resend-verification`, undefined, 202],
    ['post', `/admin/users/${victimId}/verify-email`, undefined, 200],
    ['post', `/admin/users/${victimId}/disable`, undefined, 200],
    ['post', `/admin/users/${victimId}/enable`, undefined, 200],
    ['post', `/admin/users/${victimId}/sessions/end`, undefined, 200],
    ['delete', `/admin/users/${victimId}`, undefined, 200],
  ];
}

function send(app: AdminApp, method: Method, path: string, body: object | undefined, auth = app.admin) {
  const call = app.t.http[method](`${PREFIX}${path}`).set(auth);
  return body === undefined ? call : call.send(body);
}

/** The whole audit table, as the store holds it, as one text. */
async function auditText(): Promise<string> {
  return JSON.stringify(await resolveAccountService().admin.listAuditEvents({ kind: 'operator' }, { limit: 200 }));
}

function hardening(driver: Driver, store: () => UserStore | undefined): void {
  it('admin writes need a recent proof of the session: each refused when stale, each done after re-authentication', async () => {
    const app = await buildAdminApp(driver, store());
    const clock = new ManualClock(Date.now());
    Container.set(CLOCK, clock);
    await registerUnverified(app.t, 'victim');
    const victimId = await idOf(app, 'victim');
    clock.advance(11 * MINUTE);

    for (const [method, path, body] of writeRoutes(victimId)) {
      expectCode(await send(app, method, path, body), 403, 'reauthentication_required');
    }
    // Nothing changed, and reading still needs no proof.
    const victim = await app.t.http.get(`${PREFIX}/admin/users/${victimId}`).set(app.admin);
    expectStatus(victim, 200);
    expect(victim.body).to.deep.include({ verified: false, disabled: false, roles: [] });
    const roles = await app.t.http.get(`${PREFIX}/admin/roles`).set(app.admin);
    expect(roles.body.roles.map((role: { name: string }) => role.name)).to.deep.equal([ADMIN_ROLE]);

    expectStatus(await app.t.http.post(`${PREFIX}/reauthenticate`).set(app.admin).send({ password: PASSWORD }), 200);
    for (const [method, path, body, status] of writeRoutes(victimId)) {
      expectStatus(await send(app, method, path, body), status);
    }
    expectCode(await app.t.http.get(`${PREFIX}/admin/users/${victimId}`).set(app.admin), 404, 'user_not_found');
    // The operator at the CLI is not asked.
    await resolveAccountService().admin.createRole({ kind: 'operator' }, 'by-the-operator');
  });

  it('a non-administrator with a stale session is refused for want of permission, not asked for a password', async () => {
    const app = await buildAdminApp(driver, store());
    const clock = new ManualClock(Date.now());
    Container.set(CLOCK, clock);
    await app.t.createUser('mallory');
    const mallory = bearer(await app.t.login('mallory'));
    clock.advance(11 * MINUTE);
    for (const [method, path, body] of writeRoutes(app.rootId)) {
      expectCode(await send(app, method, path, body, mallory), 403, 'permission_denied');
    }
  });

  it('escalation through each gatehouse permission is refused; nobody changes their own access', async () => {
    const app = await buildAdminApp(driver, store());
    const { t } = app;
    const core = resolveAccountService();
    await t.createUser('accomplice');
    const accompliceId = await idOf(app, 'accomplice');
    await core.access.createRole('empty');
    for (const permission of ALL_ADMIN_PERMISSIONS) {
      const holder = `holder-${permission.replace(/\./g, '-')}`;
      await core.access.createRole(holder);
      await core.access.grantPermission(holder, permission);
      const username = `m-${permission.replace(/\./g, '')}`.slice(0, 30);
      await t.createUser(username);
      await core.access.grantRole(username, holder);
      const mallory = bearer(await t.login(username));
      const malloryId = await idOf(app, username);
      const attempts: [Method, string][] = [
        ['put', `/admin/users/${malloryId}/roles/${ADMIN_ROLE}`],
        ['put', `/admin/users/${accompliceId}/roles/${ADMIN_ROLE}`],
        ['put', `/admin/roles/${holder}/permissions/${ADMIN_PERMISSIONS.deleteUsers}`],
        ['put', `/admin/roles/empty/permissions/${ADMIN_PERMISSIONS.deleteUsers}`],
        ['put', `/admin/roles/${holder}/permissions/${ADMIN_PERMISSIONS.manageRoles}`],
        ['delete', `/admin/users/${malloryId}/roles/${holder}`],
        ['delete', `/admin/roles/${holder}/permissions/${permission}`],
      ];
      for (const [method, path] of attempts) {
        expectCode(await send(app, method, path, undefined, mallory), 403, 'permission_denied');
      }
      const [mine, theirs] = await Promise.all([
        core.admin.getUser({ kind: 'operator' }, malloryId),
        core.admin.getUser({ kind: 'operator' }, accompliceId),
      ]);
      expect(mine.roles, permission).to.deep.equal([holder]);
      expect(mine.permissions, permission).to.deep.equal([permission]);
      expect(theirs.roles, permission).to.deep.equal([]);
      const summaries = await core.admin.listRoles({ kind: 'operator' });
      expect(summaries.find((role) => role.name === 'empty')?.permissions, permission).to.deep.equal([]);
      expect(summaries.find((role) => role.name === holder)?.permissions, permission).to.deep.equal([permission]);
      if (permission === ADMIN_PERMISSIONS.manageRoles) {
        // What it holds it may hand on: to another account, and to a role it does not hold.
        expectStatus(await send(app, 'put', `/admin/roles/empty/permissions/${permission}`, undefined, mallory), 200);
        expectStatus(await send(app, 'put', `/admin/users/${accompliceId}/roles/empty`, undefined, mallory), 200);
        expectStatus(await send(app, 'delete', `/admin/users/${accompliceId}/roles/empty`, undefined, mallory), 200);
        expectStatus(
          await send(app, 'delete', `/admin/roles/empty/permissions/${permission}`, undefined, mallory),
          200,
        );
      }
    }
    // A full administrator cannot change its own roles either.
    expectCode(
      await send(app, 'delete', `/admin/users/${app.rootId}/roles/${ADMIN_ROLE}`, undefined),
      403,
      'permission_denied',
    );
    expectCode(await send(app, 'put', `/admin/users/${app.rootId}/roles/empty`, undefined), 403, 'permission_denied');
  });

  it('list cursors: a real one pages; truncated, made-up, shifted, cross-list and other-filter ones are 400', async () => {
    const app = await buildAdminApp(driver, store());
    for (const name of ['amy', 'ann', 'abe']) await registerUnverified(app.t, name);
    const users = (query: Record<string, string>) =>
      app.t.http.get(`${PREFIX}/admin/users`).query(query).set(app.admin);
    const audit = (query: Record<string, string>) =>
      app.t.http.get(`${PREFIX}/admin/audit-events`).query(query).set(app.admin);

    const first = await users({ limit: '1', prefix: 'a' });
    expectStatus(first, 200);
    const cursor: string = first.body.next_cursor;
    expect(cursor).to.be.a('string').with.length.below(200);
    expectStatus(await users({ limit: '1', prefix: 'a', cursor }), 200);

    const [position, mac] = cursor.split('.');
    const [ms, id] = Buffer.from(position, 'base64url')
      .toString('utf8')
      .split(/\.(.*)/s);
    const shifted = `${Buffer.from(`${Number(ms) + 1}.${id}`).toString('base64url')}.${mac}`;
    const madeUp = `${Buffer.from(`${Date.now()}.${id}`).toString('base64url')}.${'A'.repeat(43)}`;
    const plain = Buffer.from(`${ms}.${id}`).toString('base64url');
    for (const forged of [cursor.slice(0, -1), cursor.slice(0, 20), shifted, madeUp, plain, `${cursor}A`]) {
      expectCode(await users({ limit: '1', prefix: 'a', cursor: forged }), 400, 'invalid_cursor');
    }
    // Bound to its filters and its list.
    expectCode(await users({ limit: '1', prefix: 'an', cursor }), 400, 'invalid_cursor');
    expectCode(await users({ limit: '1', cursor }), 400, 'invalid_cursor');
    expectCode(await audit({ limit: '1', cursor }), 400, 'invalid_cursor');

    const events = await audit({ limit: '1', user_id: app.rootId });
    const auditCursor: string = events.body.next_cursor;
    expect(auditCursor).to.be.a('string');
    expectStatus(await audit({ limit: '1', user_id: app.rootId, cursor: auditCursor }), 200);
    expectCode(await audit({ limit: '1', cursor: auditCursor }), 400, 'invalid_cursor');
    expectCode(
      await audit({ limit: '1', user_id: app.rootId, type: 'login', cursor: auditCursor }),
      400,
      'invalid_cursor',
    );
    expectCode(await users({ limit: '1', cursor: auditCursor }), 400, 'invalid_cursor');
    expectCode(
      await app.t.http
        .get(`${PREFIX}/admin/users/${app.rootId}/audit-events`)
        .query({ limit: '1', cursor: auditCursor, type: 'login' })
        .set(app.admin),
      400,
      'invalid_cursor',
    );
  });

  it('typed text on the audit routes leaves no trace in the trail; an account id is the subject', async () => {
    const app = await buildAdminApp(driver, store());
    const typed = ['someone@example.test', 'my password is hunter2', 'x'.repeat(100)];
    for (const text of typed) {
      const byPath = await app.t.http
        .get(`${PREFIX}/admin/users/${encodeURIComponent(text)}/audit-events`)
        .set(app.admin);
      expect([200, 400, 404], byPath.text).to.include(byPath.status);
      const byQuery = await app.t.http.get(`${PREFIX}/admin/audit-events`).query({ user_id: text }).set(app.admin);
      expect([200, 400], byQuery.text).to.include(byQuery.status);
    }
    const stored = await auditText();
    for (const text of ['someone@example.test', 'hunter2', 'x'.repeat(100)]) expect(stored).to.not.include(text);

    const real = await app.t.http.get(`${PREFIX}/admin/users/${app.rootId}/audit-events`).set(app.admin);
    expectStatus(real, 200);
    const reads = (await resolveAccountService().admin.listAuditEvents({ kind: 'operator' }, { limit: 200 })).items
      .filter((event) => event.type === 'admin.audit_read')
      .map((event) => event.subjectId);
    expect(reads[0]).to.equal(app.rootId);
    expect(reads.slice(1).every((subject) => subject === null)).to.equal(true);
  });
}

for (const driver of DRIVERS)
  describe(`admin hardening (${driver}, memory store)`, () => {
    hardening(driver, () => undefined);
  });

for (const kind of TEST_STORES.filter((candidate) => candidate.name !== 'memory'))
  describe(`admin hardening (koa, ${kind.name} store)`, () => {
    let store: UserStore | undefined;
    freshStoreEachTest(kind, (opened) => {
      store = opened;
      return () => resolveAccountService().drain();
    });
    hardening('koa', () => store);
  });
