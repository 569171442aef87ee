import { expect } from 'chai';
import type { Response } from 'supertest';
import { AccountError } from '../../src/errors/account-error';
import { OidcSignIn } from '../../src/services/oidc/oidc-sign-in';
import { bearer, buildTestApp, DRIVERS, PREFIX, type TestApp } from '../support/test-app';
import { configureOidc, SOME_ID, TEST_OIDC } from './http-oidc-support';

const codeOf = (response: Response) => (response.body as { detail?: { code?: string } }).detail?.code;

/** Replaces methods of the core's OpenID part for one test (restored after it), recording their arguments. */
function standIn(methods: Partial<Record<keyof OidcSignIn, (...args: never[]) => unknown>>) {
  const calls: { method: string; args: unknown[] }[] = [];
  for (const [name, body] of Object.entries(methods)) {
    (OidcSignIn.prototype as unknown as Record<string, unknown>)[name] = async (...args: never[]) => {
      calls.push({ method: name, args });
      return body!(...args);
    };
  }
  return calls;
}

const ORIGINALS = Object.fromEntries(
  Object.getOwnPropertyNames(OidcSignIn.prototype).map((name) => [
    name,
    (OidcSignIn.prototype as unknown as Record<string, unknown>)[name],
  ]),
);

const START = {
  authorizationUrl: 'https://id.corp.example/authorize?client_id=gatehouse&state=S1&code_challenge_method=S256',
  browserSecret: 'b'.repeat(43),
  cookiePath: '/auth/oidc/corp/callback',
};

// What the routes themselves do, on both drivers: the answers, the cookie, the redirects, and the refusals before
// the core is reached. Where a test needs the core's answer it stands in for it (the flows against a real provider
// are the service's and the browser journey's tests).
for (const driver of DRIVERS)
  describe(`OpenID providers over HTTP: the routes (${driver})`, () => {
    let t: TestApp;
    beforeEach(() => {
      t = buildTestApp({ driver });
    });
    afterEach(() => Object.assign(OidcSignIn.prototype, ORIGINALS));

    it('lists no provider when none is configured, and the configured ones by id and name only', async () => {
      const off = await t.http.get(`${PREFIX}/oidc/providers`).expect(200);
      expect(off.body).to.deep.equal({ providers: [] });
      expect(off.headers['cache-control']).to.equal('no-store');
      configureOidc();
      const on = await t.http.get(`${PREFIX}/oidc/providers`).expect(200);
      expect(on.body).to.deep.equal({
        providers: [
          { id: 'corp', name: 'Corp ID' },
          { id: 'github', name: 'GitHub' },
        ],
      });
      expect(on.text).to.not.include('secret');
    });

    it('answers 404 unknown_provider as JSON to a provider not configured, or an id of no possible provider', async () => {
      const session = bearer(await t.loginNewUser('alice'));
      for (const configured of [false, true]) {
        if (configured) configureOidc();
        for (const provider of ['nope', 'Corp', 'x'.repeat(33), '-corp', 'corp%00']) {
          for (const response of [
            await t.http.get(`${PREFIX}/oidc/${provider}/start`),
            await t.http.get(`${PREFIX}/oidc/${provider}/callback?state=s&code=c`),
            await t.http.post(`${PREFIX}/oidc/${provider}/link`).set(session).send({}),
          ]) {
            const what = `${configured} ${provider} ${response.text}`;
            expect(response.status, what).to.equal(404);
            expect(response.headers['content-type'], what).to.match(/^application\/json/);
            expect(codeOf(response), what).to.equal('unknown_provider');
            expect(response.headers['set-cookie'], what).to.equal(undefined);
          }
        }
      }
    });

    it('answers 401 without a bearer token where a session is read, configured or not', async () => {
      for (const configured of [false, true]) {
        if (configured) configureOidc();
        for (const response of [
          await t.http.post(`${PREFIX}/oidc/corp/link`).send({}),
          await t.http.get(`${PREFIX}/oidc/identities`),
          await t.http.delete(`${PREFIX}/oidc/identities/${SOME_ID}`),
        ]) {
          expect(response.status, `${configured} ${response.text}`).to.equal(401);
          expect(response.body).to.deep.equal({ detail: 'Not authenticated' });
        }
      }
    });

    it('refuses malformed and oversized input with 400 or 413, never 500', async () => {
      configureOidc();
      const session = bearer(await t.loginNewUser('alice'));
      const cases: [string, string, unknown][] = [
        ['post', '/oidc/exchange', {}],
        ['post', '/oidc/exchange', { code: 42 }],
        ['post', '/oidc/exchange', { code: '' }],
        ['post', '/oidc/exchange', { code: 'x'.repeat(129) }],
        ['post', '/oidc/exchange', { code: ['a'] }],
        ['post', '/oidc/exchange', [{ code: 'a' }]],
        ['post', '/oidc/corp/link', { return_to: 'https://a.example/'.padEnd(2049, 'x') }],
        ['post', '/oidc/corp/link', { return_to: 42 }],
      ];
      for (const [method, path, body] of cases) {
        const response = await t.http[method as 'post'](`${PREFIX}${path}`)
          .set(session)
          .send(body as object);
        expect(response.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).to.equal(400);
        expect(codeOf(response)).to.equal('validation_error');
      }
      const longReturn = encodeURIComponent(`https://a.example/${'x'.repeat(2100)}`);
      const query = await t.http.get(`${PREFIX}/oidc/corp/start?return_to=${longReturn}`);
      expect([query.status, codeOf(query)]).to.deep.equal([400, 'validation_error']);
      const twice = await t.http.get(`${PREFIX}/oidc/corp/start?return_to=a&return_to=b`);
      expect([twice.status, codeOf(twice)]).to.deep.equal([400, 'validation_error']);
      const huge = await t.http.post(`${PREFIX}/oidc/exchange`).send({ code: 'x'.repeat(200_000) });
      expect(huge.status).to.equal(413);
      const broken = await t.http.post(`${PREFIX}/oidc/exchange`).type('json').send('{"code":');
      expect([broken.status, codeOf(broken)]).to.deep.equal([400, 'malformed_json']);
      const oddCookie = await t.http
        .get(`${PREFIX}/oidc/nope/callback?state=%FF&code=${'x'.repeat(3000)}`)
        .set('Cookie', `gatehouse_oidc=${'%'.repeat(4000)}`);
      expect(oddCookie.status).to.equal(404);
    });

    it('starts a sign-in: 302 to the provider with the flow cookie, exactly scoped, and never cached', async () => {
      configureOidc();
      const calls = standIn({
        startSignIn: () => ({ ...START, expiresAt: new Date(Date.now() + 600_000), secure: false }),
      });
      const response = await t.http.get(
        `${PREFIX}/oidc/corp/start?return_to=${encodeURIComponent('http://localhost:3000/auth/oidc/return')}`,
      );
      expect(response.status).to.equal(302);
      expect(response.headers.location).to.equal(START.authorizationUrl);
      expect(response.headers['set-cookie']).to.deep.equal([
        `gatehouse_oidc=${START.browserSecret}; Path=/auth/oidc/corp/callback; Max-Age=600; HttpOnly; SameSite=Lax`,
      ]);
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(calls[0].args).to.deep.equal(['corp', 'http://localhost:3000/auth/oidc/return']);

      // Secure over https; no return_to is the core's default.
      standIn({ startSignIn: () => ({ ...START, expiresAt: new Date(Date.now() + 300_000), secure: true }) });
      const secure = await t.http.get(`${PREFIX}/oidc/corp/start`).expect(302);
      expect(secure.headers['set-cookie'][0]).to.match(/; Max-Age=(300|299); HttpOnly; SameSite=Lax; Secure$/);
    });

    it('the callback hands the core the registered URL with the query as received and the cookie, then clears it', async () => {
      configureOidc();
      const calls = standIn({ callback: () => ({ redirectTo: 'http://localhost:3000/auth/oidc/return#code=ONE' }) });
      const query = 'code=abc%2Bdef&state=S1&iss=https%3A%2F%2Fid.corp.example&session_state=x.y';
      const response = await t.http
        .get(`${PREFIX}/oidc/corp/callback?${query}`)
        // A client's Host and forwarding headers never become the URL the provider's answer is checked against.
        .set('Host', 'evil.example')
        .set('X-Forwarded-Host', 'evil.example')
        .set('X-Forwarded-Proto', 'https')
        .set('Cookie', `theme=dark; gatehouse_oidc=${START.browserSecret}; other=1`);
      expect(response.status).to.equal(302);
      expect(response.headers.location).to.equal('http://localhost:3000/auth/oidc/return#code=ONE');
      expect(response.headers['set-cookie']).to.deep.equal([
        'gatehouse_oidc=; Path=/auth/oidc/corp/callback; Max-Age=0; HttpOnly; SameSite=Lax',
      ]);
      expect(response.headers['referrer-policy']).to.equal('no-referrer');
      expect(response.headers['cache-control']).to.equal('no-store');
      const [provider, url, secret] = calls[0].args as [string, URL, string];
      expect(provider).to.equal('corp');
      expect(url.href).to.equal(`${TEST_OIDC.callbackBase}/oidc/corp/callback?${query}`);
      expect(secret).to.equal(START.browserSecret);

      // No cookie at all: the core is told so (and refuses the flow).
      const none = standIn({
        callback: () => {
          throw new AccountError('oidc_flow_invalid', 'No such flow');
        },
      });
      const refused = await t.http.get(`${PREFIX}/oidc/corp/callback?state=S1&code=c`);
      expect(refused.status).to.equal(400);
      expect(refused.headers['content-type']).to.match(/^application\/json/);
      expect(codeOf(refused)).to.equal('oidc_flow_invalid');
      expect(none[0].args[2]).to.equal(undefined);
    });

    it('answers 503 provider_unavailable with Retry-After', async () => {
      configureOidc();
      standIn({
        startSignIn: () => {
          throw new AccountError('provider_unavailable', 'The provider did not answer');
        },
      });
      const response = await t.http.get(`${PREFIX}/oidc/corp/start`);
      expect(response.status).to.equal(503);
      expect(codeOf(response)).to.equal('provider_unavailable');
      expect(Number(response.headers['retry-after'])).to.be.at.least(1);
      expect(response.headers['set-cookie']).to.equal(undefined);
    });

    it('the exchange answers exactly what POST /login answers, or the linked identity', async () => {
      configureOidc();
      const expiresAt = new Date('2026-11-28T10:00:00.000Z');
      const identity = {
        id: SOME_ID,
        provider: 'corp',
        providerName: 'Corp ID',
        email: 'alice@corp.example',
        linkedAt: '2026-11-28T09:00:00.000Z',
        lastUsedAt: null,
        configured: true,
      };
      const results = [
        { kind: 'session', token: 'a-session-token' },
        { kind: 'challenge', challengeToken: 'a-challenge', expiresAt, methods: ['totp', 'recovery_code'] },
        { kind: 'linked', identity },
      ];
      const answers: unknown[] = [];
      for (const result of results) {
        standIn({ exchange: () => result });
        answers.push((await t.http.post(`${PREFIX}/oidc/exchange`).send({ code: 'one-time' }).expect(200)).body);
      }
      expect(answers).to.deep.equal([
        { access_token: 'a-session-token', token_type: 'bearer' },
        {
          second_factor_required: true,
          challenge_token: 'a-challenge',
          expires_at: '2026-11-28T10:00:00.000Z',
          methods: ['totp', 'recovery_code'],
        },
        {
          linked: {
            id: SOME_ID,
            provider: 'corp',
            provider_name: 'Corp ID',
            email: 'alice@corp.example',
            linked_at: '2026-11-28T09:00:00.000Z',
            last_used_at: null,
            configured: true,
          },
        },
      ]);
      standIn({
        exchange: () => {
          throw new AccountError('link_required', 'An account holds this address');
        },
      });
      const linkRequired = await t.http.post(`${PREFIX}/oidc/exchange`).send({ code: 'one-time' });
      expect([linkRequired.status, codeOf(linkRequired)]).to.deep.equal([409, 'link_required']);
    });

    it('links, lists and unlinks with a session', async () => {
      configureOidc();
      const session = bearer(await t.loginNewUser('alice'));
      const calls = standIn({
        startLink: () => ({ ...START, expiresAt: new Date(Date.now() + 600_000), secure: false }),
        identities: () => [],
        unlink: () => undefined,
      });
      const link = await t.http
        .post(`${PREFIX}/oidc/corp/link`)
        .set(session)
        .send({ return_to: 'http://localhost:3000/auth/oidc/return' })
        .expect(200);
      expect(link.body).to.deep.equal({ authorization_url: START.authorizationUrl });
      expect(link.headers['set-cookie'][0]).to.match(/^gatehouse_oidc=b{43}; Path=\/auth\/oidc\/corp\/callback;/);
      expect(calls[0].args.slice(1)).to.deep.equal(['corp', 'http://localhost:3000/auth/oidc/return']);
      expect((await t.http.get(`${PREFIX}/oidc/identities`).set(session).expect(200)).body).to.deep.equal({
        identities: [],
      });
      await t.http.delete(`${PREFIX}/oidc/identities/${SOME_ID}`).set(session).expect(204);
      expect(calls.at(-1)!.args[1]).to.equal(SOME_ID);
      const badId = await t.http.delete(`${PREFIX}/oidc/identities/not-an-id`).set(session);
      expect([badId.status, codeOf(badId)]).to.deep.equal([404, 'identity_not_found']);
    });

    // These two need the core's OpenID part (they fail against its stub, which refuses every call as unknown).
    it('against the core: a return URL outside the allow-list is 400 return_url_not_allowed', async () => {
      configureOidc();
      const response = await t.http.get(
        `${PREFIX}/oidc/corp/start?return_to=${encodeURIComponent('https://evil.example/')}`,
      );
      expect([response.status, codeOf(response)]).to.deep.equal([400, 'return_url_not_allowed']);
      expect(response.headers['set-cookie']).to.equal(undefined);
    });

    it('against the core: a code it never made is 400 invalid_oidc_code', async () => {
      configureOidc();
      const response = await t.http.post(`${PREFIX}/oidc/exchange`).send({ code: 'x'.repeat(43) });
      expect([response.status, codeOf(response)]).to.deep.equal([400, 'invalid_oidc_code']);
    });
  });
