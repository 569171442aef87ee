import { expect } from 'chai';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import type { AccountService } from '../../src/services/account-service';
import { bearer, buildTestApp, PREFIX, TEST_SECRET } from '../support/test-app';

const OVERLOADED = {
  detail: { detail: 'Too many sign-in attempts in progress; retry shortly', code: 'service_unavailable' },
};

/** Resolves once a hash asked for now would be refused (the one slot is taken and nothing may wait). */
async function untilSaturated(accounts: AccountService): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      accounts.refuseIfHashingSaturated();
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error('the hashing queue never filled');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe('HTTP: password hashing overload (C6)', () => {
  it('answers 503 JSON with Retry-After past the hashing queue, and serves again afterwards', async () => {
    const t = buildTestApp();
    // The real cost (about 25 ms a hash), so that the burst's requests overlap in the queue.
    Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, hashingQueue: { concurrency: 1, maxQueued: 1 } });
    await t.createUser('alice');
    const burst = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: 'not the password at all' }),
      ),
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

  it('refuses the routes that hash before validating their bodies or looking anything up while the queue is full', async () => {
    const t = buildTestApp();
    // One slot, nobody waiting, and hashes slow enough (about half a second) to hold the slot while requests arrive.
    Container.set(ACCOUNT_OPTIONS, {
      secretKey: TEST_SECRET,
      hashing: { memoryCost: 19_456, timeCost: 40 },
      hashingQueue: { concurrency: 1, maxQueued: 0 },
    });
    const accounts = resolveAccountService();
    const token = await t.loginNewUser('alice');

    const holding = accounts.login('alice', 'not the password at all').catch((error: unknown) => error);
    await untilSaturated(accounts);
    t.calls.clear();

    const refused = [
      await t.http.post(`${PREFIX}/login`).send({}),
      await t.http.post(`${PREFIX}/login`).send({ username: 'nobody', password: 'whatever it is' }),
      await t.http.post(`${PREFIX}/register`).send({ username: 'bob' }),
      await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token: 'x' }),
      await t.http.post(`${PREFIX}/password/change`).set(bearer(token)).send({}),
      await t.http.delete(`${PREFIX}/account`).set(bearer(token)).send({}),
    ];
    for (const [index, response] of refused.entries()) {
      expect(response.status, `request ${index}`).to.equal(503);
      expect(response.headers['retry-after']).to.equal('1');
      expect(response.body).to.deep.equal(OVERLOADED);
    }
    expect(
      [...t.calls.values()].reduce((sum, count) => sum + count, 0),
      'store calls while refusing',
    ).to.equal(0);
    // Routes that do not hash are not refused.
    await t.http.post(`${PREFIX}/verify-email`).send({ token: 'x' }).expect(400);
    await t.http.get(`${PREFIX}/me`).set(bearer(token)).expect(200);

    expect(((await holding) as { code?: string }).code).to.equal('invalid_credentials');
    await t.http.post(`${PREFIX}/login`).send({}).expect(400);
  });
});
