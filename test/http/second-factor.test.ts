import { expect } from 'chai';
import type { Response } from 'supertest';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { CLOCK } from '../../src/di/tokens';
import { accountGuards } from '../../src/guards/account-guards';
import { ManualClock, MINUTE } from '../support/manual-clock';
import { secretOf, totpCode } from '../support/rfc6238';
import {
  bearer,
  buildTestApp,
  DRIVERS,
  OTHER_PASSWORD,
  PASSWORD,
  PREFIX,
  useServer,
  type Driver,
  type HostApp,
  type TestApp,
} from '../support/test-app';
import { PostsController } from './fixtures/posts-controller';

const STEP = 30_000;
/** 10 s into a 30-second step, so a step of drift either way is unambiguous. */
const START = Date.UTC(2026, 10, 25, 12, 0, 10);
const RECOVERY_CODE = /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/;

function expectStatus(response: Response, status: number, code?: string): void {
  expect(response.status, response.text).to.equal(status);
  if (code !== undefined) expect(response.body.detail.code, response.text).to.equal(code);
}

function mountPosts(app: HostApp) {
  useServer(app, { controllers: [PostsController], middlewares: [class None {}], ...accountGuards() });
}

interface World {
  t: TestApp;
  clock: ManualClock;
}

/** The test app with a host route behind `@Authorized('mfa')` and a clock the test moves. */
function world(driver: Driver): World {
  const t = buildTestApp({ driver, mount: mountPosts });
  const clock = new ManualClock(START);
  Container.set(CLOCK, clock);
  return { t, clock };
}

/** Registers and verifies over HTTP, draining the service built with the clock. */
async function createUser({ t }: World, username: string): Promise<string> {
  const email = `${username}@example.com`;
  await t.http.post(`${PREFIX}/register`).send({ username, email, password: PASSWORD }).expect(201);
  await resolveAccountService().drain();
  const token = t.sender.lastToken('sendVerification', email);
  await t.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
  await resolveAccountService().drain();
  return email;
}

const login = ({ t }: World, username = 'alice', password = PASSWORD) =>
  t.http.post(`${PREFIX}/login`).send({ username, password });

/** A password-only login: the session token. */
async function sessionOf(w: World, username = 'alice'): Promise<string> {
  const response = await login(w, username);
  expectStatus(response, 200);
  expect(Object.keys(response.body).sort()).to.deep.equal(['access_token', 'token_type']);
  return response.body.access_token as string;
}

/** A login of an account with a factor: the challenge token. */
async function challengeOf(w: World, username = 'alice', password = PASSWORD): Promise<string> {
  const response = await login(w, username, password);
  expectStatus(response, 200);
  expect(response.body).to.not.have.property('access_token');
  expect(response.body.second_factor_required).to.equal(true);
  return response.body.challenge_token as string;
}

const answer = ({ t }: World, body: object) => t.http.post(`${PREFIX}/login/second-factor`).send(body);
const status = ({ t }: World, token: string) => t.http.get(`${PREFIX}/second-factor`).set(bearer(token));
const manage = ({ t }: World, token: string, path: string, body: object = {}) =>
  t.http.post(`${PREFIX}/second-factor${path}`).set(bearer(token)).send(body);
const vault = ({ t }: World, token: string) => t.http.get('/posts/vault').set(bearer(token));

/** Enrols alice's authenticator on `session`; the secret and the recovery codes. */
async function enrol(
  w: World,
  session: string,
  confirmBody: object = {},
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await manage(w, session, '/totp');
  expectStatus(started, 200);
  const secret = started.body.secret as string;
  const confirmed = await manage(w, session, '/totp/confirm', {
    code: totpCode(secret, w.clock.now()),
    ...confirmBody,
  });
  expectStatus(confirmed, 200);
  await resolveAccountService().drain();
  return { secret, recoveryCodes: confirmed.body.recovery_codes as string[] };
}

describe('the tests’ own RFC 6238 codes', () => {
  it('agree with the SHA-1 test vectors of RFC 6238 appendix B (their last six digits)', () => {
    // The RFC's seed "12345678901234567890" in base32.
    const seed = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    const vectors: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [seconds, code] of vectors) expect(totpCode(seed, new Date(seconds * 1000))).to.equal(code.slice(2));
  });
});

for (const driver of DRIVERS)
  describe(`second factor over HTTP (${driver})`, function () {
    this.timeout(20_000);
    let w: World;

    beforeEach(async () => {
      w = world(driver);
      await createUser(w, 'alice');
    });

    afterEach(() => Container.remove(CLOCK));

    it('an account without a factor logs in exactly as before: a token, nothing else', async () => {
      const response = await login(w);
      expectStatus(response, 200);
      expect(Object.keys(response.body).sort()).to.deep.equal(['access_token', 'token_type']);
      expect(response.body.token_type).to.equal('bearer');
      expectStatus(await w.t.http.get(`${PREFIX}/me`).set(bearer(response.body.access_token)), 200);
      const off = await status(w, response.body.access_token);
      expect(off.body).to.deep.equal({ enabled: false, pending: false, recovery_codes_left: 0 });
    });

    it('enrols: a secret, its otpauth URI and an SVG QR code; a wrong code is refused, a right one gives the recovery codes once', async () => {
      const session = await sessionOf(w);
      const started = await manage(w, session, '/totp');
      expectStatus(started, 200);
      const { secret, otpauth_uri: uri, qr_code_svg: svg } = started.body;
      expect(secret).to.match(/^[A-Z2-7]{32}$/);
      expect(secretOf(uri)).to.equal(secret);
      const parsed = new URL(uri);
      expect(parsed.protocol).to.equal('otpauth:');
      expect(parsed.host).to.equal('totp');
      expect(decodeURIComponent(parsed.pathname)).to.equal('/Gatehouse:alice');
      expect(parsed.searchParams.get('issuer')).to.equal('Gatehouse');
      expect(svg).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* viewBox="0 0 \d+ \d+"/);
      expect(svg)
        .to.contain('<path')
        .and.match(/<\/svg>\s*$/);
      expect((await status(w, session)).body).to.deep.equal({ enabled: false, pending: true, recovery_codes_left: 0 });
      // Signing in is unchanged while enrolment waits.
      expect((await login(w)).body).to.have.property('access_token');

      const right = totpCode(secret, w.clock.now());
      const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
      expectStatus(await manage(w, session, '/totp/confirm', { code: wrong }), 401, 'invalid_second_factor_code');
      expect((await status(w, session)).body.enabled).to.equal(false);

      const confirmed = await manage(w, session, '/totp/confirm', { code: right });
      expectStatus(confirmed, 200);
      expect(Object.keys(confirmed.body)).to.deep.equal(['recovery_codes']);
      const codes = confirmed.body.recovery_codes as string[];
      expect(codes).to.have.length(10);
      expect(new Set(codes).size).to.equal(10);
      for (const code of codes) expect(code).to.match(RECOVERY_CODE);
      expect((await status(w, session)).body).to.deep.equal({ enabled: true, pending: false, recovery_codes_left: 10 });

      // Shown once: nothing answers them or the secret again.
      const again = await manage(w, session, '/totp');
      expectStatus(again, 409, 'second_factor_already_enabled');
      expect(again.text).to.not.contain(secret);
      expectStatus(
        await manage(w, session, '/totp/confirm', { code: totpCode(secret, w.clock.now(), 1) }),
        409,
        'second_factor_already_enabled',
      );
    });

    it('a login then answers a challenge, and a code answers it for a session; the same code on a new challenge is refused', async () => {
      const { secret } = await enrol(w, await sessionOf(w));
      w.clock.advance(STEP);

      const response = await login(w);
      expectStatus(response, 200);
      expect(Object.keys(response.body).sort()).to.deep.equal([
        'challenge_token',
        'expires_at',
        'methods',
        'second_factor_required',
      ]);
      expect(response.body.second_factor_required).to.equal(true);
      expect(response.body.methods).to.deep.equal(['totp', 'recovery_code']);
      expect(response.body.expires_at).to.equal(new Date(w.clock.now().getTime() + 5 * MINUTE).toISOString());

      const code = totpCode(secret, w.clock.now());
      const signedIn = await answer(w, { challenge_token: response.body.challenge_token, code });
      expectStatus(signedIn, 200);
      expect(Object.keys(signedIn.body).sort()).to.deep.equal(['access_token', 'token_type']);
      const me = await w.t.http.get(`${PREFIX}/me`).set(bearer(signedIn.body.access_token));
      expectStatus(me, 200);
      expect(me.body.username).to.equal('alice');

      // The challenge is spent, and the code too.
      expectStatus(
        await answer(w, { challenge_token: response.body.challenge_token, code }),
        401,
        'invalid_login_challenge',
      );
      const replayed = await answer(w, { challenge_token: await challengeOf(w), code });
      expectStatus(replayed, 401, 'invalid_second_factor_code');
    });

    it('a code of the previous step is taken within the drift window, but not after a later one was used', async () => {
      const { secret } = await enrol(w, await sessionOf(w));
      w.clock.advance(2 * STEP);
      // The previous step's code, none later used yet: the drift window takes it.
      expectStatus(
        await answer(w, { challenge_token: await challengeOf(w), code: totpCode(secret, w.clock.now(), -1) }),
        200,
      );
      w.clock.advance(2 * STEP);
      expectStatus(
        await answer(w, { challenge_token: await challengeOf(w), code: totpCode(secret, w.clock.now()) }),
        200,
      );
      // Now the previous step is earlier than the last used: refused though it is inside the window.
      const earlier = await answer(w, {
        challenge_token: await challengeOf(w),
        code: totpCode(secret, w.clock.now(), -1),
      });
      expectStatus(earlier, 401, 'invalid_second_factor_code');
      // Two steps back is outside the window anyway.
      w.clock.advance(STEP);
      expectStatus(
        await answer(w, { challenge_token: await challengeOf(w), code: totpCode(secret, w.clock.now(), -2) }),
        401,
        'invalid_second_factor_code',
      );
    });

    it('a recovery code answers a challenge once, however it is typed', async () => {
      const { recoveryCodes } = await enrol(w, await sessionOf(w));
      const [first, second] = recoveryCodes;
      const signedIn = await answer(w, { challenge_token: await challengeOf(w), recovery_code: first });
      expectStatus(signedIn, 200);
      expect((await status(w, signedIn.body.access_token)).body.recovery_codes_left).to.equal(9);
      expectStatus(await vault(w, signedIn.body.access_token), 200);
      expectStatus(
        await answer(w, { challenge_token: await challengeOf(w), recovery_code: first }),
        401,
        'invalid_second_factor_code',
      );
      // Upper case, spaces instead of dashes: the same code.
      const typed = second.toUpperCase().replace(/-/g, ' ');
      expectStatus(await answer(w, { challenge_token: await challengeOf(w), recovery_code: typed }), 200);
    });

    it('a challenge takes five answers: the sixth is invalid_login_challenge, and a right code after it fails too', async () => {
      const { secret } = await enrol(w, await sessionOf(w));
      w.clock.advance(STEP);
      const challenge = await challengeOf(w);
      const right = totpCode(secret, w.clock.now());
      const wrong = String((Number(right) + 500_000) % 1_000_000).padStart(6, '0');
      for (let i = 1; i <= 5; i++) {
        expectStatus(await answer(w, { challenge_token: challenge, code: wrong }), 401, 'invalid_second_factor_code');
      }
      expectStatus(await answer(w, { challenge_token: challenge, code: wrong }), 401, 'invalid_login_challenge');
      expectStatus(await answer(w, { challenge_token: challenge, code: right }), 401, 'invalid_login_challenge');
      // The code was not spent by the dead challenge: a new one takes it.
      expectStatus(await answer(w, { challenge_token: await challengeOf(w), code: right }), 200);
    });

    it('refuses malformed answers before the core: both proofs, neither, a code not of six digits, an unknown challenge', async () => {
      const { secret } = await enrol(w, await sessionOf(w));
      w.clock.advance(STEP);
      const challenge = await challengeOf(w);
      const code = totpCode(secret, w.clock.now());
      for (const body of [
        { challenge_token: challenge, code, recovery_code: 'abcd-efgh-ijkl-mnop' },
        { challenge_token: challenge },
        { challenge_token: challenge, code: '12345' },
        { challenge_token: challenge, code: 123456 },
        { challenge_token: 'x'.repeat(513), code },
        { code },
      ]) {
        expectStatus(await answer(w, body), 400, 'validation_error');
      }
      expectStatus(await answer(w, { challenge_token: 'x'.repeat(43), code }), 401, 'invalid_login_challenge');
      // None of them spent one of the challenge's answers, or the code.
      expectStatus(await answer(w, { challenge_token: challenge, code }), 200);
    });

    it('a password reset keeps the factor: the new password still leads to a challenge, and older challenges die', async () => {
      const { secret } = await enrol(w, await sessionOf(w));
      const before = await challengeOf(w);
      await w.t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }).expect(200);
      await resolveAccountService().drain();
      const token = w.t.sender.lastToken('sendPasswordReset', 'alice@example.com');
      await w.t.http.post(`${PREFIX}/password-reset/confirm`).send({ token, new_password: OTHER_PASSWORD }).expect(200);
      w.clock.advance(STEP);
      const code = totpCode(secret, w.clock.now());
      expectStatus(await answer(w, { challenge_token: before, code }), 401, 'invalid_login_challenge');
      const after = await challengeOf(w, 'alice', OTHER_PASSWORD);
      expectStatus(await answer(w, { challenge_token: after, code }), 200);
    });

    it('new recovery codes and switching off need a recent password and a code', async () => {
      const session = await sessionOf(w);
      const { secret, recoveryCodes } = await enrol(w, session);
      w.clock.advance(11 * MINUTE);
      const code = () => totpCode(secret, w.clock.now());

      expectStatus(await manage(w, session, '/recovery-codes', { code: code() }), 403, 'reauthentication_required');
      expectStatus(await manage(w, session, '/disable', { code: code() }), 403, 'reauthentication_required');
      // The account has a factor: re-authentication takes a code after the password (a recovery code here, so the
      // authenticator's current step is still free for the change itself).
      await w.t.http
        .post(`${PREFIX}/reauthenticate`)
        .set(bearer(session))
        .send({ password: PASSWORD, code: recoveryCodes[1] })
        .expect(200);

      const wrong = String((Number(code()) + 1) % 1_000_000).padStart(6, '0');
      expectStatus(await manage(w, session, '/recovery-codes', { code: wrong }), 401, 'invalid_second_factor_code');
      expectStatus(await manage(w, session, '/recovery-codes', {}), 400, 'validation_error');
      const renewed = await manage(w, session, '/recovery-codes', { code: code() });
      expectStatus(renewed, 200);
      const fresh = renewed.body.recovery_codes as string[];
      expect(fresh).to.have.length(10);
      expect(fresh).to.not.include.members([recoveryCodes[0]]);
      // The old codes are gone; the new ones work.
      expectStatus(
        await answer(w, { challenge_token: await challengeOf(w), recovery_code: recoveryCodes[0] }),
        401,
        'invalid_second_factor_code',
      );

      // A recovery code is a proof too; it switches the factor off.
      const off = await manage(w, session, '/disable', { code: fresh[0] });
      expectStatus(off, 200);
      expect(off.body).to.deep.equal({ detail: 'Two-factor sign-in is off' });
      expect((await status(w, session)).body).to.deep.equal({ enabled: false, pending: false, recovery_codes_left: 0 });
      expect(Object.keys((await login(w)).body).sort()).to.deep.equal(['access_token', 'token_type']);
      expectStatus(await manage(w, session, '/disable', { code: code() }), 409, 'second_factor_not_enabled');
      expectStatus(await manage(w, session, '/recovery-codes', { code: code() }), 409, 'second_factor_not_enabled');
    });

    it("@Authorized('mfa') refuses a password-only session with 403 and takes one made with a second factor", async () => {
      const passwordOnly = await sessionOf(w);
      expectStatus(await vault(w, passwordOnly), 403, 'second_factor_required');
      expectStatus(await w.t.http.get('/posts/vault'), 401);

      // Kept on purpose (switching the factor on ends the other sessions by default).
      const { secret } = await enrol(w, await sessionOf(w), { end_other_sessions: false });
      w.clock.advance(STEP);
      const signedIn = await answer(w, {
        challenge_token: await challengeOf(w),
        code: totpCode(secret, w.clock.now()),
      });
      const allowed = await vault(w, signedIn.body.access_token);
      expectStatus(allowed, 200);
      expect(allowed.body).to.deep.equal({ owner: 'alice' });
      // A session made with the password before the factor was on stays password-only.
      expectStatus(await vault(w, passwordOnly), 403, 'second_factor_required');

      // Another account, password only: refused whatever else it may do.
      await createUser(w, 'bob');
      const bob = await sessionOf(w, 'bob');
      expectStatus(await w.t.http.get('/posts/mine').set(bearer(bob)), 200);
      expectStatus(await vault(w, bob), 403, 'second_factor_required');
    });

    it('the session that switched the factor on counts as made with it (the design: confirming marks this session)', async () => {
      const session = await sessionOf(w);
      expectStatus(await vault(w, session), 403, 'second_factor_required');
      await enrol(w, session);
      const enrolled = await vault(w, session);
      expectStatus(enrolled, 200);
      expect(enrolled.body).to.deep.equal({ owner: 'alice' });
    });
  });
