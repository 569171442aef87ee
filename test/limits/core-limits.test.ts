import { expect } from 'chai';
import { RateLimits } from '../../src/limits/rate-limits';
import type { AccountLimit, AttemptLimiter, LimitDecision } from '../../src/services/attempt-limiter';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { makeHarness, STRONG_PASSWORD } from '../support/core-harness';
import { countingStore } from '../support/counting-store';
import { expectAccountError } from '../support/expect-account-error';
import { CHEAP_HASHING } from '../support/fixtures';

const CHEAP = { hashing: CHEAP_HASHING };
const WRONG = 'not the password at all';

/** Allows everything and remembers what it was asked. */
class RecordingLimiter implements AttemptLimiter {
  readonly calls: { op: 'consume' | 'reset'; limit: AccountLimit; key: string }[] = [];
  async consume(limit: AccountLimit, key: string): Promise<LimitDecision> {
    this.calls.push({ op: 'consume', limit, key });
    return { allowed: true, retryAfterMs: 0 };
  }
  async reset(limit: AccountLimit, key: string): Promise<void> {
    this.calls.push({ op: 'reset', limit, key });
  }
}

describe('the account core and its limiter (L1)', () => {
  it('counts nothing when built without a limiter', async () => {
    const h = makeHarness({ options: CHEAP });
    await h.createVerifiedUser('alice');
    for (let i = 0; i < 20; i++) await expectAccountError(h.accounts.login('alice', WRONG), 'invalid_credentials');
    expect(await h.accounts.login('alice', STRONG_PASSWORD)).to.be.a('string');
  });

  it('hands the limiter keyed hashes only: the same for any spelling of a name, never the name or address', async () => {
    const limiter = new RecordingLimiter();
    const h = makeHarness({ options: CHEAP, limiter });
    await h.createVerifiedUser('alice');
    await expectAccountError(h.accounts.login('alice', WRONG), 'invalid_credentials');
    await expectAccountError(h.accounts.login('ALICE', WRONG), 'invalid_credentials');
    await h.accounts.requestPasswordReset('Alice@Example.com');
    await h.accounts.drain();

    const [first, second] = limiter.calls.filter((call) => call.limit === 'login.account');
    expect(first.key).to.equal(second.key);
    const mail = limiter.calls.find((call) => call.limit === 'reset-request.email')!;
    for (const { key } of limiter.calls) {
      expect(key).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(key.toLowerCase()).to.not.include('alice');
    }
    // Keyed by the secret: another deployment's keys are unrelated.
    const other = new RecordingLimiter();
    const h2 = makeHarness({
      options: { ...CHEAP, secretKey: 'another-secret-key-0123456789abcdef-0123' },
      limiter: other,
    });
    await expectAccountError(h2.accounts.login('alice', WRONG), 'invalid_credentials');
    expect(other.calls[0].key).to.not.equal(first.key);
    expect(mail.key).to.not.equal(first.key);
  });

  it('never lets more than the cap of wrong passwords through in a window, then refuses even the right one', async () => {
    // Backoff out of the way, to see the hard cap alone: 50 a window of an hour by default.
    const h = makeHarness({ options: CHEAP, limiter: new RateLimits({ loginBackoff: { freeFailures: 1_000 } }) });
    await h.createVerifiedUser('alice');
    for (let i = 0; i < 50; i++) await expectAccountError(h.accounts.login('alice', WRONG), 'invalid_credentials');
    const refused = await expectAccountError(h.accounts.login('alice', WRONG), 'rate_limited');
    expect(refused.retryAfterSeconds).to.be.within(3590, 3600);
    await expectAccountError(h.accounts.login('alice', STRONG_PASSWORD), 'rate_limited');
    expect(
      h.logger.lines.filter((line) => (line.fields as { event?: string }).event === 'rate_limited'),
    ).to.have.length(2);

    // The owner's way back: reset by email, which the throttle never blocks, and which clears it.
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    await h.accounts.confirmPasswordReset(h.sender.lastToken('sendPasswordReset'), 'amber kettle sings at 9');
    expect(await h.accounts.login('alice', 'amber kettle sings at 9')).to.be.a('string');
  });

  it('refuses a throttled login before looking anything up or hashing', async () => {
    const counted = countingStore(new MemoryUserStore());
    const limiter = new RateLimits({ limits: { 'login.account': { points: 1, duration: 60 } } });
    const h = makeHarness({ store: counted.store, options: CHEAP, limiter });
    await expectAccountError(h.accounts.login('nobody', WRONG), 'invalid_credentials');
    counted.calls.clear();
    await expectAccountError(h.accounts.login('nobody', WRONG), 'rate_limited');
    expect([...counted.calls.keys()]).to.deep.equal([]);
  });
});
