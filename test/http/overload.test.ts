import { expect } from 'chai';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { buildTestApp, PREFIX, TEST_SECRET } from '../support/test-app';

describe('HTTP: password hashing overload (C6)', () => {
  it('answers 503 JSON with Retry-After past the hashing queue, and serves again afterwards', async () => {
    const t = buildTestApp();
    // The real cost (about 25 ms a hash), so that the burst's requests overlap in the queue.
    Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, hashingQueue: { concurrency: 1, maxQueued: 1 } });
    await t.createUser('alice');
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: 'not the password at all' })),
    );
    const busy = burst.filter((response) => response.status === 503);
    expect(busy.length, 'some answers were 503').to.be.greaterThan(0);
    expect(burst.every((response) => [401, 503].includes(response.status))).to.equal(true);
    for (const response of busy) {
      expect(response.headers['retry-after']).to.equal('1');
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(response.body).to.deep.equal({
        detail: { detail: 'Too many sign-in attempts in progress; retry shortly', code: 'service_unavailable' },
      });
    }
    await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: 'not the password at all' }).expect(401);
  });
});
