import { expect } from 'chai';
import type { Response } from 'supertest';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { ACCOUNT_OPTIONS, CLOCK } from '../../src/di/tokens';
import { accountGuards } from '../../src/guards/account-guards';
import { requireChromium } from '../browser/chromium';
import { PostsController } from '../http/fixtures/posts-controller';
import { ManualClock, MINUTE } from '../support/manual-clock';
import { bearer, buildTestApp, PASSWORD, PREFIX, useServer, type HostApp, type TestApp } from '../support/test-app';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';
import { WebAuthnHarness } from '../support/virtual-authenticator';
import type { SqlUserStore } from '../../src/stores/sql/sql-user-store';

// Real ceremonies end to end: Chromium's virtual authenticator signs what Gatehouse's options ask, and the JSON it
// answers goes to the routes as a browser would send it. Nothing is mocked between them.

const START = Date.UTC(2026, 10, 28, 12, 0, 0);

function expectStatus(response: Response, status: number, code?: string): void {
  expect(response.status, response.text).to.equal(status);
  if (code !== undefined) expect(response.body.detail.code, response.text).to.equal(code);
}

function mountPosts(app: HostApp) {
  useServer(app, { controllers: [PostsController], middlewares: [class None {}], ...accountGuards() });
}

describe('passkeys: real ceremonies through Chromium’s virtual authenticator', function () {
  this.timeout(60_000);
  let webauthn: WebAuthnHarness;
  let elsewhere: WebAuthnHarness;

  before(async function () {
    requireChromium(this);
    webauthn = await WebAuthnHarness.start();
    // Same RP ID (localhost), another origin: what it signs was made on a page Gatehouse does not serve.
    elsewhere = await WebAuthnHarness.start();
  });

  after(async () => {
    await webauthn?.close();
    await elsewhere?.close();
  });

  for (const kind of TEST_STORES) {
    // Both drivers, one store each on top of Koa's two: the ceremonies are the same routes on either.
    const driver = kind.name === 'SQLite' ? 'express' : 'koa';
    describe(`on ${kind.name}, ${driver}`, () => {
      let t: TestApp;
      let clock: ManualClock;

      freshStoreEachTest(kind, async (store) => {
        t = buildTestApp({ store, mount: mountPosts, driver });
        clock = new ManualClock(START);
        Container.set(CLOCK, clock);
        Container.set(ACCOUNT_OPTIONS, {
          ...Container.get(ACCOUNT_OPTIONS),
          passkeys: { rpId: 'localhost', origins: [webauthn.origin] },
        });
        await webauthn.newAuthenticator();
        return () => resolveAccountService().drain();
      });

      const api = () => t.http;
      const accounts = () => resolveAccountService();

      async function signedIn(username: string): Promise<string> {
        const email = `${username}@example.com`;
        await api().post(`${PREFIX}/register`).send({ username, email, password: PASSWORD }).expect(201);
        await accounts().drain();
        const token = t.sender.lastToken('sendVerification', email);
        await api().post(`${PREFIX}/verify-email`).send({ token }).expect(200);
        const login = await api().post(`${PREFIX}/login`).send({ username, password: PASSWORD }).expect(200);
        return login.body.access_token as string;
      }

      async function addPasskey(token: string, name = 'Laptop', harness = webauthn): Promise<Response> {
        const options = await api().post(`${PREFIX}/passkeys/registration-options`).set(bearer(token));
        expectStatus(options, 200);
        const response = await harness.create(options.body);
        return api().post(`${PREFIX}/passkeys`).set(bearer(token)).send({ name, response });
      }

      async function assertion(harness = webauthn): Promise<unknown> {
        const options = await api().post(`${PREFIX}/passkeys/login-options`);
        expectStatus(options, 200);
        expect(options.body.allowCredentials ?? []).to.deep.equal([]);
        return harness.get(options.body);
      }

      it('adds a named passkey (discoverable, excluded next time) and lists it without its key', async () => {
        const token = await signedIn('alice');
        const added = await addPasskey(token);
        expectStatus(added, 201);
        expect(added.body).to.have.keys('id', 'name', 'created_at', 'last_used_at', 'device_type');
        expect(added.body.name).to.equal('Laptop');
        const options = await api().post(`${PREFIX}/passkeys/registration-options`).set(bearer(token)).expect(200);
        expect(options.body.authenticatorSelection.residentKey).to.equal('required');
        expect(options.body.excludeCredentials).to.have.length(1);
        const stored = (await t.store.passkeys.list((await t.store.users.findByUsernameKey('alice'))!.id))[0];
        expect(options.body.excludeCredentials[0].id).to.equal(stored.credentialId);
        // The user handle is random per account, never its id or address.
        expect(options.body.user.id).to.equal(stored.userHandle);
        expect(Buffer.from(stored.userHandle, 'base64url').toString()).to.not.include('alice');
        // The same authenticator refuses to make a second passkey for the account (excludeCredentials).
        let refused = false;
        await webauthn.create(options.body).catch(() => (refused = true));
        expect(refused).to.equal(true);
        const listed = await api().get(`${PREFIX}/passkeys`).set(bearer(token)).expect(200);
        expect(listed.body.passkeys).to.have.length(1);
        expect(JSON.stringify(listed.body)).to.not.include(stored.publicKey).and.not.include(stored.credentialId);
        await accounts().drain();
        expect(t.sender.sent.map((mail) => mail.operation)).to.include('passkeyAdded');
      });

      it('signs in with no username: a multi-factor session, one use per challenge', async () => {
        const token = await signedIn('bob');
        expectStatus(await addPasskey(token), 201);
        const response = await assertion();
        const first = await api().post(`${PREFIX}/passkeys/login`).send({ response });
        expectStatus(first, 200);
        expect(first.body.token_type).to.equal('bearer');
        await api().get(`${PREFIX}/me`).set(bearer(first.body.access_token)).expect(200);
        // The passkey verified the person: two factors in one, so the 'mfa' guard lets the session through.
        await api().get('/posts/vault').set(bearer(first.body.access_token)).expect(200);
        // The same assertion again: its challenge was spent.
        expectStatus(await api().post(`${PREFIX}/passkeys/login`).send({ response }), 401, 'invalid_credentials');
      });

      it('lets exactly one of two racing verifies of one challenge through', async () => {
        const token = await signedIn('carol');
        expectStatus(await addPasskey(token), 201);
        const response = await assertion();
        const answers = await Promise.all([
          api().post(`${PREFIX}/passkeys/login`).send({ response }),
          api().post(`${PREFIX}/passkeys/login`).send({ response }),
        ]);
        expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 401]);
      });

      it('refuses an assertion made on another origin, and one without user verification', async () => {
        const token = await signedIn('dave');
        expectStatus(await addPasskey(token), 201);
        // The credential lives in the first authenticator: copy it to the other origin's, same RP ID.
        for (const credential of await webauthn.credentials()) await elsewhere.addCredential(credential);
        const foreign = await assertion(elsewhere);
        expectStatus(
          await api().post(`${PREFIX}/passkeys/login`).send({ response: foreign }),
          401,
          'invalid_credentials',
        );

        // A client that rewrote the options to ask for no verification: the flags say so, and that is refused.
        const options = (await api().post(`${PREFIX}/passkeys/login-options`).expect(200)).body;
        await webauthn.setUserVerified(false);
        const presenceOnly = await webauthn.get({ ...options, userVerification: 'discouraged' });
        await webauthn.setUserVerified(true);
        expectStatus(
          await api().post(`${PREFIX}/passkeys/login`).send({ response: presenceOnly }),
          401,
          'invalid_credentials',
        );
      });

      it('refuses a restored copy with a lower counter, audits it and tells the owner', async () => {
        const token = await signedIn('erin');
        expectStatus(await addPasskey(token), 201);
        const [saved] = await webauthn.credentials();
        for (let i = 0; i < 2; i++) {
          expectStatus(
            await api()
              .post(`${PREFIX}/passkeys/login`)
              .send({ response: await assertion() }),
            200,
          );
        }
        await webauthn.newAuthenticator();
        await webauthn.addCredential(saved);
        const cloned = await assertion();
        expectStatus(
          await api().post(`${PREFIX}/passkeys/login`).send({ response: cloned }),
          401,
          'invalid_credentials',
        );
        await accounts().drain();
        const events = await t.store.audit.list({ types: ['passkey_clone_suspected'], limit: 10 });
        expect(events).to.have.length(1);
        expect(events[0].outcome).to.equal('refused');
        expect(t.sender.sent.map((mail) => mail.operation)).to.include('passkeyCloneSuspected');
      });

      it('answers a password sign-in’s second-factor challenge with a passkey', async () => {
        const token = await signedIn('frank');
        expectStatus(await addPasskey(token), 201);
        const login = await api().post(`${PREFIX}/login`).send({ username: 'frank', password: PASSWORD });
        expectStatus(login, 200);
        expect(login.body.second_factor_required).to.equal(true);
        expect(login.body.methods).to.deep.equal(['passkey']);
        const options = await api()
          .post(`${PREFIX}/passkeys/second-factor-options`)
          .send({ challenge_token: login.body.challenge_token });
        expectStatus(options, 200);
        expect(options.body.allowCredentials).to.have.length(1);
        const response = await webauthn.get(options.body);
        const done = await api()
          .post(`${PREFIX}/passkeys/second-factor`)
          .send({ challenge_token: login.body.challenge_token, response });
        expectStatus(done, 200);
        await api().get('/posts/vault').set(bearer(done.body.access_token)).expect(200);
      });

      it('re-authenticates a session with a passkey without making a new one, before a removal', async () => {
        const token = await signedIn('grace');
        const added = await addPasskey(token);
        expectStatus(added, 201);
        const id = added.body.id as string;
        clock.advance(30 * MINUTE);
        expectStatus(
          await api().delete(`${PREFIX}/passkeys/${id}`).set(bearer(token)),
          403,
          'reauthentication_required',
        );
        const sessionsBefore = (await api().get(`${PREFIX}/sessions`).set(bearer(token)).expect(200)).body;
        const options = await api().post(`${PREFIX}/passkeys/reauthentication-options`).set(bearer(token));
        expectStatus(options, 200);
        const response = await webauthn.get(options.body);
        const reauthenticated = await api()
          .post(`${PREFIX}/passkeys/reauthenticate`)
          .set(bearer(token))
          .send({ response });
        expect(reauthenticated.status, reauthenticated.text).to.be.oneOf([200, 204]);
        const sessionsAfter = (await api().get(`${PREFIX}/sessions`).set(bearer(token)).expect(200)).body;
        expect(sessionsAfter.sessions ?? sessionsAfter).to.have.length(
          (sessionsBefore.sessions ?? sessionsBefore).length,
        );
        expectStatus(await api().delete(`${PREFIX}/passkeys/${id}`).set(bearer(token)), 204);
        await accounts().drain();
        expect(t.sender.sent.map((mail) => mail.operation)).to.include('passkeyRemoved');
        // The last second factor went with it: password sign-in asks for nothing more.
        const login = await api().post(`${PREFIX}/login`).send({ username: 'grace', password: PASSWORD }).expect(200);
        expect(login.body.access_token).to.be.a('string');
      });

      // An account without a password is what a provider identity will make; today only the database can: SQL here.
      if (kind.name !== 'memory') {
        it('refuses to remove the last way in, and lets the operator remove it', async () => {
          const token = await signedIn('heidi');
          const added = await addPasskey(token);
          expectStatus(added, 201);
          const user = (await t.store.users.findByUsernameKey('heidi'))!;
          const { db } = t.store as unknown as SqlUserStore;
          await db.deleteFrom('credentials').where('user_id', '=', user.id).where('kind', '=', 'password').execute();
          const remove = await api().delete(`${PREFIX}/passkeys/${added.body.id}`).set(bearer(token));
          expectStatus(remove, 409, 'last_sign_in_method');
          expect(await t.store.passkeys.count(user.id)).to.equal(1);
          await accounts().passkeys.removeOf({ kind: 'operator' }, user.id, added.body.id);
          expect(await t.store.passkeys.count(user.id)).to.equal(0);
        });
      }
    });
  }
});
