import { expect } from 'chai';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { CLOCK } from '../../src/di/tokens';
import { DEFAULT_ACCOUNT_OPTIONS } from '../../src/services/account-options';
import { accountGuards } from '../../src/guards/account-guards';
import { generousRateLimits } from '../support/generous-rate-limits';
import type { RateLimitOptions } from '../../src/limits/rate-limit-options';
import Koa from 'koa';
import { BASE62, mintApiKey } from '../../src/services/api-keys/api-key-format';
import * as onKoa from '../../src/index';
import * as onExpress from '../../src/express';
import { OPERATOR } from '../../src/services/admin-views';
import type { UserStore } from '../../src/services/user-store';
import { controllersOnlyWhileRunning } from '../support/controller-metadata';
import { ManualClock, DAY, HOUR } from '../support/manual-clock';
import { bearer, buildTestApp, DRIVERS, type Driver, type HostApp, type TestApp, useServer } from '../support/test-app';
import { freshStoreEachTest, TEST_STORES, type TestStoreKind } from '../support/test-stores';
import { KeyRoutesController } from './fixtures/key-routes-controller';

function mountKeyRoutes(app: HostApp) {
  useServer(app, {
    controllers: [KeyRoutesController],
    middlewares: [class None {}],
    defaultErrorHandler: false,
    ...accountGuards({ controllers: [KeyRoutesController] }),
  });
}

const INVALID = { detail: { detail: 'The API key is invalid, expired or revoked', code: 'invalid_api_key' } };
const NOT_ALLOWED = {
  detail: { detail: 'This action needs a signed-in session, not an API key', code: 'api_key_not_allowed' },
};
const DENIED = { detail: { detail: 'Permission denied', code: 'permission_denied' } };

/** The key with one character of its random part changed: same shape, wrong checksum. */
function flipped(key: string): string {
  const at = key.indexOf('_') + 5;
  const replacement = BASE62[(BASE62.indexOf(key[at]) + 1) % BASE62.length];
  return key.slice(0, at) + replacement + key.slice(at + 1);
}

describe('API keys on host routes (accountGuards)', () => {
  controllersOnlyWhileRunning(KeyRoutesController);

  for (const driver of DRIVERS) for (const kind of TEST_STORES) describeKeyGuards(driver, kind);

  for (const driver of DRIVERS) {
    describe(`the hosted pages (${driver})`, () => {
      let t: TestApp;
      beforeEach(() => {
        t = buildTestApp({
          driver,
          mount: (app) => {
            if (app instanceof Koa) app.use(onKoa.accountPages({ prefix: '/auth' }));
            else app.use(onExpress.accountPages({ prefix: '/auth' }));
          },
        });
      });

      it('refuse a key-shaped bearer with 403 api_key_not_allowed, checksum good or bad, reading nothing', async () => {
        const key = mintApiKey('gatehouse');
        for (const token of [key, flipped(key)]) {
          t.calls.clear();
          const refused = await t.http.get('/auth/verify-email').set(bearer(token)).expect(403);
          expect(refused.body).to.deep.equal(NOT_ALLOWED);
          expect(refused.headers['content-type']).to.equal('application/json; charset=utf-8');
          expect(refused.headers['x-content-type-options']).to.equal('nosniff');
          expect(t.calls.size).to.equal(0);
        }
        // A key of another prefix is no key here; nor is a session token, nor no header.
        await t.http
          .get('/auth/verify-email')
          .set(bearer(mintApiKey('other')))
          .expect(200);
        await t.http
          .get('/auth/verify-email')
          .set(bearer('a'.repeat(43)))
          .expect(200);
        await t.http.get('/auth/verify-email').expect(200);
      });
    });
  }

  describe('how they decide (SQLite file)', () => {
    const sqlite = TEST_STORES.find((kind) => kind.name === 'SQLite')!;
    let t: TestApp;
    let key: string;

    freshStoreEachTest(sqlite, async (store) => {
      t = buildTestApp({ store });
      const session = await t.loginNewUser('alice');
      await t.accounts.access.createRole('reader');
      await t.accounts.access.createPermission('reports.read');
      await t.accounts.access.grantPermission('reader', 'reports.read');
      await t.accounts.access.grantRole('alice', 'reader');
      ({ key } = await t.accounts.apiKeys.create(session, { name: 'ci', scopes: ['reports.read'] }));
      // The first run of each statement compiles it (through Kysely, a promise), and the first request writes the
      // last use; the requests below need neither.
      await checkerFor(key, ['perm:reports.read']);
      await checkerFor(key, []);
      await resolveAccountService().drain();
      return () => resolveAccountService().drain();
    });

    function checkerFor(token: string, requirements: string[]) {
      const req = new IncomingMessage(new Socket());
      req.headers.authorization = `Bearer ${token}`;
      return accountGuards({ controllers: [] }).authorizationChecker(
        { request: req, response: new ServerResponse(req), context: undefined, next: undefined },
        requirements,
      );
    }

    it('answers a key within the call on SQLite with the limits in memory: no promise', () => {
      expect(checkerFor(key, ['perm:reports.read'])).to.equal(true);
      expect(checkerFor(key, [])).to.equal(true);
    });
  });
}).timeout(120_000);

function describeKeyGuards(driver: Driver, kind: TestStoreKind): void {
  describe(`(${driver}, ${kind.name})`, () => {
    let t: TestApp;
    let store: UserStore;
    let alice: string; // her session token
    let key: string;
    let keyId: string;

    freshStoreEachTest(kind, (opened) => {
      store = opened;
      return () => resolveAccountService().drain();
    });

    /** Alice holds reports.read and reports.write through `reader`; her key `ci` may use reports.read only. */
    async function start(rateLimits: RateLimitOptions = generousRateLimits()) {
      t = buildTestApp({ driver, store, rateLimits, mount: mountKeyRoutes });
      alice = await t.loginNewUser('alice');
      const access = t.accounts.access;
      await access.createRole('reader');
      for (const permission of ['reports.read', 'reports.write']) {
        await access.createPermission(permission);
        await access.grantPermission('reader', permission);
      }
      await access.grantRole('alice', 'reader');
      const created = await t.accounts.apiKeys.create(alice, { name: 'ci', scopes: ['reports.read'] });
      key = created.key;
      keyId = created.apiKey.id;
    }

    const get = (path: string, token?: string) => {
      const call = t.http.get(path);
      return token === undefined ? call : call.set(bearer(token));
    };

    /** Calls of the store, by name, made by `work` (after the background's writes of earlier requests). */
    async function storeCallsOf(work: () => Promise<unknown>): Promise<Map<string, number>> {
      await resolveAccountService().drain();
      t.calls.clear();
      await work();
      return new Map(t.calls);
    }

    describe('with the default budgets', () => {
      beforeEach(() => start());

      it('passes @Authorized() with a key: @CurrentUser is the owner, @CurrentCredential the key', async () => {
        const answer = await get('/api/any', key).expect(200);
        expect(answer.body).to.deep.equal({
          user: 'alice',
          credential: { kind: 'api_key', keyId, scopes: ['reports.read'] },
        });
        expect(answer.text).to.not.include(key);
        await get('/api/any', alice).expect(200, { user: 'alice', credential: { kind: 'session' } });
        await get('/api/optional').expect(200, { user: null, credential: null });
        await get('/api/optional', key).expect(200, {
          user: 'alice',
          credential: { kind: 'api_key', keyId, scopes: ['reports.read'] },
        });
        await get('/api/optional', flipped(key)).expect(200, { user: null, credential: null });
      });

      it("passes 'perm:x' for x in the key's scopes and held by the owner, in one read", async () => {
        const calls = await storeCallsOf(() => get('/api/reports', key).expect(200, { reports: [], owner: 'alice' }));
        expect(calls.get('apiKeys.check')).to.equal(1);
        expect([...calls.keys()].filter((name) => name !== 'apiKeys.check' && name !== 'apiKeys.touch')).to.deep.equal(
          [],
        );
      });

      it("refuses 'perm:x' outside the key's scopes with 403, though the owner holds it, reading nothing more", async () => {
        const calls = await storeCallsOf(async () => {
          const refused = await t.http.post('/api/reports').set(bearer(key)).expect(403);
          expect(refused.body).to.deep.equal(DENIED);
        });
        expect([...calls.keys()].filter((name) => name !== 'apiKeys.touch')).to.deep.equal(['apiKeys.check']);
        await get('/api/both', key).expect(403, DENIED);
        // The owner's session passes both.
        await t.http.post('/api/reports').set(bearer(alice)).expect(200, { written: true });
        await get('/api/both', alice).expect(200, { both: true });
      });

      it('checks a second permission of the route against the owner too', async () => {
        const both = await t.accounts.apiKeys.create(alice, {
          name: 'both',
          scopes: ['reports.read', 'reports.write'],
        });
        await get('/api/both', both.key).expect(200, { both: true });
        await t.accounts.access.revokePermission('reader', 'reports.write');
        await get('/api/both', both.key).expect(403, DENIED);
        await get('/api/reports', both.key).expect(200);
      });

      it("refuses a scope the owner lost at the key's very next request", async () => {
        await get('/api/reports', key).expect(200);
        await t.accounts.access.revokeRole('alice', 'reader');
        await get('/api/reports', key).expect(403, DENIED);
        // Still a valid key for what needs no permission.
        await get('/api/any', key).expect(200);
      });

      it("refuses keys on 'role:', 'mfa', 'session' and organization routes with 403, before any read", async () => {
        const paths = [
          '/api/role',
          '/api/mfa',
          '/api/session',
          '/api/reports-by-people',
          '/api/orgs/00000000-0000-4000-8000-000000000000/projects',
          '/api/settings',
        ];
        for (const path of paths) {
          const calls = await storeCallsOf(async () => {
            const refused = await get(path, key).expect(403);
            expect(refused.body, path).to.deep.equal(NOT_ALLOWED);
            expect(refused.headers['www-authenticate'], path).to.equal(undefined);
          });
          expect([...calls.keys()], path).to.deep.equal([]);
        }
        // A forged key (bad checksum) on them is refused as such.
        await get('/api/session', flipped(key)).expect(401, INVALID);
        // The routes take sessions as before.
        await get('/api/role', alice).expect(200, { role: true });
        await get('/api/session', alice).expect(200, { session: true });
        await get('/api/reports-by-people', alice).expect(200, { people: true });
        await get('/api/settings', alice).expect(200, { settings: true });
      });

      it('refuses a key with a flipped character with 401 invalid_api_key, without reading the store', async () => {
        const calls = await storeCallsOf(async () => {
          const refused = await get('/api/any', flipped(key)).expect(401);
          expect(refused.body).to.deep.equal(INVALID);
          expect(refused.headers['www-authenticate']).to.equal('Bearer');
        });
        expect([...calls.keys()]).to.deep.equal([]);
        // A string of another shape is a session token as before.
        const other = await get('/api/any', 'gatehouse_short').expect(401);
        expect(other.body.detail.code).to.equal('invalid_session_token');
      });

      it('answers expired, revoked and unknown keys and keys of disabled or deleted owners with one 401', async () => {
        const bodies = new Set<string>();
        const refuse = async (token: string) => {
          const refused = await get('/api/any', token).expect(401);
          expect(refused.body).to.deep.equal(INVALID);
          expect(refused.headers['www-authenticate']).to.equal('Bearer');
          bodies.add(refused.text);
        };
        // Revoked by the owner.
        await get('/api/any', key).expect(200);
        await t.accounts.apiKeys.revoke(alice, keyId);
        await refuse(key);
        // Well-formed, unknown.
        await refuse(mintApiKey('gatehouse'));
        // Expired: the clock moves past its day.
        const short = await t.accounts.apiKeys.create(alice, {
          name: 'short',
          scopes: ['reports.read'],
          expiresInDays: 1,
        });
        await get('/api/any', short.key).expect(200);
        const clock = new ManualClock(Date.now() + DAY + HOUR);
        Container.set(CLOCK, clock);
        await refuse(short.key);
        Container.remove(CLOCK);
        // Disabled owner: the store's mark alone (as a key read racing the disabling would see it) refuses it.
        const bob = await t.loginNewUser('bob');
        await t.accounts.access.grantRole('bob', 'reader');
        const bobs = await t.accounts.apiKeys.create(bob, { name: 'ci', scopes: ['reports.read'] });
        await get('/api/reports', bobs.key).expect(200);
        const bobId = (await store.users.findByUsernameKey('bob'))!.id;
        await store.transaction((tx) => tx.users.disable(bobId, new Date()));
        await refuse(bobs.key);
        // Disabled by an administrator (which revokes the keys too), and deleted.
        const carol = await t.loginNewUser('carol');
        const carols = await t.accounts.apiKeys
          .create(carol, { name: 'ci', scopes: ['reports.read'] })
          .catch(() => null);
        expect(carols, 'carol holds no permission: no key').to.equal(null);
        await t.accounts.access.grantRole('carol', 'reader');
        const carolKey = (await t.accounts.apiKeys.create(carol, { name: 'ci', scopes: ['reports.read'] })).key;
        const carolId = (await store.users.findByUsernameKey('carol'))!.id;
        await get('/api/any', carolKey).expect(200);
        await t.accounts.admin.disableUser(OPERATOR, carolId);
        await refuse(carolKey);
        const dave = await t.loginNewUser('dave');
        await t.accounts.access.grantRole('dave', 'reader');
        const daveKey = (await t.accounts.apiKeys.create(dave, { name: 'ci', scopes: ['reports.read'] })).key;
        await t.accounts.admin.deleteUser(OPERATOR, (await store.users.findByUsernameKey('dave'))!.id);
        await refuse(daveKey);
        await refuse(flipped(daveKey));
        expect(bodies.size).to.equal(1);
      });

      it('records the last use, with the address, at most once per interval', async () => {
        const clock = new ManualClock(Date.now());
        Container.set(CLOCK, clock);
        const calls = await storeCallsOf(async () => {
          for (let i = 0; i < 5; i++) await get('/api/reports', key).expect(200);
          // Requests arriving together read the same old last use: still one write.
          await Promise.all([1, 2, 3].map(() => get('/api/any', key).expect(200)));
          await resolveAccountService().drain();
        });
        expect(calls.get('apiKeys.touch')).to.equal(1);
        const [listed] = await store.apiKeys.list((await store.users.findByUsernameKey('alice'))!.id);
        expect(listed.lastUsedAt?.getTime()).to.equal(clock.now().getTime());
        expect(listed.lastUsedIp).to.match(/^(127\.0\.0\.1|::1)$/);
        // An interval later, the next use is written again.
        clock.advance(DEFAULT_ACCOUNT_OPTIONS.sessionRefreshIntervalMs);
        const later = await storeCallsOf(async () => {
          await get('/api/any', key).expect(200);
          await get('/api/any', key).expect(200);
          await resolveAccountService().drain();
        });
        expect(later.get('apiKeys.touch')).to.equal(1);
        Container.remove(CLOCK);
      });
    });

    describe('with small budgets', () => {
      beforeEach(() =>
        start({
          limits: {
            ...generousRateLimits().limits,
            'api-key.key': { points: 3, duration: 60 },
            'api-key-invalid.ip': { points: 2, duration: 60 },
          },
        }),
      );

      it("answers a key over its budget with 429 rate_limited and Retry-After, not 401; others' keys go on", async () => {
        for (let i = 0; i < 3; i++) await get('/api/any', key).expect(200);
        const limited = await get('/api/reports', key).expect(429);
        expect(limited.body.detail.code).to.equal('rate_limited');
        expect(Number(limited.headers['retry-after'])).to.be.within(1, 60);
        const other = await t.accounts.apiKeys.create(alice, { name: 'other', scopes: ['reports.read'] });
        await get('/api/any', other.key).expect(200);
        await get('/api/any', alice).expect(200);
      });

      it("refuses an address's keys before any read once it presented too many invalid ones", async () => {
        await get('/api/any', flipped(key)).expect(401, INVALID);
        await get('/api/any', mintApiKey('gatehouse')).expect(401, INVALID);
        const calls = await storeCallsOf(async () => {
          const limited = await get('/api/any', key).expect(429);
          expect(limited.body.detail.code).to.equal('rate_limited');
          expect(Number(limited.headers['retry-after'])).to.be.within(1, 60);
          await get('/api/session', key).expect(429);
        });
        expect([...calls.keys()]).to.deep.equal([]);
        // Sessions from that address are not a key's business.
        await get('/api/any', alice).expect(200);
      });
    });
  });
}
