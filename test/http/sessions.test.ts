import { expect } from 'chai';
import type { Response } from 'supertest';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { CLOCK, TRUSTED_PROXIES } from '../../src/di/tokens';
import { ManualClock, MINUTE } from '../support/manual-clock';
import { bearer, buildTestApp, DRIVERS, OTHER_PASSWORD, PASSWORD, PREFIX, type TestApp } from '../support/test-app';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0';
const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 ' +
  'Mobile/15E148 Safari/604.1';
const CURL = 'curl/8.5.0';
/** A session id no session has (the shape of a real one). */
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const NOT_FOUND = { detail: { detail: 'No such session', code: 'session_not_found' } };

interface SessionJson {
  id: string;
  current: boolean;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  ip_address: string | null;
  user_agent: string | null;
  browser: { name: string; version: string | null } | null;
  os: { name: string; version: string | null } | null;
  device: string | null;
}

/** The test app with a clock the test moves (the re-authentication window is ten minutes by default). */
function appWithClock(driver: (typeof DRIVERS)[number]): { t: TestApp; clock: ManualClock } {
  const t = buildTestApp({ driver });
  const clock = new ManualClock(Date.now());
  Container.set(CLOCK, clock);
  return { t, clock };
}

/**
 * Registers and verifies over HTTP, draining the service the routes use now: the one built with the clock, not the
 * one `buildTestApp` resolved before it was set.
 */
async function createUser(t: TestApp, username: string): Promise<void> {
  const email = `${username}@example.com`;
  await t.http.post(`${PREFIX}/register`).send({ username, email, password: PASSWORD }).expect(201);
  await resolveAccountService().drain();
  const token = t.sender.lastToken('sendVerification', email);
  await t.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
  await resolveAccountService().drain();
}

async function loginWith(t: TestApp, headers: Record<string, string>, password = PASSWORD): Promise<Response> {
  return t.http.post(`${PREFIX}/login`).set(headers).send({ username: 'alice', password });
}

async function tokenOf(t: TestApp, headers: Record<string, string>): Promise<string> {
  const response = await loginWith(t, headers);
  expect(response.status, response.text).to.equal(200);
  return response.body.access_token as string;
}

async function sessionsOf(t: TestApp, token: string, headers: Record<string, string> = {}): Promise<SessionJson[]> {
  const response = await t.http.get(`${PREFIX}/sessions`).set(bearer(token)).set(headers);
  expect(response.status, response.text).to.equal(200);
  expect(Object.keys(response.body)).to.deep.equal(['sessions']);
  return response.body.sessions as SessionJson[];
}

function expectStatus(response: Response, status: number, body?: unknown): void {
  expect(response.status, response.text).to.equal(status);
  if (body !== undefined) expect(response.body).to.deep.equal(body);
}

for (const driver of DRIVERS)
  describe(`sessions you can see and end, over HTTP (${driver})`, () => {
    afterEach(() => {
      Container.remove(TRUSTED_PROXIES);
      Container.remove(CLOCK);
    });

    it('behind a trusted proxy: lists both sessions newest first, with the forwarded address and the parsed agent', async () => {
      const { t, clock } = appWithClock(driver);
      Container.set(TRUSTED_PROXIES, ['loopback']);
      await createUser(t, 'alice');
      const laptop = await tokenOf(t, { 'User-Agent': FIREFOX, 'X-Forwarded-For': '203.0.113.7' });
      clock.advance(MINUTE);
      // A client prepending an address of its choice: the proxy appended the real one, which is what is shown.
      const phone = await tokenOf(t, { 'User-Agent': SAFARI, 'X-Forwarded-For': '192.0.2.66, 198.51.100.2' });

      const fromLaptop = await sessionsOf(t, laptop);
      expect(fromLaptop.map((s) => [s.ip_address, s.user_agent, s.current])).to.deep.equal([
        ['198.51.100.2', SAFARI, false],
        ['203.0.113.7', FIREFOX, true],
      ]);
      const [newest, oldest] = fromLaptop;
      expect(newest).to.deep.include({
        browser: { name: 'Safari', version: '17.5' },
        os: { name: 'iOS', version: '17.5' },
        device: 'mobile',
      });
      expect(oldest).to.deep.include({ browser: { name: 'Firefox', version: '132.0' }, device: 'desktop' });
      expect(oldest.os).to.deep.equal({ name: 'Linux', version: null });
      expect(Date.parse(newest.created_at) - Date.parse(oldest.created_at)).to.equal(MINUTE);
      for (const session of fromLaptop) {
        expect(session.id).to.match(/^[0-9a-f-]{36}$/);
        expect(new Date(session.expires_at).toISOString()).to.equal(session.expires_at);
        expect(new Date(session.last_used_at).toISOString()).to.equal(session.last_used_at);
      }

      const fromPhone = await sessionsOf(t, phone);
      expect(fromPhone.map((s) => s.current)).to.deep.equal([true, false]);
      expect(fromPhone.map((s) => s.id)).to.deep.equal(fromLaptop.map((s) => s.id));
      const text = JSON.stringify(fromPhone);
      expect(text).to.not.include(laptop).and.not.include(phone);
    });

    it('without a trusted proxy, X-Forwarded-For is ignored: the socket address is shown', async () => {
      const { t } = appWithClock(driver);
      await createUser(t, 'alice');
      const token = await tokenOf(t, { 'User-Agent': CURL, 'X-Forwarded-For': '203.0.113.7' });
      const [session] = await sessionsOf(t, token);
      expect(session.ip_address).to.equal('127.0.0.1');
      expect(session).to.deep.include({ user_agent: CURL, current: true, os: null, device: null });
    });

    it('keeps at most 512 characters of a user agent, and null for none', async () => {
      const { t, clock } = appWithClock(driver);
      await createUser(t, 'alice');
      const long = `Mozilla/5.0 ${'x'.repeat(2000)}`;
      await tokenOf(t, { 'User-Agent': long });
      clock.advance(MINUTE);
      // supertest sends no User-Agent unless told to.
      const bare = await tokenOf(t, {});
      const [none, cut] = await sessionsOf(t, bare);
      expect(none).to.deep.include({ user_agent: null, browser: null, os: null, device: null });
      expect(cut.user_agent).to.equal(long.slice(0, 512));
    });

    it('trusts the headers for display only: the token alone says which session is current, and what login saw stays', async () => {
      const { t, clock } = appWithClock(driver);
      Container.set(TRUSTED_PROXIES, ['loopback']);
      await createUser(t, 'alice');
      const laptop = await tokenOf(t, { 'User-Agent': FIREFOX, 'X-Forwarded-For': '203.0.113.7' });
      clock.advance(MINUTE);
      await tokenOf(t, { 'User-Agent': SAFARI, 'X-Forwarded-For': '198.51.100.2' });
      // The laptop's token, presented with the phone's agent and address: still the laptop's session, unchanged.
      const seen = await sessionsOf(t, laptop, { 'User-Agent': SAFARI, 'X-Forwarded-For': '198.51.100.2' });
      expect(seen.map((s) => [s.ip_address, s.user_agent, s.current])).to.deep.equal([
        ['198.51.100.2', SAFARI, false],
        ['203.0.113.7', FIREFOX, true],
      ]);
    });

    it('ends another session by id: its token is refused on its very next request, this one keeps working', async () => {
      const { t, clock } = appWithClock(driver);
      await createUser(t, 'alice');
      const mine = await tokenOf(t, { 'User-Agent': FIREFOX });
      clock.advance(MINUTE);
      const other = await tokenOf(t, { 'User-Agent': SAFARI });
      expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(other)), 200);
      const target = (await sessionsOf(t, mine)).find((s) => !s.current)!;

      const ended = await t.http.delete(`${PREFIX}/sessions/${target.id}`).set(bearer(mine));
      expectStatus(ended, 200, { detail: 'Session ended' });
      expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(other)), 401);
      expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(mine)), 200);
      expect((await sessionsOf(t, mine)).map((s) => s.current)).to.deep.equal([true]);
    });

    it('answers an unknown id and another user’s session with the same 404, and ends neither', async () => {
      const { t } = appWithClock(driver);
      await createUser(t, 'alice');
      const mine = await tokenOf(t, {});
      await createUser(t, 'bob');
      const bobs = await t.login('bob');
      const [bobSession] = await sessionsOf(t, bobs);

      const foreign = await t.http.delete(`${PREFIX}/sessions/${bobSession.id}`).set(bearer(mine));
      const unknown = await t.http.delete(`${PREFIX}/sessions/${UNKNOWN_ID}`).set(bearer(mine));
      const garbage = await t.http.delete(`${PREFIX}/sessions/not-a-session-id`).set(bearer(mine));
      for (const response of [foreign, unknown, garbage]) expectStatus(response, 404, NOT_FOUND);
      expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(bobs)), 200);
    });

    it('needs a recent password to end another session: 403 past the window, allowed again after POST /reauthenticate', async () => {
      const { t, clock } = appWithClock(driver);
      await createUser(t, 'alice');
      const mine = await tokenOf(t, {});
      clock.advance(MINUTE);
      const other = await tokenOf(t, {});
      const target = (await sessionsOf(t, mine)).find((s) => !s.current)!;
      clock.advance(10 * MINUTE);

      const refused = await t.http.delete(`${PREFIX}/sessions/${target.id}`).set(bearer(mine));
      expectStatus(refused, 403);
      expect(refused.body.detail.code).to.equal('reauthentication_required');
      expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(other)), 200);

      const wrong = await t.http.post(`${PREFIX}/reauthenticate`).set(bearer(mine)).send({ password: OTHER_PASSWORD });
      expectStatus(wrong, 401);
      expect(wrong.body.detail.code).to.equal('invalid_credentials');
      expectStatus(await t.http.delete(`${PREFIX}/sessions/${target.id}`).set(bearer(mine)), 403);

      const confirmed = await t.http.post(`${PREFIX}/reauthenticate`).set(bearer(mine)).send({ password: PASSWORD });
      expectStatus(confirmed, 200, {
        detail: 'Password confirmed',
        reauthenticated_until: new Date(clock.now().getTime() + 10 * MINUTE).toISOString(),
      });
      expectStatus(await t.http.delete(`${PREFIX}/sessions/${target.id}`).set(bearer(mine)), 200);
      expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(other)), 401);
    });

    it('ends the current session without a recent password: that is a logout', async () => {
      const { t, clock } = appWithClock(driver);
      await createUser(t, 'alice');
      const mine = await tokenOf(t, {});
      const [current] = await sessionsOf(t, mine);
      clock.advance(60 * MINUTE);
      expectStatus(await t.http.delete(`${PREFIX}/sessions/${current.id}`).set(bearer(mine)), 200);
      expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(mine)), 401);
    });

    it('ends every other session, keeping this one; past the window it needs the password again', async () => {
      const { t, clock } = appWithClock(driver);
      await createUser(t, 'alice');
      const others = [await tokenOf(t, {}), await tokenOf(t, {})];
      await createUser(t, 'bob');
      const bobs = await t.login('bob');
      const mine = await tokenOf(t, {});

      const ended = await t.http.post(`${PREFIX}/sessions/end-others`).set(bearer(mine)).send({});
      expectStatus(ended, 200, { detail: 'Other sessions ended', ended: 2 });
      for (const token of others) expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(token)), 401);
      expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(mine)), 200);
      expectStatus(await t.http.get(`${PREFIX}/me`).set(bearer(bobs)), 200);
      // No body at all is the same request.
      expectStatus(await t.http.post(`${PREFIX}/sessions/end-others`).set(bearer(mine)), 200, {
        detail: 'Other sessions ended',
        ended: 0,
      });

      clock.advance(10 * MINUTE);
      const refused = await t.http.post(`${PREFIX}/sessions/end-others`).set(bearer(mine)).send({});
      expectStatus(refused, 403);
      expect(refused.body.detail.code).to.equal('reauthentication_required');
    });

    it('answers 401 to every sessions route without a live session', async () => {
      const { t } = appWithClock(driver);
      const dead = bearer('x'.repeat(43));
      const answers = [
        await t.http.get(`${PREFIX}/sessions`),
        await t.http.get(`${PREFIX}/sessions`).set(dead),
        await t.http.delete(`${PREFIX}/sessions/${UNKNOWN_ID}`).set(dead),
        await t.http.post(`${PREFIX}/sessions/end-others`).set(dead).send({}),
        await t.http.post(`${PREFIX}/reauthenticate`).set(dead).send({ password: PASSWORD }),
      ];
      for (const answer of answers) {
        expectStatus(answer, 401);
        expect(answer.headers['www-authenticate']).to.equal('Bearer');
      }
    });

    it('refuses a re-authentication body without a password string as a validation error', async () => {
      const { t } = appWithClock(driver);
      await createUser(t, 'alice');
      const mine = await tokenOf(t, {});
      for (const body of [{}, { password: 42 }, { password: 'x'.repeat(1025) }]) {
        const response = await t.http.post(`${PREFIX}/reauthenticate`).set(bearer(mine)).send(body);
        expectStatus(response, 400);
        expect(response.body.detail.code).to.equal('validation_error');
      }
    });
  });
