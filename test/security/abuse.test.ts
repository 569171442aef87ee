import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Response } from 'supertest';
import { Container } from 'typedi';
import { RATE_LIMITS } from '../../src/di/tokens';
import { DEFAULT_LIMITS, type IpLimit, type Limit, type RateLimitOptions } from '../../src/limits/rate-limit-options';
import { expectRateLimited } from '../limits/expect-rate-limited';
import { generousRateLimits } from '../support/generous-rate-limits';
import { requireService, serviceUrl } from '../support/services';
import { expectError, observable } from './support/answers';
import { watchArgon2 } from './support/argon2-calls';
import { bearer, openSecurityApp, OTHER_PASSWORD, PASSWORD, PREFIX, SecurityApp } from './support/security-app';

/** Every limit out of reach except those given. */
function limits(
  overrides: Partial<RateLimitOptions['limits']>,
  rest: Omit<RateLimitOptions, 'limits'> = {},
): RateLimitOptions {
  const generous = generousRateLimits();
  return { ...generous, ...rest, limits: { ...generous.limits, ...overrides } };
}

const loginAs = (t: SecurityApp, password: string, path = `${PREFIX}/login`, headers: Record<string, string> = {}) =>
  t.http.post(path).set(headers).send({ username: 'alice', password });

describe('Security checklist: Abuse', () => {
  let t: SecurityApp;
  beforeEach(async () => {
    t = await openSecurityApp();
    await t.createUser('alice');
  });
  afterEach(() => t.close());

  it('L1: failed logins per account back off, at most 50 a fixed hour (so never 100 in any hour); reset stays possible', async () => {
    Container.set(RATE_LIMITS, limits({}, { loginBackoff: { freeFailures: 5, initialDelay: 60 } }));
    for (let i = 0; i < 6; i++) expectError(await loginAs(t, OTHER_PASSWORD), 401, 'invalid_credentials');
    expectRateLimited(await loginAs(t, PASSWORD), 60);
    expectRateLimited(await t.http.post(`${PREFIX}/login`).send({ username: 'ALICE', password: PASSWORD }), 60);

    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }).expect(200);
    await t.drain();
    const token = t.sender.lastToken('sendPasswordReset');
    await t.http
      .post(`${PREFIX}/password-reset/confirm`)
      .send({ token, new_password: 'after the reset it works' })
      .expect(200);
    await t.login('alice', 'after the reset it works');

    // Without the backoff, the hourly cap alone: 50 guesses, then even the right password waits.
    Container.set(
      RATE_LIMITS,
      limits({ 'login.account': DEFAULT_LIMITS['login.account'] }, { loginBackoff: { freeFailures: 1_000 } }),
    );
    for (let i = 0; i < 50; i++) expectError(await loginAs(t, OTHER_PASSWORD), 401, 'invalid_credentials');
    expectRateLimited(await loginAs(t, 'after the reset it works'), 3600);
  });

  it('L2: per-IP limits on login, register, reset, resend and change answer 429 with Retry-After; per-email mail limits are silent', async () => {
    const session = await t.login('alice');
    const routes: [IpLimit, () => Promise<Response>][] = [
      ['login.ip', () => loginAs(t, OTHER_PASSWORD)],
      ['register.ip', () => t.http.post(`${PREFIX}/register`).send({ username: 'x', email: 'x', password: 'x' })],
      ['reset-request.ip', () => t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'nobody@example.com' })],
      [
        'resend-verification.ip',
        () => t.http.post(`${PREFIX}/resend-verification`).send({ email: 'nobody@example.com' }),
      ],
      [
        'password-change.ip',
        () =>
          t.http
            .post(`${PREFIX}/password/change`)
            .set(bearer(session))
            .send({ old_password: OTHER_PASSWORD, new_password: OTHER_PASSWORD }),
      ],
    ];
    const tight: Partial<Record<IpLimit, Limit>> = {};
    for (const [limit] of routes) tight[limit] = { points: 2, duration: 600 };
    Container.set(RATE_LIMITS, limits(tight));
    for (const [limit, send] of routes) {
      for (let i = 0; i < 2; i++) expect((await send()).status, limit).to.not.equal(429);
      expectRateLimited(await send(), 600);
    }

    Container.set(
      RATE_LIMITS,
      limits({
        'reset-request.email': { points: 5, duration: 3600 },
        'resend-verification.email': { points: 5, duration: 3600 },
      }),
    );
    await t.register('vera');
    t.sender.sent.length = 0;
    for (const [path, email] of [
      ['/password-reset/request', 'alice@example.com'],
      ['/resend-verification', 'vera@example.com'],
    ]) {
      const answers = [];
      // Each mail goes out before the next request: a new link supersedes the unsent one before it.
      for (let i = 0; i < 8; i++) {
        answers.push(observable(await t.http.post(`${PREFIX}${path}`).send({ email })));
        await t.drain();
      }
      for (const answer of answers) expect(answer).to.deep.equal(answers[0]);
      expect(answers[0].status).to.equal(200);
    }
    await t.drain();
    expect(t.sender.of('sendPasswordReset')).to.have.length(5);
    expect(t.sender.of('sendVerification')).to.have.length(5);
  });

  it('L3: X-Forwarded-For counts only from a configured proxy, and then its right-most untrusted address', async () => {
    Container.set(RATE_LIMITS, limits({ 'login.ip': { points: 2, duration: 600 } }));
    for (let i = 0; i < 2; i++)
      await loginAs(t, OTHER_PASSWORD, undefined, { 'X-Forwarded-For': `198.51.100.${i}` }).expect(401);
    expectRateLimited(await loginAs(t, OTHER_PASSWORD, undefined, { 'X-Forwarded-For': '198.51.100.99' }), 600);

    await t.close();
    t = await openSecurityApp({
      trustedProxies: 'loopback',
      rateLimits: limits({ 'login.ip': { points: 2, duration: 600 } }),
    });
    await t.createUser('alice');
    const behindProxy = (spoofed: string) => ({ 'X-Forwarded-For': `${spoofed}, 203.0.113.7` });
    for (let i = 0; i < 2; i++) await loginAs(t, OTHER_PASSWORD, undefined, behindProxy(`10.0.0.${i}`)).expect(401);
    expectRateLimited(await loginAs(t, OTHER_PASSWORD, undefined, behindProxy('10.0.0.99')), 600);
    await loginAs(t, OTHER_PASSWORD, undefined, { 'X-Forwarded-For': '203.0.113.8' }).expect(401);
  });

  it('L4: //login, /login/, other cases and percent-encoded spellings share one bucket', async () => {
    Container.set(RATE_LIMITS, limits({ 'login.ip': { points: 2, duration: 600 } }));
    for (let i = 0; i < 2; i++) await loginAs(t, OTHER_PASSWORD).expect(401);
    const spellings = [
      '/auth/login',
      '/auth//login',
      '/auth/login/',
      '/AUTH/LOGIN',
      '/auth/Login',
      '/auth/%6Cogin',
      '/auth/log%69n/',
      '//auth/login',
    ];
    const statuses = [];
    for (const path of spellings) statuses.push((await loginAs(t, PASSWORD, path)).status);
    // A spelling either reaches the login, and then its bucket, or no route at all.
    expect(
      statuses.filter((status) => status !== 429 && status !== 404),
      spellings.join(' '),
    ).to.deep.equal([]);
    expect(statuses.filter((status) => status === 429).length).to.be.at.least(4);
  });

  it('L5: limits kept in Redis are shared by every instance and survive a restart', async function () {
    await requireService(this, 'redis');
    const keyPrefix = `gatehouse-security-${randomBytes(6).toString('hex')}`;
    const clients: Redis[] = [];
    const instance = async () => {
      const redis = new Redis(serviceUrl('redis'), { maxRetriesPerRequest: 1 });
      clients.push(redis);
      // Until it is ready the limits count in memory (by design); this test is about what Redis holds.
      if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
      return limits({ 'login.ip': { points: 2, duration: 60 } }, { redis, keyPrefix });
    };
    try {
      Container.set(RATE_LIMITS, await instance());
      await loginAs(t, OTHER_PASSWORD).expect(401);
      Container.set(RATE_LIMITS, await instance()); // a second instance (or the first, restarted): fresh memory, same Redis
      await loginAs(t, OTHER_PASSWORD).expect(401);
      Container.set(RATE_LIMITS, await instance());
      expectRateLimited(await loginAs(t, PASSWORD), 60);
    } finally {
      for (const redis of clients) {
        const keys = await redis.keys(`${keyPrefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
      }
    }
  });

  it('C6: concurrent hashing is bounded: a queue, then 503 with Retry-After, and never more hashes at once than allowed', async () => {
    await t.close();
    t = await openSecurityApp({ accountOptions: { hashing: {}, hashingQueue: { concurrency: 1, maxQueued: 2 } } });
    await t.createUser('alice');
    const argon2 = watchArgon2();
    let burst: Response[];
    try {
      burst = await Promise.all(Array.from({ length: 12 }, (_, i) => loginAs(t, i % 2 ? OTHER_PASSWORD : PASSWORD)));
    } finally {
      argon2.restore();
    }
    expect(argon2.maxRunning).to.equal(1);
    const statuses = burst.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 503).length, statuses.join(' ')).to.be.at.least(1);
    expect(
      statuses.filter((status) => status !== 503).every((status) => status === 200 || status === 401),
      statuses.join(' '),
    ).to.equal(true);
    for (const answer of burst.filter((a) => a.status === 503)) {
      expectError(answer, 503, 'service_unavailable');
      expect(answer.headers['retry-after']).to.equal('1');
    }
    expect(t.logger.lines.some((line) => (line.fields as { event?: string }).event === 'hashing_overloaded')).to.equal(
      true,
    );
    await t.login('alice');
  });
});
