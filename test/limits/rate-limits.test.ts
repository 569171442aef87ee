import { expect } from 'chai';
import { RateLimits } from '../../src/limits/rate-limits';
import { CapturingLogger } from '../support/capturing-logger';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RateLimits (in memory)', () => {
  it('allows a budget per key and window, then refuses with the time left in the window', async () => {
    const limits = new RateLimits({ limits: { 'login.ip': { points: 3, duration: 60 } } });
    for (let i = 0; i < 3; i++)
      expect(await limits.consume('login.ip', 'a')).to.deep.equal({ allowed: true, retryAfterMs: 0 });
    const refused = await limits.consume('login.ip', 'a');
    expect(refused.allowed).to.equal(false);
    expect(refused.retryAfterMs).to.be.within(59_000, 60_000);
    // Other keys and other budgets are untouched.
    expect((await limits.consume('login.ip', 'b')).allowed).to.equal(true);
    expect((await limits.consume('register.ip', 'a')).allowed).to.equal(true);
    await limits.reset('login.ip', 'a');
    expect((await limits.consume('login.ip', 'a')).allowed).to.equal(true);
  });

  it('starts a fresh window when the old one ends', async () => {
    const limits = new RateLimits({ limits: { 'verify-email.ip': { points: 1, duration: 1 } } });
    expect((await limits.consume('verify-email.ip', 'a')).allowed).to.equal(true);
    expect((await limits.consume('verify-email.ip', 'a')).allowed).to.equal(false);
    await sleep(1_050);
    expect((await limits.consume('verify-email.ip', 'a')).allowed).to.equal(true);
  });

  it('backs off by default: 10 free failures, then 1 s doubling up to 5 minutes', () => {
    const limits = new RateLimits();
    const waits = Array.from({ length: 22 }, (_, i) => limits.backoffSeconds(i + 1));
    expect(waits).to.deep.equal([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
    // The schedule alone allows about 30 guesses in a window of an hour, below the cap of 50.
    let elapsed = 0;
    let attempts = 0;
    while (elapsed < 3600) elapsed += limits.backoffSeconds(++attempts);
    expect(attempts).to.be.at.most(31);
  });

  it('makes each login attempt past the free ones wait for the previous one’s delay, and a reset ends it', async () => {
    const limits = new RateLimits({ loginBackoff: { freeFailures: 1, initialDelay: 1, maxDelay: 2 } });
    expect((await limits.consume('login.account', 'k')).allowed, 'free').to.equal(true);
    expect((await limits.consume('login.account', 'k')).allowed, 'first past the free ones').to.equal(true);
    const waiting = await limits.consume('login.account', 'k');
    expect(waiting.allowed).to.equal(false);
    expect(waiting.retryAfterMs).to.be.within(900, 1_000);
    await sleep(1_050);
    expect((await limits.consume('login.account', 'k')).allowed, 'after the wait').to.equal(true);
    const longer = await limits.consume('login.account', 'k');
    expect(longer.allowed).to.equal(false);
    expect(longer.retryAfterMs, 'the delay doubled').to.be.within(1_900, 2_000);
    expect((await limits.consume('login.account', 'other')).allowed, 'another account').to.equal(true);
    await limits.reset('login.account', 'k');
    expect((await limits.consume('login.account', 'k')).allowed, 'after reset').to.equal(true);
  });

  it('caps password guesses per account window, and refusals while backing off do not count', async () => {
    const limits = new RateLimits({
      limits: { 'login.account': { points: 4, duration: 3600 } },
      loginBackoff: { freeFailures: 2, initialDelay: 1, maxDelay: 1 },
    });
    expect((await limits.consume('login.account', 'k')).allowed).to.equal(true);
    expect((await limits.consume('login.account', 'k')).allowed).to.equal(true);
    expect((await limits.consume('login.account', 'k')).allowed).to.equal(true); // 3rd: starts a 1 s wait
    for (let i = 0; i < 10; i++) expect((await limits.consume('login.account', 'k')).allowed).to.equal(false);
    await sleep(1_050);
    expect((await limits.consume('login.account', 'k')).allowed, '4th of 4').to.equal(true);
    await sleep(1_050);
    const capped = await limits.consume('login.account', 'k');
    expect(capped.allowed).to.equal(false);
    expect(capped.retryAfterMs, 'until the hour is over').to.be.above(3_590_000);
  });

  it('counts concurrent guesses exactly: a burst gets no more than the cap', async () => {
    const limits = new RateLimits({
      limits: { 'login.account': { points: 10, duration: 3600 } },
      loginBackoff: { freeFailures: 1_000 },
    });
    const decisions = await Promise.all(Array.from({ length: 40 }, () => limits.consume('login.account', 'k')));
    expect(decisions.filter((decision) => decision.allowed)).to.have.length(10);
  });

  it('can be turned off, and says so', async () => {
    const logger = new CapturingLogger();
    const limits = new RateLimits({ enabled: false, limits: { 'login.ip': { points: 1, duration: 60 } } }, logger);
    for (let i = 0; i < 5; i++) expect((await limits.consume('login.ip', 'a')).allowed).to.equal(true);
    expect(
      logger.lines
        .filter((line) => line.level === 'warn')
        .map((line) => line.message)
        .join(),
    ).to.match(/rate limits are OFF/);
  });
});
