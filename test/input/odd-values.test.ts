import { expect } from 'chai';
import express from 'express';
import Koa from 'koa';
import { useContainer } from 'routing-controllers';
import request from 'supertest';
import { Container } from 'typedi';
import { accountApiDocument } from '../../src/app/account-api-document';
import { TRUSTED_PROXIES } from '../../src/di/tokens';
import * as onExpress from '../../src/express';
import { mountAccountRoutes } from '../../src/koa/mount-account-routes';
import { resolveAccountService } from '../../src/di/resolve';
import { ADMIN_PERMISSIONS, ADMIN_ROLE } from '../../src/services/admin-permissions';
import type { UserStore } from '../../src/services/user-store';
import { bearer, DRIVERS, handlerOf, PASSWORD, PREFIX, resetContainer, type Driver } from '../support/test-app';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';

// Values no parameter takes, as they arrive in a URL (already percent-encoded): a NUL byte alone and inside a value
// (PostgreSQL refuses NUL in text, 22021), values longer than any column (22001), byte sequences that are not
// UTF-8 (a lone continuation byte, a broken pair, an encoded lone surrogate, an over-long form), a bare `%`, and
// an encoded control character. Each must be a documented 4xx of its route, on every store: never a 5xx.
const ODD_VALUES = [
  '%00',
  'a%00b',
  `${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(11)}%00`,
  'x'.repeat(256),
  'x'.repeat(4000),
  '%FF',
  '%C3%28',
  '%ED%A0%80',
  '%C0%AF',
  '%',
  'a%0Ab',
  '%E2%80%AE',
];

interface Parameter {
  in: 'path' | 'query';
  name: string;
}
interface Operation {
  parameters?: Parameter[];
  'x-routed-as'?: string;
}

/** Every operation of the served document (pages and document included) with its path and query parameters. */
function parameterisedOperations(): { method: string; path: string; parameters: Parameter[] }[] {
  const document = accountApiDocument({ prefix: PREFIX, pages: true, apiDocs: true }) as {
    paths: Record<string, Record<string, Operation>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => method !== 'head')
      .map(([method, operation]) => ({ method, path, parameters: operation.parameters ?? [] }))
      .filter((operation) => operation.parameters.length > 0),
  );
}

/** The account routes with the pages and the document, as `mountAccountRoutes` puts them, on the given store. */
function buildApp(driver: Driver, store: UserStore) {
  const { sender } = resetContainer({ store });
  useContainer(Container);
  const mount = { prefix: PREFIX, pages: true, apiDocs: true };
  const app =
    driver === 'koa'
      ? mountAccountRoutes(new Koa(), mount)
      : onExpress.mountAccountRoutes(express(), mount).use(onExpress.gatehouseErrors());
  return { http: request(handlerOf(app)), accounts: resolveAccountService(), sender };
}

type App = ReturnType<typeof buildApp>;

async function signIn(app: App, username: string): Promise<string> {
  const email = `${username}@example.com`;
  await app.http.post(`${PREFIX}/register`).send({ username, email, password: PASSWORD }).expect(201);
  await app.accounts.drain();
  const token = app.sender.lastToken('sendVerification', email);
  await app.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
  const login = await app.http.post(`${PREFIX}/login`).send({ username, password: PASSWORD }).expect(200);
  return login.body.access_token as string;
}

for (const kind of TEST_STORES.filter((candidate) => candidate.name !== 'memory'))
  for (const driver of DRIVERS)
    describe(`Input rules: odd values in every parameter (${kind.name}, ${driver})`, function () {
      this.timeout(120_000);
      let app: App;
      freshStoreEachTest(kind, async (store) => {
        app = buildApp(driver, store);
        return () => app.accounts.drain();
      });
      afterEach(() => Container.remove(TRUSTED_PROXIES));

      it('answers NUL, over-long and non-UTF-8 values of every path and query parameter with a 4xx', async () => {
        const token = await signIn(app, 'root');
        expect(await app.accounts.admin.makeAdministrator('root')).to.equal(true);
        const rootId = await app.accounts.admin.userIdOf('root');
        // A well-formed value for each parameter beside the one under test, so that only that one is odd.
        const fine: Record<string, string> = {
          id: rootId,
          role: ADMIN_ROLE,
          permission: ADMIN_PERMISSIONS.readUsers,
          passkeyId: '00000000-0000-4000-8000-000000000000',
          provider: 'corp',
          orgId: '00000000-0000-4000-8000-000000000000',
          userId: rootId,
          invitationId: '00000000-0000-4000-8000-000000000000',
          keyId: '00000000-0000-4000-8000-000000000000',
        };
        const operations = parameterisedOperations();
        const names = operations.flatMap((operation) => operation.parameters.map((p) => `${p.in}:${p.name}`));
        // What the document says these routes read; a new parameter shows up here to be thought about.
        expect([...new Set(names)].sort()).to.include.members(['path:id', 'path:permission', 'path:role']);
        expect(names).to.include.members(['query:user_id', 'query:role', 'query:prefix', 'query:cursor']);
        let sent = 0;
        for (const { method, path, parameters } of operations) {
          for (const parameter of parameters) {
            for (const odd of ODD_VALUES) {
              let url = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
                if (name === parameter.name && parameter.in === 'path') return odd;
                expect(fine, `a well-formed ${name}`).to.have.property(name);
                return encodeURIComponent(fine[name]);
              });
              if (parameter.in === 'query') url += `?${parameter.name}=${odd}`;
              const call = (app.http as unknown as Record<string, (url: string) => request.Test>)[method](
                `${PREFIX}${url === '/' ? '' : url}`,
              );
              call.set(bearer(token));
              const response = await (method === 'get' ? call : call.send({}));
              sent++;
              expect(response.status, `${method.toUpperCase()} ${url}: ${response.text}`).to.be.within(200, 499);
            }
          }
        }
        expect(sent).to.be.above(300);
        // Nothing was changed on the way: root is still the administrator, signed in.
        const me = await app.http.get(`${PREFIX}/admin/users/${rootId}`).set(bearer(token)).expect(200);
        expect(me.body.roles).to.deep.equal([ADMIN_ROLE]);
      });

      it('refuses a malformed id before the store: 404 user_not_found or session_not_found, 400 for a filter', async () => {
        const token = await signIn(app, 'root');
        await app.accounts.admin.makeAdministrator('root');
        const rootId = await app.accounts.admin.userIdOf('root');
        for (const id of ['%00', 'a%00b', 'x'.repeat(256), rootId.toUpperCase().replace(/-/g, '')]) {
          const user = await app.http.get(`${PREFIX}/admin/users/${id}/audit-events`).set(bearer(token));
          expect(user.status, user.text).to.equal(404);
          expect(user.body.detail.code).to.equal('user_not_found');
          const grant = await app.http.put(`${PREFIX}/admin/users/${id}/roles/${ADMIN_ROLE}`).set(bearer(token));
          expect(grant.body.detail.code, grant.text).to.equal('user_not_found');
          const revoke = await app.http.delete(`${PREFIX}/admin/users/${id}/roles/${ADMIN_ROLE}`).set(bearer(token));
          expect(revoke.body.detail.code, revoke.text).to.equal('user_not_found');
          const session = await app.http.delete(`${PREFIX}/sessions/${id}`).set(bearer(token));
          expect(session.body.detail.code, session.text).to.equal('session_not_found');
          const filter = await app.http.get(`${PREFIX}/admin/audit-events?user_id=${id}`).set(bearer(token));
          expect(filter.status, filter.text).to.equal(400);
          expect(filter.body.detail.errors.map((e: { field: string }) => e.field)).to.deep.equal(['user_id']);
        }
        for (const role of ['%00', 'a%00b', 'x'.repeat(65)]) {
          const grant = await app.http.put(`${PREFIX}/admin/users/${rootId}/roles/${role}`).set(bearer(token));
          expect(grant.body.detail.code, grant.text).to.equal('invalid_role');
          const permission = await app.http
            .put(`${PREFIX}/admin/roles/${ADMIN_ROLE}/permissions/${role}`)
            .set(bearer(token));
          expect(permission.body.detail.code, permission.text).to.equal('invalid_permission');
        }
        // A path that is not UTF-8 is the same 400 on both drivers, whichever parameter holds it.
        for (const path of [`/admin/users/%FF`, `/admin/users/${rootId}/roles/%C3%28`, `/sessions/%ED%A0%80`]) {
          const response = await app.http.delete(`${PREFIX}${path}`).set(bearer(token));
          expect(response.status, response.text).to.equal(400);
          expect(response.body.detail.code).to.equal('bad_request');
        }
        // A well-formed id nobody has reads as before: an empty page of events.
        const unknown = '00000000-0000-4000-8000-000000000000';
        const events = await app.http.get(`${PREFIX}/admin/users/${unknown}/audit-events`).set(bearer(token));
        expect(events.status).to.equal(200);
        expect(events.body.events).to.deep.equal([]);
      });

      it('never takes a forwarded entry that is no IP address for the client, nor stores it', async () => {
        await signIn(app, 'root');
        await app.accounts.admin.makeAdministrator('root');
        Container.set(TRUSTED_PROXIES, ['loopback']);
        const garbage = ['x'.repeat(256), 'not-an-ip', 'unknown', '203.0.113.9:8080'];
        for (const entry of garbage) {
          const login = await app.http
            .post(`${PREFIX}/login`)
            .set('X-Forwarded-For', entry)
            .send({ username: 'root', password: PASSWORD });
          expect(login.status, login.text).to.equal(200);
        }
        const forwarded = await app.http
          .post(`${PREFIX}/login`)
          .set('X-Forwarded-For', '198.51.100.7')
          .send({ username: 'root', password: PASSWORD })
          .expect(200);
        const token = forwarded.body.access_token as string;
        const sessions = await app.http.get(`${PREFIX}/sessions`).set(bearer(token)).expect(200);
        const ips = (sessions.body.sessions as { ip_address: string | null }[]).map((session) => session.ip_address);
        // The garbage stood for nobody: the trusted hop that forwarded it (this test's client) is the address. The
        // first session was made before the proxy was trusted.
        expect(ips.sort()).to.deep.equal([...Array(5).fill('127.0.0.1'), '198.51.100.7']);
        const trail = await app.http.get(`${PREFIX}/admin/audit-events?limit=200`).set(bearer(token)).expect(200);
        for (const event of trail.body.events as { ip: string | null }[]) {
          expect(
            event.ip === null || ['127.0.0.1', '::ffff:127.0.0.1', '198.51.100.7'].includes(event.ip),
            event.ip!,
          ).to.equal(true);
        }
      });
    });
