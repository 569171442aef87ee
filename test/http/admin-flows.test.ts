import { expect } from 'chai';
import type { Response } from 'supertest';
import { resolveAccountService } from '../../src/di/resolve';
import { ADMIN_ROLE, ALL_ADMIN_PERMISSIONS } from '../../src/services/admin-permissions';
import type { UserStore } from '../../src/services/user-store';
import { bearer, DRIVERS, OTHER_PASSWORD, PASSWORD, PREFIX, type Driver } from '../support/test-app';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';
import { expectAccountError } from '../support/expect-account-error';
import { buildAdminApp, expectCode, expectStatus, idOf, registerUnverified, type AdminApp } from './admin-support';

interface EventJson {
  id: string;
  at: string;
  type: string;
  outcome: string;
  actor: { type: string; id: string | null };
  subject_id: string | null;
  ip: string | null;
  request_id: string | null;
  details: Record<string, unknown> | null;
}

async function eventsOf(app: AdminApp, userId: string, query: Record<string, string> = {}): Promise<EventJson[]> {
  const response = await app.t.http.get(`${PREFIX}/admin/users/${userId}/audit-events`).query(query).set(app.admin);
  expectStatus(response, 200);
  return response.body.events as EventJson[];
}

/** The event of `type` written while answering `response`: it carries that request's id and client address. */
function eventFor(events: EventJson[], type: string, response: Response): EventJson {
  const requestId = response.headers['x-request-id'];
  const event = events.find((candidate) => candidate.type === type && candidate.request_id === requestId);
  expect(event, `${type} of request ${requestId} in ${JSON.stringify(events.map((e) => e.type))}`).to.not.equal(
    undefined,
  );
  expect(event!.ip).to.be.a('string');
  return event!;
}

/** What an admin flow runs; `store` absent means a fresh memory store. */
function adminFlows(driver: Driver, store: () => UserStore | undefined): void {
  it('disables an account signed in twice: both sessions die, the right password is refused; enabling lets it back', async () => {
    const app = await buildAdminApp(driver, store());
    const { t, admin, rootId } = app;
    await t.createUser('alice');
    const laptop = bearer(await t.login('alice'));
    const phone = bearer(await t.login('alice'));
    const aliceId = await idOf(app, 'alice');

    const before = await t.http.get(`${PREFIX}/admin/users/${aliceId}`).set(admin);
    expectStatus(before, 200);
    expect(before.body).to.deep.include({
      id: aliceId,
      username: 'alice',
      email: 'alice@example.com',
      verified: true,
      disabled: false,
      disabled_at: null,
      roles: [],
      permissions: [],
      second_factor: false,
      session_count: 2,
    });
    expect(before.body.last_sign_in_at).to.be.a('string');

    const disabled = await t.http.post(`${PREFIX}/admin/users/${aliceId}/disable`).set(admin);
    expectStatus(disabled, 200);
    expect(disabled.body).to.deep.include({ disabled: true, session_count: 0 });
    expect(Date.parse(disabled.body.disabled_at)).to.be.a('number').and.not.NaN;
    for (const session of [laptop, phone]) {
      expectCode(await t.http.get(`${PREFIX}/me`).set(session), 401, 'invalid_session_token');
    }
    const refused = await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: PASSWORD });
    expectCode(refused, 403, 'account_disabled');
    const wrong = await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: OTHER_PASSWORD });
    expectCode(wrong, 401, 'invalid_credentials');
    // Disabling again is no error and keeps the first instant.
    const again = await t.http.post(`${PREFIX}/admin/users/${aliceId}/disable`).set(admin);
    expectStatus(again, 200);
    expect(again.body.disabled_at).to.equal(disabled.body.disabled_at);
    const listed = await t.http.get(`${PREFIX}/admin/users`).query({ disabled: 'true' }).set(admin);
    expect(listed.body.users.map((u: { id: string }) => u.id)).to.deep.equal([aliceId]);

    const enabled = await t.http.post(`${PREFIX}/admin/users/${aliceId}/enable`).set(admin);
    expectStatus(enabled, 200);
    expect(enabled.body).to.deep.include({ disabled: false, disabled_at: null, session_count: 0 });
    const back = bearer(await t.login('alice'));
    expectStatus(await t.http.get(`${PREFIX}/me`).set(back), 200);
    // The old sessions stay ended.
    expectCode(await t.http.get(`${PREFIX}/me`).set(laptop), 401, 'invalid_session_token');

    const events = await eventsOf(app, aliceId);
    for (const [type, response] of [
      ['admin.user_disabled', disabled],
      ['admin.user_enabled', enabled],
    ] as const) {
      const event = eventFor(events, type, response);
      expect(event).to.deep.include({ outcome: 'success', actor: { type: 'admin', id: rootId }, subject_id: aliceId });
    }
    expect(events.map((event) => event.type)).to.include.members(['login', 'register', 'verify_email']);
    // Newest first.
    const instants = events.map((event) => Date.parse(event.at));
    expect(instants).to.deep.equal([...instants].sort((a, b) => b - a));
    const text = JSON.stringify(events);
    for (const secret of [
      PASSWORD,
      OTHER_PASSWORD,
      'alice@example.com',
      ...[laptop, phone, back].map((h) => h.Authorization.slice(7)),
    ]) {
      expect(text).to.not.include(secret);
    }
  });

  it('ends an account’s sessions and says how many', async () => {
    const app = await buildAdminApp(driver, store());
    const { t, admin, rootId } = app;
    await t.createUser('alice');
    const sessions = [bearer(await t.login('alice')), bearer(await t.login('alice')), bearer(await t.login('alice'))];
    const aliceId = await idOf(app, 'alice');
    const ended = await t.http.post(`${PREFIX}/admin/users/${aliceId}/sessions/end`).set(admin).send({});
    expectStatus(ended, 200, { detail: 'Sessions ended', ended: 3 });
    for (const session of sessions) {
      expectCode(await t.http.get(`${PREFIX}/me`).set(session), 401, 'invalid_session_token');
    }
    const event = eventFor(await eventsOf(app, aliceId), 'admin.sessions_ended', ended);
    expect(event.actor).to.deep.equal({ type: 'admin', id: rootId });
    expect(event.details).to.deep.include({ sessions_ended: 3 });
    expectStatus(await t.http.post(`${PREFIX}/admin/users/${aliceId}/sessions/end`).set(admin), 200, {
      detail: 'Sessions ended',
      ended: 0,
    });
  });

  it('pages through the accounts newest first while more register, each once', async () => {
    const app = await buildAdminApp(driver, store());
    const { t, admin } = app;
    for (let i = 0; i < 11; i++) await registerUnverified(t, `user${String(i).padStart(2, '0')}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string> = { limit: '4', ...(cursor ? { cursor } : {}) };
      const page = await t.http.get(`${PREFIX}/admin/users`).query(query).set(admin);
      expectStatus(page, 200);
      expect(page.body.users.length).to.be.at.most(4);
      seen.push(...page.body.users.map((u: { username: string }) => u.username));
      cursor = page.body.next_cursor;
      // Registered meanwhile: newer than every row of the list, so before its start, never in a later page.
      await registerUnverified(t, `late${pages}`);
      pages++;
    } while (cursor !== null);
    expect(pages).to.equal(3);
    expect(seen).to.have.length(12);
    expect(new Set(seen).size).to.equal(12);
    expect(seen.filter((name) => name.startsWith('late'))).to.deep.equal([]);
    expect([...seen].sort()).to.deep.equal(
      ['root', ...Array.from({ length: 11 }, (_, i) => `user${String(i).padStart(2, '0')}`)].sort(),
    );

    const unverified = await t.http
      .get(`${PREFIX}/admin/users`)
      .query({ verified: 'false', prefix: 'LATE' })
      .set(admin);
    expectStatus(unverified, 200);
    expect(unverified.body.users.map((u: { username: string }) => u.username).sort()).to.deep.equal([
      'late0',
      'late1',
      'late2',
    ]);
    expect(unverified.body.users[0]).to.have.all.keys(
      'id',
      'username',
      'email',
      'verified',
      'disabled',
      'created_at',
      'updated_at',
    );
    const byRole = await t.http.get(`${PREFIX}/admin/users`).query({ role: ADMIN_ROLE }).set(admin);
    expect(byRole.body.users.map((u: { username: string }) => u.username)).to.deep.equal(['root']);
  });

  it('verifies an address, resends a link, deletes an account; its events outlive it', async () => {
    const app = await buildAdminApp(driver, store());
    const { t, admin } = app;
    await registerUnverified(t, 'bob');
    const bobId = await idOf(app, 'bob');
    const sentBefore = t.sender.sent.length;
    expectStatus(await t.http.post(`${PREFIX}/admin/users/${bobId}/resend-verification`).set(admin), 202, {
      detail: 'A new verification link is on its way',
    });
    await t.accounts.drain();
    expect(t.sender.sent.length).to.be.above(sentBefore);
    expect(t.sender.lastToken('sendVerification', 'bob@example.com')).to.be.a('string');

    const verified = await t.http.post(`${PREFIX}/admin/users/${bobId}/verify-email`).set(admin);
    expectStatus(verified, 200);
    expect(verified.body.verified).to.equal(true);
    expectStatus(await t.http.post(`${PREFIX}/admin/users/${bobId}/verify-email`).set(admin), 200);
    expectCode(
      await t.http.post(`${PREFIX}/admin/users/${bobId}/resend-verification`).set(admin),
      400,
      'account_error',
    );
    expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(await t.login('bob'))), 200);

    // A second registration of bob's address cannot be marked verified: bob owns it now.
    await t.accounts.register({ username: 'bobby', email: 'bob@example.com', password: PASSWORD });
    const bobbyId = await idOf(app, 'bobby');
    expectCode(await t.http.post(`${PREFIX}/admin/users/${bobbyId}/verify-email`).set(admin), 409, 'address_owned');

    const deleted = await t.http.delete(`${PREFIX}/admin/users/${bobId}`).set(admin);
    expectStatus(deleted, 200, { detail: 'User deleted' });
    expectCode(await t.http.get(`${PREFIX}/admin/users/${bobId}`).set(admin), 404, 'user_not_found');
    expectCode(
      await t.http.post(`${PREFIX}/login`).send({ username: 'bob', password: PASSWORD }),
      401,
      'invalid_credentials',
    );
    const events = await eventsOf(app, bobId);
    eventFor(events, 'admin.user_deleted', deleted);
    expect(events.map((event) => event.type)).to.include.members([
      'admin.verification_resent',
      'admin.email_verified',
      'admin.user_deleted',
    ]);
    const filtered = await eventsOf(app, bobId, { type: 'admin.user_deleted,admin.email_verified', limit: '1' });
    expect(filtered.map((event) => event.type)).to.deep.equal(['admin.user_deleted']);
  });

  it('manages roles and permissions, and never lets the last administrator go', async () => {
    const app = await buildAdminApp(driver, store());
    const { t, admin, rootId } = app;
    await t.createUser('alice');
    const aliceId = await idOf(app, 'alice');
    // An administrator hands on only what it holds: the operator gives root the application's permission first.
    await t.accounts.access.createRole('publisher');
    await t.accounts.access.createPermission('posts.write');
    await t.accounts.access.grantPermission('publisher', 'posts.write');
    await t.accounts.access.grantRole('root', 'publisher');

    expectStatus(await t.http.post(`${PREFIX}/admin/roles`).set(admin).send({ name: 'editor' }), 201, {
      name: 'editor',
      created: true,
    });
    expectStatus(await t.http.post(`${PREFIX}/admin/roles`).set(admin).send({ name: 'editor' }), 200, {
      name: 'editor',
      created: false,
    });
    expectStatus(await t.http.post(`${PREFIX}/admin/permissions`).set(admin).send({ name: 'posts.read' }), 201, {
      name: 'posts.read',
      created: true,
    });
    expectCode(await t.http.post(`${PREFIX}/admin/roles`).set(admin).send({ name: 'no spaces' }), 400, 'invalid_role');
    expectCode(await t.http.post(`${PREFIX}/admin/roles`).set(admin).send({}), 400, 'validation_error');
    expectStatus(await t.http.put(`${PREFIX}/admin/roles/editor/permissions/posts.write`).set(admin), 200, {
      detail: 'Permission granted',
    });
    expectCode(
      await t.http.put(`${PREFIX}/admin/roles/editor/permissions/nothing.here`).set(admin),
      404,
      'unknown_permission',
    );
    const roles = await t.http.get(`${PREFIX}/admin/roles`).set(admin);
    expectStatus(roles, 200);
    expect(roles.body.roles).to.deep.include({ name: 'editor', permissions: ['posts.write'] });
    expect(roles.body.roles).to.deep.include({ name: ADMIN_ROLE, permissions: [...ALL_ADMIN_PERMISSIONS].sort() });
    const permissions = await t.http.get(`${PREFIX}/admin/permissions`).set(admin);
    expect(permissions.body.permissions).to.include.members(['posts.write', ...ALL_ADMIN_PERMISSIONS]);

    const granted = await t.http.put(`${PREFIX}/admin/users/${aliceId}/roles/editor`).set(admin);
    expectStatus(granted, 200, { roles: ['editor'] });
    expectCode(await t.http.put(`${PREFIX}/admin/users/${aliceId}/roles/ghost`).set(admin), 404, 'unknown_role');
    const alice = await t.http.get(`${PREFIX}/admin/users/${aliceId}`).set(admin);
    expect(alice.body).to.deep.include({ roles: ['editor'], permissions: ['posts.write'] });
    const event = eventFor(await eventsOf(app, aliceId), 'admin.role_granted', granted);
    expect(event).to.deep.include({ actor: { type: 'admin', id: rootId }, details: { role: 'editor' } });
    expectStatus(await t.http.delete(`${PREFIX}/admin/users/${aliceId}/roles/editor`).set(admin), 200, { roles: [] });
    expectStatus(await t.http.delete(`${PREFIX}/admin/roles/editor/permissions/posts.write`).set(admin), 200, {
      detail: 'Permission revoked',
    });

    // The last administrator: not revoked, disabled or deleted, and the role keeps its permissions. Nobody changes
    // their own roles over HTTP; the operator is refused the last administrator's role too.
    expectCode(
      await t.http.delete(`${PREFIX}/admin/users/${rootId}/roles/${ADMIN_ROLE}`).set(admin),
      403,
      'permission_denied',
    );
    await expectAccountError(t.accounts.access.revokeRole('root', ADMIN_ROLE), 'last_administrator');
    expectCode(await t.http.post(`${PREFIX}/admin/users/${rootId}/disable`).set(admin), 409, 'last_administrator');
    expectCode(await t.http.delete(`${PREFIX}/admin/users/${rootId}`).set(admin), 409, 'last_administrator');
    expectCode(
      await t.http.delete(`${PREFIX}/admin/roles/${ADMIN_ROLE}/permissions/${ALL_ADMIN_PERMISSIONS[0]}`).set(admin),
      409,
      'protected_permission',
    );
    // With a second administrator, the first may be stepped down (by the other: not by itself).
    expectStatus(await t.http.put(`${PREFIX}/admin/users/${aliceId}/roles/${ADMIN_ROLE}`).set(admin), 200, {
      roles: [ADMIN_ROLE],
    });
    const second = bearer(await t.login('alice'));
    expectStatus(await t.http.delete(`${PREFIX}/admin/users/${rootId}/roles/${ADMIN_ROLE}`).set(second), 200, {
      roles: ['publisher'],
    });
    expectCode(await t.http.get(`${PREFIX}/admin/users`).set(admin), 403, 'permission_denied');
  });

  it('reads the whole trail, by account and type, a page at a time', async () => {
    const app = await buildAdminApp(driver, store());
    const { t, admin, rootId } = app;
    await t.createUser('alice');
    await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: OTHER_PASSWORD }).expect(401);
    const aliceId = await idOf(app, 'alice');
    const failed = await t.http
      .get(`${PREFIX}/admin/audit-events`)
      .query({ user_id: aliceId, type: 'login' })
      .set(admin);
    expectStatus(failed, 200);
    expect(failed.body.events.map((e: EventJson) => [e.type, e.outcome, e.actor.type, e.subject_id])).to.deep.equal([
      ['login', 'wrong_password', 'anonymous', aliceId],
    ]);

    const all: EventJson[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: '2', ...(cursor ? { cursor } : {}) };
      const page = await t.http.get(`${PREFIX}/admin/audit-events`).query(query).set(admin);
      expectStatus(page, 200);
      all.push(...page.body.events);
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(new Set(all.map((event) => event.id)).size).to.equal(all.length);
    expect(all.map((event) => event.type)).to.include.members(['register', 'verify_email', 'login']);
    const whole = await t.http.get(`${PREFIX}/admin/audit-events`).query({ limit: '200' }).set(admin);
    // Each page read is recorded, newer than everything it listed: the whole trail is those reads, then the pages.
    const wholeEvents: EventJson[] = whole.body.events;
    const reads = wholeEvents.slice(0, wholeEvents.length - all.length);
    expect(reads.map((event) => [event.type, event.actor.id])).to.deep.equal(
      reads.map(() => ['admin.audit_read', rootId]),
    );
    expect(wholeEvents.slice(reads.length).map((event) => event.id)).to.deep.equal(all.map((event) => event.id));
    const rootOnly = await t.http.get(`${PREFIX}/admin/audit-events`).query({ user_id: rootId }).set(admin);
    expect(rootOnly.body.events.every((e: EventJson) => e.subject_id === rootId || e.actor.id === rootId)).to.equal(
      true,
    );
    const future = await t.http.get(`${PREFIX}/admin/audit-events`).query({ since: '2999-01-01' }).set(admin);
    expectStatus(future, 200, { events: [], next_cursor: null });
    const past = await t.http.get(`${PREFIX}/admin/audit-events`).query({ until: '2000-01-01T00:00:00Z' }).set(admin);
    expectStatus(past, 200, { events: [], next_cursor: null });
  });
}

for (const driver of DRIVERS)
  describe(`administration over HTTP (${driver}, memory store)`, () => {
    adminFlows(driver, () => undefined);
  });

for (const kind of TEST_STORES.filter((candidate) => candidate.name !== 'memory'))
  describe(`administration over HTTP (koa, ${kind.name} store)`, () => {
    let store: UserStore | undefined;
    freshStoreEachTest(kind, (opened) => {
      store = opened;
      // The mail and audit work a test leaves behind finishes before its store closes.
      return () => resolveAccountService().drain();
    });
    adminFlows('koa', () => store);
  });
