import { expect } from 'chai';
import type { Response } from 'supertest';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS, CLOCK } from '../../src/di/tokens';
import { resolveAccountService } from '../../src/di/resolve';
import { ADMIN_PERMISSIONS } from '../../src/services/admin-permissions';
import { mintApiKey } from '../../src/services/api-keys/api-key-format';
import type { UserStore } from '../../src/services/user-store';
import { CHEAP_HASHING } from '../support/fixtures';
import { DAY, ManualClock, MINUTE } from '../support/manual-clock';
import {
  bearer,
  buildTestApp,
  DRIVERS,
  PASSWORD,
  PREFIX,
  TEST_SECRET,
  type Driver,
  type TestApp,
} from '../support/test-app';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';
import { adminKeys, createKey, expectCode, expectKeyOfFormat, grantPermissions, keys, NOBODY } from './api-key-support';

const POSSESSION_ANSWER = { detail: 'If this was a live key, it is revoked' };

interface KeyApp {
  t: TestApp;
  clock: ManualClock;
  /** alice's session token; she holds posts.read and posts.write through `writer`. */
  alice: string;
}

/** The test app on `store` with a clock moved by hand and at most three live keys an account. */
async function buildKeyApp(driver: Driver, store: UserStore): Promise<KeyApp> {
  const t = buildTestApp({ driver, store });
  const clock = new ManualClock(Date.now());
  Container.set(CLOCK, clock);
  Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, hashing: CHEAP_HASHING, apiKeyMaxPerUser: 3 });
  // The routes resolve the service per request, rebuilt when the options change; the tests' handle too.
  t.accounts = resolveAccountService();
  await t.createUser('alice');
  await grantPermissions(t, 'alice', 'writer', ['posts.read', 'posts.write']);
  return { t, clock, alice: await t.login('alice') };
}

function expectValidation(response: Response, field: string): void {
  expectCode(response, 400, 'validation_error');
  expect(response.type).to.equal('application/json');
  const fields = (response.body.detail.errors as { field: string }[]).map((error) => error.field);
  expect(fields, response.text).to.include(field);
}

async function listOf(t: TestApp, token: string): Promise<Record<string, unknown>[]> {
  const response = await t.http.get(keys()).set(bearer(token));
  expect(response.status, response.text).to.equal(200);
  return response.body.api_keys as Record<string, unknown>[];
}

for (const kind of TEST_STORES)
  for (const driver of DRIVERS)
    describe(`API keys over HTTP (${kind.name}, ${driver})`, function () {
      this.timeout(60_000);
      let app: KeyApp;
      freshStoreEachTest(kind, async (store) => {
        app = await buildKeyApp(driver, store);
        return () => app.t.accounts.drain();
      });

      it('creates a key: 201, shown once with its prefix, length and CRC32; the list never shows it', async () => {
        const { t, alice, clock } = app;
        const created = await createKey(t, alice, { name: ' deploy ', scopes: ['posts.write', 'posts.read'] });
        const { key, api_key } = created;
        expect(Object.keys(created)).to.have.members(['key', 'api_key']);
        expectKeyOfFormat(key, 'gatehouse');
        const now = clock.now();
        // snake_case like every other answer of the API.
        expect(Object.keys(api_key)).to.have.members([
          'id',
          'name',
          'last_four',
          'scopes',
          'created_at',
          'expires_at',
          'expired',
          'last_used_at',
          'last_used_ip',
          'created_by',
        ]);
        expect(api_key).to.deep.include({
          name: 'deploy',
          last_four: key.slice(-4),
          scopes: ['posts.read', 'posts.write'],
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + 30 * DAY).toISOString(),
          expired: false,
          last_used_at: null,
          last_used_ip: null,
        });
        expect((api_key.created_by as { username: string }).username).to.equal('alice');

        const listing = await t.http.get(keys()).set(bearer(alice));
        expect(listing.status).to.equal(200);
        expect(Object.keys(listing.body)).to.deep.equal(['api_keys']);
        expect(listing.body.api_keys).to.deep.equal([api_key]);
        expect(listing.text, 'no part of the key but its last four').to.not.include(key.slice(0, -4));
        expect(Object.keys(listing.body.api_keys[0])).to.not.include.members(['key', 'keyHash', 'key_hash', 'hash']);

        await t.accounts.drain();
        expect(t.sender.of('apiKeyCreated' as never, 'alice@example.com')).to.have.length(1);
        // Two keys never repeat, and a second creation shows only its own key.
        const second = await createKey(t, alice, { name: 'other', scopes: ['posts.read'] });
        expect(second.key).to.not.equal(key);
        expect((await listOf(t, alice)).map((view) => view.name)).to.have.members(['deploy', 'other']);
      });

      it('lists the scopes a key may have: the caller’s permissions without gatehouse.*', async () => {
        const { t, alice } = app;
        await grantPermissions(t, 'alice', 'support', [ADMIN_PERMISSIONS.readUsers]);
        const response = await t.http.get(keys('/scopes')).set(bearer(alice));
        expect(response.status, response.text).to.equal(200);
        expect(response.body).to.deep.equal({ scopes: ['posts.read', 'posts.write'] });
      });

      it('needs a recently proved session: 403 reauthentication_required, and nothing is created', async () => {
        const { t, alice, clock } = app;
        clock.advance(11 * MINUTE);
        const refused = await t.http
          .post(keys())
          .set(bearer(alice))
          .send({ name: 'ci', scopes: ['posts.read'] });
        expectCode(refused, 403, 'reauthentication_required');
        expect(await listOf(t, alice)).to.deep.equal([]);
        await t.http.post(`${PREFIX}/reauthenticate`).set(bearer(alice)).send({ password: PASSWORD }).expect(200);
        await createKey(t, alice, { name: 'ci', scopes: ['posts.read'] });
      });

      it('refuses a scope the caller does not hold, a wildcard, gatehouse.* and none: 400 invalid_scope', async () => {
        const { t, alice } = app;
        await grantPermissions(t, 'alice', 'support', [ADMIN_PERMISSIONS.readUsers]);
        for (const scopes of [
          ['posts.delete'],
          ['posts.read', 'posts.delete'],
          ['*'],
          ['posts.*'],
          [ADMIN_PERMISSIONS.readUsers],
          [],
        ]) {
          const response = await t.http.post(keys()).set(bearer(alice)).send({ name: 'ci', scopes });
          expectCode(response, 400, 'invalid_scope');
        }
        expect(await listOf(t, alice)).to.deep.equal([]);
      });

      it('holds names and lifetimes to their bounds', async () => {
        const { t, alice, clock } = app;
        const send = (body: object) => t.http.post(keys()).set(bearer(alice)).send(body);
        for (const name of ['', '   ', 'x'.repeat(65), 'tab\there', 'line\nbreak']) {
          expectValidation(await send({ name, scopes: ['posts.read'] }), 'name');
        }
        for (const expires_in_days of [0, -1, 367, 100_000]) {
          expectCode(
            await send({ name: 'ci', scopes: ['posts.read'], expires_in_days }),
            400,
            'invalid_api_key_expiry',
          );
        }
        for (const expires_in_days of [1.5, '30', null, true]) {
          expectValidation(await send({ name: 'ci', scopes: ['posts.read'], expires_in_days }), 'expires_in_days');
        }
        expect(await listOf(t, alice)).to.deep.equal([]);
        const longest = await createKey(t, alice, {
          name: 'x'.repeat(64),
          scopes: ['posts.read'],
          expires_in_days: 366,
        });
        expect(longest.api_key.expires_at).to.equal(new Date(clock.now().getTime() + 366 * DAY).toISOString());
        const shortest = await createKey(t, alice, { name: 'short', scopes: ['posts.read'], expires_in_days: 1 });
        expect(shortest.api_key.expires_at).to.equal(new Date(clock.now().getTime() + DAY).toISOString());
        expectCode(await send({ name: 'short', scopes: ['posts.read'] }), 409, 'api_key_name_taken');
        // An expired key is listed as such, and its name is free again.
        clock.advance(DAY + MINUTE);
        await t.http.post(`${PREFIX}/reauthenticate`).set(bearer(alice)).send({ password: PASSWORD }).expect(200);
        const listed = await listOf(t, alice);
        expect(listed.find((view) => view.name === 'short')).to.include({ expired: true });
        await createKey(t, alice, { name: 'short', scopes: ['posts.read'] });
      });

      it('stops at the live-key limit: 409 api_key_limit_reached, until one is revoked', async () => {
        const { t, alice } = app;
        const made = [];
        for (const name of ['one', 'two', 'three'])
          made.push(await createKey(t, alice, { name, scopes: ['posts.read'] }));
        const refused = await t.http
          .post(keys())
          .set(bearer(alice))
          .send({ name: 'four', scopes: ['posts.read'] });
        expectCode(refused, 409, 'api_key_limit_reached');
        expect(await listOf(t, alice)).to.have.length(3);
        await t.http
          .delete(keys(`/${made[0].api_key.id as string}`))
          .set(bearer(alice))
          .expect(200);
        await createKey(t, alice, { name: 'four', scopes: ['posts.read'] });
      });

      it('revokes one key, then all: another’s, unknown and malformed ids are one 404', async () => {
        const { t, alice } = app;
        const one = await createKey(t, alice, { name: 'one', scopes: ['posts.read'] });
        await createKey(t, alice, { name: 'two', scopes: ['posts.read'] });
        await createKey(t, alice, { name: 'three', scopes: ['posts.read'] });
        const bob = await t.loginNewUser('bob');
        const id = one.api_key.id as string;
        expectCode(await t.http.delete(keys(`/${id}`)).set(bearer(bob)), 404, 'api_key_not_found');
        for (const other of [NOBODY, 'not-a-key-id']) {
          expectCode(await t.http.delete(keys(`/${other}`)).set(bearer(alice)), 404, 'api_key_not_found');
        }
        const revoked = await t.http.delete(keys(`/${id}`)).set(bearer(alice));
        expect(revoked.status, revoked.text).to.equal(200);
        expect(revoked.body).to.deep.equal({ detail: 'API key revoked' });
        expectCode(await t.http.delete(keys(`/${id}`)).set(bearer(alice)), 404, 'api_key_not_found');
        expect((await listOf(t, alice)).map((view) => view.name)).to.have.members(['two', 'three']);

        const all = await t.http.post(keys('/revoke-all')).set(bearer(alice)).send({});
        expect(all.status, all.text).to.equal(200);
        expect(all.body).to.deep.equal({ detail: '2 API keys revoked', revoked: 2 });
        expect(await listOf(t, alice)).to.deep.equal([]);
        expect((await t.http.post(keys('/revoke-all')).set(bearer(alice)).send({})).body.revoked).to.equal(0);
      });

      it('revokes by possession without a session, answering alike whatever was sent; the owner is mailed', async () => {
        const { t, alice } = app;
        const { key } = await createKey(t, alice, { name: 'leaked', scopes: ['posts.read'] });
        await t.accounts.drain();
        const flipped = key.slice(0, -7) + (key.at(-7) === 'a' ? 'b' : 'a') + key.slice(-6);
        for (const sent of [mintApiKey('gatehouse'), flipped, 'not a key at all', 'x'.repeat(200), key, key]) {
          const response = await t.http.post(keys('/revoke')).send({ key: sent });
          expect(response.status, response.text).to.equal(200);
          expect(response.body).to.deep.equal(POSSESSION_ANSWER);
        }
        expect(await listOf(t, alice)).to.deep.equal([]);
        await t.accounts.drain();
        expect(t.sender.of('apiKeyRevoked' as never, 'alice@example.com')).to.have.length(1);
        for (const body of [{}, { key: '' }, { key: 'x'.repeat(201) }, { key: 42 }, { key: null }, { key: [key] }]) {
          expectValidation(await t.http.post(keys('/revoke')).send(body), 'key');
        }
        // In the header a key is a credential, and Gatehouse's routes take none.
        const other = await createKey(t, alice, { name: 'kept', scopes: ['posts.read'] });
        const header = await t.http.post(keys('/revoke')).set(bearer(other.key)).send({ key: other.key });
        expectCode(header, 403, 'api_key_not_allowed');
        expect(await listOf(t, alice)).to.have.length(1);
      });

      it('keeps keys on a password change unless revoke_api_keys is true', async () => {
        const { t, alice } = app;
        await createKey(t, alice, { name: 'kept', scopes: ['posts.read'] });
        const change = (token: string, from: string, to: string, extra = {}) =>
          t.http
            .post(`${PREFIX}/password/change`)
            .set(bearer(token))
            .send({ old_password: from, new_password: to, ...extra });
        expectValidation(
          await change(alice, PASSWORD, 'quiet lantern over 7 rivers', { revoke_api_keys: 'yes' }),
          'revoke_api_keys',
        );
        await change(alice, PASSWORD, 'quiet lantern over 7 rivers').expect(200);
        const again = await t.login('alice', 'quiet lantern over 7 rivers');
        expect(await listOf(t, again)).to.have.length(1);
        await change(again, 'quiet lantern over 7 rivers', PASSWORD, { revoke_api_keys: true }).expect(200);
        expect(await listOf(t, await t.login('alice'))).to.deep.equal([]);
      });

      it('keeps keys on a password reset unless revoke_api_keys is true', async () => {
        const { t, alice } = app;
        await createKey(t, alice, { name: 'kept', scopes: ['posts.read'] });
        const reset = async (password: string, extra = {}) => {
          await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }).expect(200);
          await t.accounts.drain();
          const token = t.sender.lastToken('sendPasswordReset', 'alice@example.com');
          return t.http.post(`${PREFIX}/password-reset/confirm`).send({ token, new_password: password, ...extra });
        };
        expectValidation(await reset('quiet lantern over 7 rivers', { revoke_api_keys: 1 }), 'revoke_api_keys');
        expect((await reset('quiet lantern over 7 rivers')).status).to.equal(200);
        const after = await t.login('alice', 'quiet lantern over 7 rivers');
        expect(await listOf(t, after)).to.have.length(1);
        expect((await reset(PASSWORD, { revoke_api_keys: true })).status).to.equal(200);
        expect(await listOf(t, await t.login('alice'))).to.deep.equal([]);
      });

      it('refuses every malformed body with a 400 JSON naming the field, and creates nothing', async () => {
        const { t, alice } = app;
        const send = (body: unknown) =>
          t.http
            .post(keys())
            .set(bearer(alice))
            .send(body as object);
        const cases: [unknown, string][] = [
          [{ scopes: ['posts.read'] }, 'name'],
          [{ name: 42, scopes: ['posts.read'] }, 'name'],
          [{ name: 'ci' }, 'scopes'],
          [{ name: 'ci', scopes: 'posts.read' }, 'scopes'],
          [{ name: 'ci', scopes: [42] }, 'scopes'],
          [{ name: 'ci', scopes: [''] }, 'scopes'],
          [{ name: 'ci', scopes: ['x'.repeat(129)] }, 'scopes'],
          [{ name: 'ci', scopes: Array.from({ length: 65 }, (_, i) => `p${i}`) }, 'scopes'],
          [{ name: 'ci', scopes: null }, 'scopes'],
        ];
        for (const [body, field] of cases) expectValidation(await send(body), field);
        expectValidation(await send([{ name: 'ci', scopes: ['posts.read'] }]), 'body');
        const malformed = await t.http
          .post(keys())
          .set(bearer(alice))
          .set('Content-Type', 'application/json')
          .send('{"name": "ci",');
        expect(malformed.status).to.equal(400);
        expect(malformed.body.detail.code).to.be.a('string');
        expect(await listOf(t, alice)).to.deep.equal([]);
      });

      it('lets an administrator list and revoke an account’s keys, create service accounts and their keys', async () => {
        const { t, alice } = app;
        await t.createUser('root');
        await t.accounts.admin.makeAdministrator('root');
        await grantPermissions(t, 'root', 'reader', ['posts.read']);
        const root = await t.login('root');
        const aliceId = (await t.accounts.admin.userIdOf('alice')) as string;
        const mine = await createKey(t, alice, { name: 'one', scopes: ['posts.read'] });
        await createKey(t, alice, { name: 'two', scopes: ['posts.read'] });
        await t.accounts.drain();

        const listed = await t.http.get(adminKeys(aliceId)).set(bearer(root));
        expect(listed.status, listed.text).to.equal(200);
        expect(listed.body.api_keys.map((view: { name: string }) => view.name)).to.have.members(['one', 'two']);
        expect(listed.text).to.not.include(mine.key.slice(0, -4));
        expectCode(await t.http.get(adminKeys(NOBODY)).set(bearer(root)), 404, 'user_not_found');
        expectCode(await t.http.get(adminKeys(aliceId)).set(bearer(alice)), 403, 'permission_denied');

        const one = await t.http.delete(adminKeys(aliceId, `/${mine.api_key.id as string}`)).set(bearer(root));
        expect(one.status, one.text).to.equal(200);
        expectCode(
          await t.http.delete(adminKeys(aliceId, `/${mine.api_key.id as string}`)).set(bearer(root)),
          404,
          'api_key_not_found',
        );
        const all = await t.http.post(adminKeys(aliceId, '/revoke-all')).set(bearer(root)).send({});
        expect(all.body).to.deep.equal({ detail: '1 API key revoked', revoked: 1 });
        await t.accounts.drain();
        expect(t.sender.of('apiKeyRevoked' as never, 'alice@example.com')).to.have.length(2);

        // A person's keys are their own to create.
        const forAlice = await t.http
          .post(adminKeys(aliceId))
          .set(bearer(root))
          .send({ name: 'ci', scopes: ['posts.read'] });
        expectCode(forAlice, 409, 'not_a_service_account');

        const created = await t.http
          .post(`${PREFIX}/admin/service-accounts`)
          .set(bearer(root))
          .send({ username: 'robot', roles: ['reader'] });
        expect(created.status, created.text).to.equal(201);
        expect(created.body).to.deep.include({ username: 'robot', roles: ['reader'], disabled: false });
        expect(Object.keys(created.body)).to.have.members([
          'id',
          'username',
          'roles',
          'created_at',
          'created_by',
          'disabled',
        ]);
        // Under the usual grant rules: root cannot give a role carrying a permission root lacks.
        const tooStrong = await t.http
          .post(`${PREFIX}/admin/service-accounts`)
          .set(bearer(root))
          .send({ username: 'robot2', roles: ['writer'] });
        expectCode(tooStrong, 403, 'permission_denied');
        expect(created.body.created_by).to.deep.include({ username: 'root' });
        const robotId = created.body.id as string;
        const robots = await t.http.get(`${PREFIX}/admin/service-accounts`).set(bearer(root));
        expect(robots.body.service_accounts.map((view: { id: string }) => view.id)).to.deep.equal([robotId]);

        const robotKey = await t.http
          .post(adminKeys(robotId))
          .set(bearer(root))
          .send({ name: 'deploy', scopes: ['posts.read'], expires_in_days: 7 });
        expect(robotKey.status, robotKey.text).to.equal(201);
        expectKeyOfFormat(robotKey.body.key);
        expect(robotKey.body.api_key.expires_at).to.equal(new Date(app.clock.now().getTime() + 7 * DAY).toISOString());
        // The operator gives the robot posts.write, which root lacks: no administrator mints a key stronger than
        // themselves.
        await t.accounts.access.grantRole('robot', 'writer');
        const stronger = await t.http
          .post(adminKeys(robotId))
          .set(bearer(root))
          .send({ name: 'stronger', scopes: ['posts.write'] });
        expectCode(stronger, 400, 'invalid_scope');
        const robotKeys = await t.http.get(adminKeys(robotId)).set(bearer(root));
        expect(robotKeys.body.api_keys.map((view: { name: string }) => view.name)).to.deep.equal(['deploy']);

        // A service account signs in with nothing.
        expectCode(
          await t.http.post(`${PREFIX}/login`).send({ username: 'robot', password: PASSWORD }),
          401,
          'invalid_credentials',
        );
        for (const body of [
          {},
          { username: 42 },
          { username: 'robot2', roles: 'writer' },
          { username: 'r', roles: [7] },
        ]) {
          expectCode(
            await t.http.post(`${PREFIX}/admin/service-accounts`).set(bearer(root)).send(body),
            400,
            'validation_error',
          );
        }
      });
    });
