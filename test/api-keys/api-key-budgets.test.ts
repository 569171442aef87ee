import { expect } from 'chai';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { connectRedis, waitForRedis } from '../../src/limits/redis-client';
import { RateLimits } from '../../src/limits/rate-limits';
import type { RateLimitOptions } from '../../src/limits/rate-limit-options';
import { isPromiseLike } from '../../src/services/awaitable';
import { CapturingLogger } from '../support/capturing-logger';
import { describeWithService, serviceUrl } from '../support/services';

const SMALL: RateLimitOptions = {
  limits: { 'api-key.key': { points: 3, duration: 60 }, 'api-key-invalid.ip': { points: 2, duration: 60 } },
};

describe("API keys' budgets (RateLimits.consumeNow, exhaustedNow)", () => {
  it('in memory: answered within the call, a fixed window per key, and the defaults', () => {
    const limits = new RateLimits(SMALL);
    for (let i = 0; i < 3; i++) {
      const decision = limits.consumeNow('api-key.key', 'key-a');
      expect(isPromiseLike(decision)).to.equal(false);
      expect(decision).to.deep.equal({ allowed: true, retryAfterMs: 0 });
    }
    const refused = limits.consumeNow('api-key.key', 'key-a');
    expect(refused).to.have.property('allowed', false);
    expect((refused as { retryAfterMs: number }).retryAfterMs).to.be.within(59_000, 60_000);
    expect(limits.consumeNow('api-key.key', 'key-b')).to.deep.equal({ allowed: true, retryAfterMs: 0 });
    // `consume` counts in the same windows.
    return limits.consume('api-key.key', 'key-b').then((decision) => {
      expect(decision.allowed).to.equal(true);
      expect(new RateLimits().options.limits['api-key.key']).to.deep.equal({ points: 600, duration: 60 });
      expect(new RateLimits().options.limits['api-key-invalid.ip']).to.deep.equal({ points: 60, duration: 60 });
    });
  });

  it('in memory: exhaustedNow counts nothing and refuses once the budget is spent', async () => {
    const limits = new RateLimits(SMALL);
    expect(limits.exhaustedNow('api-key-invalid.ip', '198.51.100.7')).to.deep.equal({ allowed: true, retryAfterMs: 0 });
    void limits.consumeNow('api-key-invalid.ip', '198.51.100.7');
    expect(limits.exhaustedNow('api-key-invalid.ip', '198.51.100.7')).to.have.property('allowed', true);
    void limits.consumeNow('api-key-invalid.ip', '198.51.100.7');
    expect(limits.exhaustedNow('api-key-invalid.ip', '198.51.100.7')).to.have.property('allowed', false);
    expect(limits.exhaustedNow('api-key-invalid.ip', '198.51.100.8')).to.have.property('allowed', true);
    await limits.reset('api-key-invalid.ip', '198.51.100.7');
    expect(limits.exhaustedNow('api-key-invalid.ip', '198.51.100.7')).to.have.property('allowed', true);
    // Off: everything allowed, nothing counted.
    const off = new RateLimits({ ...SMALL, enabled: false });
    for (let i = 0; i < 5; i++) expect(off.consumeNow('api-key.key', 'k')).to.have.property('allowed', true);
  });
});

describeWithService('redis', "API keys' budgets in Redis", function () {
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

  async function instance(test: string): Promise<RateLimits> {
    const logger = new CapturingLogger();
    const redis = connectRedis(serviceUrl('redis'), logger);
    clients.push(redis);
    expect(await waitForRedis(redis, 10_000), 'Redis connected').to.equal(true);
    return new RateLimits({ ...SMALL, redis, keyPrefix: `${prefix}:${test}` }, logger);
  }

  it("shares a key's budget and an address's invalid keys between instances", async () => {
    const a = await instance('shared');
    const b = await instance('shared');
    expect((await a.consumeNow('api-key.key', 'key-a')).allowed).to.equal(true);
    expect((await b.consumeNow('api-key.key', 'key-a')).allowed).to.equal(true);
    expect((await a.consumeNow('api-key.key', 'key-a')).allowed).to.equal(true);
    const refused = await b.consumeNow('api-key.key', 'key-a');
    expect(refused.allowed).to.equal(false);
    expect(refused.retryAfterMs).to.be.within(58_000, 60_000);

    expect((await b.exhaustedNow('api-key-invalid.ip', '198.51.100.9')).allowed).to.equal(true);
    await a.consumeNow('api-key-invalid.ip', '198.51.100.9');
    await a.consumeNow('api-key-invalid.ip', '198.51.100.9');
    const spent = await b.exhaustedNow('api-key-invalid.ip', '198.51.100.9');
    expect(spent.allowed).to.equal(false);
    expect(spent.retryAfterMs).to.be.within(58_000, 60_000);
    expect(await admin.get(`${prefix}:shared:api-key-invalid.ip:198.51.100.9`)).to.equal('2');
  });
});
