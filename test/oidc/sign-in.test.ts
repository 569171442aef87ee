import { expect } from 'chai';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { CLOCK } from '../../src/di/tokens';
import { ManualClock } from '../support/manual-clock';
import type { TestOidcProvider } from '../support/oidc-provider';
import { secretOf, totpCode } from '../support/rfc6238';
import { bearer, buildTestApp, PASSWORD, PREFIX, type TestApp } from '../support/test-app';
import {
  callCallback,
  codeFor,
  configureOidc,
  exchange,
  fragmentOf,
  oidcOptions,
  startFlow,
  startLink,
  startTestProvider,
} from './oidc-support';

let counter = 0;
/** A fresh subject and address at the provider for each test. */
function person(idp: TestOidcProvider, claims: { email_verified?: unknown; amr?: string[]; email?: string } = {}) {
  counter += 1;
  const sub = `sub-${counter}-${Date.now()}`;
  const email = claims.email ?? `person${counter}@idp.example`;
  idp.addAccount({ sub, email, email_verified: true, ...claims });
  return { sub, email };
}

describe('sign-in with an OpenID provider, over HTTP against a real provider', function () {
  this.timeout(30_000);
  let idp: TestOidcProvider;
  let t: TestApp;
  let clock: ManualClock;

  before(async () => {
    idp = await startTestProvider();
  });
  after(async () => {
    await idp?.close();
  });
  beforeEach(() => {
    t = buildTestApp();
    clock = new ManualClock(new Date());
    Container.set(CLOCK, clock);
    configureOidc(oidcOptions(idp));
  });
  afterEach(async () => {
    await resolveAccountService().drain();
    Container.remove(CLOCK);
  });

  it('asks for a code with PKCE S256, a state, a nonce and the exact redirect URI, and binds the flow to the browser', async () => {
    const response = await t.http.get(`${PREFIX}/oidc/idp/start`).expect(302);
    const url = new URL(response.headers.location as string);
    expect(url.origin).to.equal(idp.issuer);
    expect(url.searchParams.get('response_type')).to.equal('code');
    expect(url.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(url.searchParams.get('code_challenge')).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).to.match(/^[A-Za-z0-9_-]{20,}$/);
    expect(url.searchParams.get('nonce')).to.match(/^[A-Za-z0-9_-]{20,}$/);
    expect(url.searchParams.get('redirect_uri')).to.equal('http://localhost:3000/auth/oidc/idp/callback');
    const cookie = [response.headers['set-cookie']].flat().find((c) => String(c).startsWith('gatehouse_oidc='));
    expect(cookie)
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Lax/i)
      .and.match(/Path=\/auth\/oidc\/idp\/callback/);
  });

  it('creates a verified account for a new identity, and its one-time code works once', async () => {
    const { sub, email } = person(idp);
    const code = await codeFor(t, idp, sub);
    const first = await exchange(t, code).expect(200);
    expect(first.body.access_token).to.be.a('string');
    const me = await t.http.get(`${PREFIX}/me`).set(bearer(first.body.access_token)).expect(200);
    expect(me.body.email).to.equal(email);
    const again = await exchange(t, code).expect(400);
    expect(again.body.detail.code).to.equal('invalid_oidc_code');
    // The same identity signs in to the same account the next time.
    const second = await exchange(t, await codeFor(t, idp, sub)).expect(200);
    const me2 = await t.http.get(`${PREFIX}/me`).set(bearer(second.body.access_token)).expect(200);
    expect(me2.body.id).to.equal(me.body.id);
  });

  it('gives no session to a replayed callback, nor to one without or with another browser’s cookie', async () => {
    const { sub } = person(idp);
    const flow = await startFlow(t);
    const callbackUrl = await idp.authorize(flow.authorizationUrl, { as: sub });
    const noCookie = await callCallback(t, callbackUrl).expect(400);
    expect(noCookie.body.detail.code).to.equal('oidc_flow_invalid');
    // That attempt consumed the flow: the right browser coming after finds nothing either.
    const replay = await callCallback(t, callbackUrl, flow.cookie).expect(400);
    expect(replay.body.detail.code).to.equal('oidc_flow_invalid');

    const other = await startFlow(t);
    const mine = await startFlow(t);
    const url = await idp.authorize(mine.authorizationUrl, { as: sub });
    const wrongBrowser = await callCallback(t, url, other.cookie).expect(400);
    expect(wrongBrowser.body.detail.code).to.equal('oidc_flow_invalid');
  });

  it('gives no session when the iss parameter is changed, or the code is forged', async () => {
    const { sub } = person(idp);
    const flow = await startFlow(t);
    idp.tamperNextIss('https://evil.example');
    const url = await idp.authorize(flow.authorizationUrl, { as: sub });
    const tampered = await callCallback(t, url, flow.cookie).expect(302);
    expect(fragmentOf(tampered.headers.location as string).get('error')).to.equal('provider_refused');

    const forged = await startFlow(t);
    const good = new URL(await idp.authorize(forged.authorizationUrl, { as: sub }));
    good.searchParams.set('code', 'forged-code-forged-code-forged-code');
    const response = await callCallback(t, good.href, forged.cookie).expect(302);
    expect(fragmentOf(response.headers.location as string).get('error')).to.equal('provider_refused');
  });

  it('sends a person who cancels at the provider back to the return page with an error, and no code', async () => {
    const { sub } = person(idp);
    const flow = await startFlow(t);
    const url = await idp.authorize(flow.authorizationUrl, { as: sub, deny: true });
    const response = await callCallback(t, url, flow.cookie).expect(302);
    const fragment = fragmentOf(response.headers.location as string);
    expect(fragment.get('error')).to.equal('cancelled');
    expect(fragment.get('code')).to.equal(null);
  });

  it('refuses an address outside the provider’s allowed domains, and a return URL outside the allow-list', async () => {
    configureOidc(oidcOptions(idp, { allowedEmailDomains: ['corp.example'] }));
    const outside = person(idp);
    const refused = await exchange(t, await codeFor(t, idp, outside.sub)).expect(403);
    expect(refused.body.detail.code).to.equal('email_domain_not_allowed');
    const inside = person(idp, { email: `inside${counter}@corp.example` });
    await exchange(t, await codeFor(t, idp, inside.sub)).expect(200);

    const elsewhere = await t.http
      .get(`${PREFIX}/oidc/idp/start`)
      .query({ return_to: 'https://evil.example/' })
      .expect(400);
    expect(elsewhere.body.detail.code).to.equal('return_url_not_allowed');
    expect(elsewhere.headers['set-cookie']).to.equal(undefined);
  });

  it('gives no session to a flow past its lifetime', async () => {
    configureOidc({ ...oidcOptions(idp), flowTtlMs: 60_000 });
    const { sub } = person(idp);
    const flow = await startFlow(t);
    const url = await idp.authorize(flow.authorizationUrl, { as: sub });
    clock.advance(60_001);
    const late = await callCallback(t, url, flow.cookie).expect(400);
    expect(late.body.detail.code).to.equal('oidc_flow_invalid');
  });

  for (const verified of [true, false]) {
    it(`answers link_required to an identity claiming an existing ${verified ? 'verified' : 'unverified'} user's address, and tells the owner`, async () => {
      const email = `owner${++counter}@example.com`;
      if (verified) await t.createUser(`owner${counter}`, email);
      else await t.http.post(`${PREFIX}/register`).send({ username: `owner${counter}`, email, password: PASSWORD });
      const { sub } = person(idp, { email: email.toUpperCase() });
      const code = await codeFor(t, idp, sub);
      const answer = await exchange(t, code).expect(409);
      expect(answer.body.detail.code).to.equal('link_required');
      expect(answer.body).not.to.have.property('access_token');
      await resolveAccountService().drain();
      expect(t.sender.of('oidcLinkRequired', email)).to.have.length(1);
      // Nothing was linked: the next try is refused the same way.
      await exchange(t, await codeFor(t, idp, sub)).expect(409);
    });
  }

  it('sends the usual verification mail when the provider does not vouch for the address', async () => {
    const { sub, email } = person(idp, { email_verified: 'true' });
    const answer = await exchange(t, await codeFor(t, idp, sub)).expect(403);
    expect(answer.body.detail.code).to.equal('unverified_user');
    await resolveAccountService().drain();
    const token = t.sender.lastToken('sendVerification', email);
    await t.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
    await exchange(t, await codeFor(t, idp, sub)).expect(200);
  });

  it('links only from a re-authenticated session, refuses an identity linked elsewhere with 409, and keeps the last way in', async () => {
    const owner = `linker${++counter}`;
    const token = await t.loginNewUser(owner);
    const { sub } = person(idp, { email: `someone-else${counter}@idp.example` });
    const flow = await startLink(t, token);
    const url = await idp.authorize(flow.authorizationUrl, { as: sub });
    const linked = await callCallback(t, url, flow.cookie).expect(302);
    const result = await exchange(t, fragmentOf(linked.headers.location as string).get('code')!).expect(200);
    expect(result.body.linked.provider).to.equal('idp');
    const identities = await t.http.get(`${PREFIX}/oidc/identities`).set(bearer(token)).expect(200);
    expect(identities.body.identities).to.have.length(1);
    await resolveAccountService().drain();
    expect(t.sender.of('oidcLinked')).to.have.length(1);

    // The identity now signs in to that account.
    const session = await exchange(t, await codeFor(t, idp, sub)).expect(200);
    const me = await t.http.get(`${PREFIX}/me`).set(bearer(session.body.access_token)).expect(200);
    expect(me.body.username).to.equal(owner);

    // Another account cannot take it.
    const other = await t.loginNewUser(`other${counter}`);
    const second = await startLink(t, other);
    const url2 = await idp.authorize(second.authorizationUrl, { as: sub });
    const taken = await callCallback(t, url2, second.cookie).expect(302);
    const refused = await exchange(t, fragmentOf(taken.headers.location as string).get('code')!).expect(409);
    expect(refused.body.detail.code).to.equal('identity_already_linked');
  });

  it('refuses to start a link from a session that has not re-authenticated recently', async () => {
    const token = await t.loginNewUser(`stale${++counter}`);
    clock.advance(11 * 60_000);
    const response = await t.http.post(`${PREFIX}/oidc/idp/link`).set(bearer(token)).send({}).expect(403);
    expect(response.body.detail.code).to.equal('reauthentication_required');
  });

  it('refuses to unlink the last way in, and unlinks once a password exists', async () => {
    const { sub, email } = person(idp);
    const session = await exchange(t, await codeFor(t, idp, sub)).expect(200);
    const token = session.body.access_token as string;
    const [identity] = (await t.http.get(`${PREFIX}/oidc/identities`).set(bearer(token)).expect(200)).body.identities;
    const refused = await t.http.delete(`${PREFIX}/oidc/identities/${identity.id}`).set(bearer(token)).expect(409);
    expect(refused.body.detail.code).to.equal('last_sign_in_method');
    // A password by the reset mail (an account made by a provider has none), then the identity can go.
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email });
    await resolveAccountService().drain();
    const reset = t.sender.lastToken('sendPasswordReset', email);
    await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token: reset, new_password: PASSWORD }).expect(200);
    const fresh = await exchange(t, await codeFor(t, idp, sub)).expect(200);
    await t.http.delete(`${PREFIX}/oidc/identities/${identity.id}`).set(bearer(fresh.body.access_token)).expect(204);
  });

  it('asks the account’s second factor unless the provider’s amr is trusted', async () => {
    const { sub } = person(idp, { amr: ['mfa'] });
    const session = await exchange(t, await codeFor(t, idp, sub)).expect(200);
    const secret = await turnOnTotp(t, session.body.access_token, clock);
    const challenged = await exchange(t, await codeFor(t, idp, sub)).expect(200);
    expect(challenged.body.second_factor_required).to.equal(true);
    expect(challenged.body).not.to.have.property('access_token');
    clock.advance(30_000);
    const answered = await t.http
      .post(`${PREFIX}/login/second-factor`)
      .send({ challenge_token: challenged.body.challenge_token, code: totpCode(secret, clock.now()) })
      .expect(200);
    expect(answered.body.access_token).to.be.a('string');
    const stepUp = await resolveAccountService().authenticateSession(answered.body.access_token);
    expect(stepUp?.methods).to.deep.equal(['fed', 'otp', 'mfa']);

    configureOidc(oidcOptions(idp, { trustedAmr: ['mfa'] }));
    const trusted = await exchange(t, await codeFor(t, idp, sub)).expect(200);
    expect(trusted.body.access_token).to.be.a('string');
  });

  it('answers 503 while the provider is down, and recovers by itself', async () => {
    // A provider this app has not used yet: discovery happens at the first start.
    const down = await startTestProvider();
    try {
      configureOidc(oidcOptions(down));
      await down.stop();
      const response = await t.http.get(`${PREFIX}/oidc/idp/start`).expect(503);
      expect(response.body.detail.code).to.equal('provider_unavailable');
      expect(response.headers['retry-after']).to.match(/^\d+$/);
      await down.start();
      let status = 0;
      for (let i = 0; i < 40 && status !== 302; i++) {
        status = (await t.http.get(`${PREFIX}/oidc/idp/start`)).status;
        if (status !== 302) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(status).to.equal(302);
    } finally {
      await down.close();
    }
  });
});

/** Enrols an authenticator app on the session's account; its secret. */
async function turnOnTotp(t: TestApp, token: string, clock: ManualClock): Promise<string> {
  const started = await t.http.post(`${PREFIX}/second-factor/totp`).set(bearer(token)).send({}).expect(200);
  const secret = (started.body.secret as string | undefined) ?? secretOf(started.body.uri as string);
  await t.http
    .post(`${PREFIX}/second-factor/totp/confirm`)
    .set(bearer(token))
    .send({ code: totpCode(secret, clock.now()) })
    .expect(200);
  return secret;
}
