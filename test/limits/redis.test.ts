import { expect } from 'chai';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { connectRedis, waitForRedis } from '../../src/limits/redis-client';
import { RateLimits } from '../../src/limits/rate-limits';
import type { RateLimitOptions } from '../../src/limits/rate-limit-options';
import { CapturingLogger } from '../support/capturing-logger';
import { describeWithService, serviceUrl } from '../support/services';
import { buildTestApp, PREFIX } from '../support/test-app';
import { expectRateLimited } from './expect-rate-limited';
import { TcpProxy } from '../support/tcp-proxy';
import { freePort } from '../support/free-port';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithService('redis', 'rate limits in Redis (L5)', function () {
  // One prefix per run, so runs (and parallel CI jobs) never see each other's counters.
  const prefix = `gatehouse-test:${process.pid}:${randomBytes(4).toString('hex')}`;
  const clients: Redis[] = [];
  let admin: Redis;

  before(() => {
    admin = new Redis(serviceUrl('redis'));
  });
  after(async () => {
    const keys = await admin.keys(`${prefix}:*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });

  function client(url = serviceUrl('redis'), logger = new CapturingLogger()): Redis {
    const redis = connectRedis(url, logger);
    clients.push(redis);
    return redis;
  }

  async function ready(redis: Redis): Promise<void> {
    expect(await waitForRedis(redis, 10_000), 'Redis connected').to.equal(true);
  }

  /** An "instance": its own connection to Redis, as a separate process would have. */
  async function instance(
    options: RateLimitOptions,
    test: string,
    logger = new CapturingLogger(),
  ): Promise<RateLimits> {
    const redis = client(undefined, logger);
    await ready(redis);
    return new RateLimits({ ...options, redis, keyPrefix: `${prefix}:${test}` }, logger);
  }

  it('waitForRedis resolves true once connected, and false after its timeout when Redis cannot be reached', async () => {
    expect(await waitForRedis(client())).to.equal(true);
    const unreachable = await freePort();
    const started = Date.now();
    expect(await waitForRedis(client(`redis://127.0.0.1:${unreachable}`), 1_200)).to.equal(false);
    expect(Date.now() - started).to.be.within(1_150, 3_000);
  });

  it('shares one budget between instances', async () => {
    const options = { limits: { 'login.ip': { points: 3, duration: 60 } } };
    const a = await instance(options, 'shared');
    const b = await instance(options, 'shared');
    expect((await a.consume('login.ip', '198.51.100.1')).allowed).to.equal(true);
    expect((await b.consume('login.ip', '198.51.100.1')).allowed).to.equal(true);
    expect((await a.consume('login.ip', '198.51.100.1')).allowed).to.equal(true);
    const refused = await b.consume('login.ip', '198.51.100.1');
    expect(refused.allowed).to.equal(false);
    expect(refused.retryAfterMs).to.be.within(58_000, 60_000);
    expect(await admin.get(`${prefix}:shared:login.ip:198.51.100.1`)).to.equal('4');
  });

  it('shares the login backoff and its reset between instances', async () => {
    const options = { loginBackoff: { freeFailures: 1, initialDelay: 5, maxDelay: 5 } };
    const a = await instance(options, 'backoff');
    const b = await instance(options, 'backoff');
    expect((await a.consume('login.account', 'k')).allowed).to.equal(true);
    expect((await b.consume('login.account', 'k')).allowed, 'second: starts a 5 s wait').to.equal(true);
    const waiting = await a.consume('login.account', 'k');
    expect(waiting.allowed).to.equal(false);
    expect(waiting.retryAfterMs).to.be.within(4_000, 5_000);
    await b.reset('login.account', 'k');
    expect((await a.consume('login.account', 'k')).allowed, 'reset on the other instance').to.equal(true);
  });

  it('outlives a restart: a new instance finds the counters where the old one left them', async () => {
    const options = { limits: { 'reset-request.email': { points: 2, duration: 600 } } };
    const before = await instance(options, 'restart');
    await before.consume('reset-request.email', 'k');
    await before.consume('reset-request.email', 'k');
    for (const redis of clients.splice(0)) redis.disconnect();

    const after = await instance(options, 'restart');
    const refused = await after.consume('reset-request.email', 'k');
    expect(refused.allowed).to.equal(false);
    expect(refused.retryAfterMs).to.be.within(590_000, 600_000);
  });

  it('falls back to memory, at once and without errors, when Redis goes away; and back to Redis when it returns', async () => {
    const { hostname, port } = new URL(serviceUrl('redis'));
    const proxy = await TcpProxy.start({ host: hostname, port: Number(port) || 6379 });
    const logger = new CapturingLogger();
    const redis = client(`redis://127.0.0.1:${proxy.port}`, logger);
    await ready(redis);
    const options = {
      redis,
      keyPrefix: `${prefix}:outage`,
      limits: { 'login.ip': { points: 2, duration: 60 } },
      // Back to Redis on the next call after it returns; the pause after a failure has its own test.
      redisRetryAfterMs: 0,
    };
    const limits = new RateLimits(options, logger);
    try {
      expect((await limits.consume('login.ip', 'x')).allowed).to.equal(true);
      await proxy.cut();
      await sleep(50);

      const started = Date.now();
      // Still limited (per process now): the memory stand-in counts from zero.
      expect((await limits.consume('login.ip', 'x')).allowed).to.equal(true);
      expect((await limits.consume('login.ip', 'x')).allowed).to.equal(true);
      expect((await limits.consume('login.ip', 'x')).allowed).to.equal(false);
      await limits.reset('login.ip', 'y');
      // Four calls: waiting for the dead Redis even once per call would take seconds.
      expect(Date.now() - started, 'no waiting on a dead Redis').to.be.below(1_500);
      const warnings = logger.lines.filter((line) => (line.fields as { event?: string }).event === 'rate_limit_store');
      expect(warnings, 'logged once per outage, not per request').to.have.length(1);
      expect(warnings[0].level).to.equal('warn');
      expect(logger.text()).to.not.include(String(proxy.port));

      await proxy.restore();
      await ready(redis);
      expect((await limits.consume('login.ip', 'x')).allowed, 'Redis remembers 1 of 2').to.equal(true);
      expect((await limits.consume('login.ip', 'x')).allowed).to.equal(false);
      expect(logger.lines.some((line) => (line.fields as { outcome?: string }).outcome === 'recovered')).to.equal(true);
    } finally {
      await proxy.cut();
    }
  });

  it('after a Redis stall, answers from memory without waiting until the pause is over', async () => {
    const { hostname, port } = new URL(serviceUrl('redis'));
    const proxy = await TcpProxy.start({ host: hostname, port: Number(port) || 6379 });
    const redis = new Redis(`redis://127.0.0.1:${proxy.port}`, { maxRetriesPerRequest: null });
    redis.on('error', () => {});
    await ready(redis);
    const limits = new RateLimits({
      redis,
      keyPrefix: `${prefix}:stall`,
      redisTimeoutMs: 1_200,
      redisRetryAfterMs: 60_000,
    });
    try {
      proxy.freeze();
      let started = Date.now();
      expect((await limits.consume('login.account', 'k')).allowed).to.equal(true);
      expect(Date.now() - started, 'the first call pays the timeout').to.be.at.least(1_150);
      // A login checks several budgets; none of them waits for the stalled Redis again during the pause.
      started = Date.now();
      for (let i = 0; i < 5; i++) await limits.consume('login.account', 'k');
      await limits.consume('login.ip', 'ip');
      // Six calls: paying the 1.2 s timeout even once more would exceed this.
      expect(Date.now() - started, 'no more waiting').to.be.below(1_150);
    } finally {
      await proxy.cut();
      redis.disconnect();
    }
  });

  it('answers within the timeout when Redis hangs', async () => {
    const { hostname, port } = new URL(serviceUrl('redis'));
    const proxy = await TcpProxy.start({ host: hostname, port: Number(port) || 6379 });
    const logger = new CapturingLogger();
    const redis = new Redis(`redis://127.0.0.1:${proxy.port}`, { maxRetriesPerRequest: null });
    redis.on('error', () => {});
    clients.push(redis);
    await ready(redis);
    // A host's own client, without the command timeout connectRedis sets: the limiter's own timeout decides.
    const limits = new RateLimits({ redis, keyPrefix: `${prefix}:hang`, redisTimeoutMs: 1_200 }, logger);
    try {
      proxy.freeze();
      const started = Date.now();
      expect((await limits.consume('login.ip', 'x')).allowed).to.equal(true);
      expect(Date.now() - started).to.be.within(1_150, 3_000);
      expect(logger.lines.some((line) => (line.fields as { outcome?: string }).outcome === 'unavailable')).to.equal(
        true,
      );
    } finally {
      await proxy.cut();
    }
  });

  it('keeps answering HTTP requests (401 or 429, never 5xx) while Redis is down', async () => {
    const { hostname, port } = new URL(serviceUrl('redis'));
    const proxy = await TcpProxy.start({ host: hostname, port: Number(port) || 6379 });
    const redis = client(`redis://127.0.0.1:${proxy.port}`);
    await ready(redis);
    const rateLimits = { redis, keyPrefix: `${prefix}:http`, limits: { 'login.ip': { points: 3, duration: 60 } } };
    const t = buildTestApp({ rateLimits });
    try {
      const login = () => t.http.post(`${PREFIX}/login`).send({ username: 'nobody', password: 'wrong password here' });
      expect((await login()).status).to.equal(401);
      await proxy.cut();
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await login()).status);
      expect(statuses).to.deep.equal([401, 401, 401, 429, 429]);
      expectRateLimited(await login(), 60);
      await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'a@example.com' }).expect(200);
      await t.accounts.drain();
      expect(t.logger.errors()).to.deep.equal([]);
    } finally {
      await proxy.cut();
    }
  });
});
