import { expect } from 'chai';
import { Container } from 'typedi';
import { TRUSTED_PROXIES } from '../../src/di/tokens';
import { buildTestApp, DRIVERS, PREFIX, TestApp } from '../support/test-app';
import { expectRateLimited } from './expect-rate-limited';

// supertest connects from 127.0.0.1, so "behind a proxy" here means trusting loopback: the test client plays the
// proxy, and X-Forwarded-For carries what a proxy would append.

/** A fresh object each time: the counters live as long as the options object they were built from. */
const limits = () => ({ limits: { 'login.ip': { points: 2, duration: 60 } } });
const body = { username: 'nobody', password: 'wrong password here' };

function loginFrom(t: TestApp, forwardedFor?: string) {
  const request = t.http.post(`${PREFIX}/login`);
  if (forwardedFor !== undefined) request.set('X-Forwarded-For', forwardedFor);
  return request.send(body);
}

for (const driver of DRIVERS)
  describe(`rate limits: the client address behind proxies (L3) (${driver})`, () => {
    afterEach(() => Container.remove(TRUSTED_PROXIES));

    it('without a trusted proxy, a forged X-Forwarded-For buys no fresh budget', async () => {
      const t = buildTestApp({ driver, rateLimits: limits() });
      expect((await loginFrom(t, '198.51.100.1')).status).to.equal(401);
      expect((await loginFrom(t, '198.51.100.2')).status).to.equal(401);
      expectRateLimited(await loginFrom(t, '198.51.100.3'), 60);
      expectRateLimited(await loginFrom(t), 60);
    });

    it('behind a trusted proxy, each client has its own budget, keyed by the right-most untrusted address', async () => {
      const t = buildTestApp({ driver, rateLimits: limits() });
      Container.set(TRUSTED_PROXIES, ['loopback']);
      expect((await loginFrom(t, '198.51.100.1')).status).to.equal(401);
      expect((await loginFrom(t, '198.51.100.1')).status).to.equal(401);
      const third = await loginFrom(t, '198.51.100.1');
      expectRateLimited(third, 60);
      // A client prepending an address of its choice: the proxy appended the real one, which is still refused.
      expectRateLimited(await loginFrom(t, '203.0.113.50, 198.51.100.1'), 60);
      // Another client through the same proxy is unaffected.
      expect((await loginFrom(t, '198.51.100.2')).status).to.equal(401);
      // The request's log lines carry the client's address, not the proxy's.
      const refused = t.logger.lines.find((line) => (line.fields as { event?: string }).event === 'rate_limited');
      expect((refused!.fields as { ip?: string }).ip).to.equal('198.51.100.1');
    });

    it('groups a client’s IPv6 /64 into one budget', async () => {
      const t = buildTestApp({ driver, rateLimits: limits() });
      Container.set(TRUSTED_PROXIES, ['loopback']);
      expect((await loginFrom(t, '2001:db8:1:2::1')).status).to.equal(401);
      expect((await loginFrom(t, '2001:db8:1:2::ffff')).status).to.equal(401);
      expectRateLimited(await loginFrom(t, '2001:db8:1:2:abcd::9'), 60);
      expect((await loginFrom(t, '2001:db8:1:3::1')).status).to.equal(401);
    });
  });
