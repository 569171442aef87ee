import { expect } from 'chai';
import type { AccountLimit, AttemptLimiter, LimitDecision } from '../../src/services/attempt-limiter';
import { makeHarness, OTHER_PASSWORD, STRONG_PASSWORD, type Harness } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { MINUTE } from '../support/manual-clock';
import { totpCode } from '../support/rfc6238';

const STEP = 30_000;

/** A limiter that counts `login.account` guesses per key, forgets them on reset, and refuses while `refusing`. */
class SwitchedLimiter implements AttemptLimiter {
  refusing = false;
  readonly guesses = new Map<string, number>();
  resets = 0;

  async consume(limit: AccountLimit, key: string): Promise<LimitDecision> {
    if (limit !== 'login.account') return { allowed: true, retryAfterMs: 0 };
    if (this.refusing) return { allowed: false, retryAfterMs: 60_000 };
    this.guesses.set(key, (this.guesses.get(key) ?? 0) + 1);
    return { allowed: true, retryAfterMs: 0 };
  }

  async reset(limit: AccountLimit, key: string): Promise<void> {
    if (limit !== 'login.account') return;
    this.guesses.delete(key);
    this.resets++;
  }

  /** The guesses counted and not forgotten, over every key. */
  get counted(): number {
    return [...this.guesses.values()].reduce((sum, n) => sum + n, 0);
  }
}

/** A verified user with TOTP on, signed in on a session made before the factor (kept); the clock a step later. */
async function enrolled(h: Harness) {
  const token = await h.loginNewUser('alice');
  const { secret } = await h.accounts.secondFactors.startEnrolment(token);
  const { recoveryCodes } = await h.accounts.secondFactors.confirmEnrolment(token, totpCode(secret, h.clock.now()));
  h.clock.advance(STEP);
  return { secret, recoveryCodes, token };
}

/** Whether the session counts as recently authenticated: the sensitive route that only checks it answers. */
async function isRecent(h: Harness, token: string): Promise<boolean> {
  try {
    await h.accounts.sessions.endOthers(token);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'reauthentication_required') return false;
    throw error;
  }
}

describe('AccountService: re-authentication of an account with a second factor', () => {
  it('the right password alone is second_factor_required and leaves the session not recent', async () => {
    const h = makeHarness();
    const { token } = await enrolled(h);
    h.clock.advance(11 * MINUTE);
    expect(await isRecent(h, token)).to.equal(false);
    await expectAccountError(h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD), 'second_factor_required');
    expect(await isRecent(h, token)).to.equal(false);
  });

  it('a wrong code is refused and the session stays not recent; a wrong password is refused before any code', async () => {
    const h = makeHarness();
    const { token, secret, recoveryCodes } = await enrolled(h);
    h.clock.advance(11 * MINUTE);
    const right = totpCode(secret, h.clock.now());
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    await expectAccountError(
      h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD, wrong),
      'invalid_second_factor_code',
    );
    await expectAccountError(
      h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD, 'aaaa-bbbb-cccc-dddd'),
      'invalid_second_factor_code',
    );
    // The password is checked first: a wrong one spends neither the step nor the recovery code.
    await expectAccountError(h.accounts.sessions.reauthenticate(token, OTHER_PASSWORD, right), 'invalid_credentials');
    await expectAccountError(
      h.accounts.sessions.reauthenticate(token, OTHER_PASSWORD, recoveryCodes[0]),
      'invalid_credentials',
    );
    expect(await isRecent(h, token)).to.equal(false);
    expect((await h.accounts.secondFactors.status(token)).recoveryCodesLeft).to.equal(10);

    const { authenticatedUntil } = await h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD, right);
    expect(authenticatedUntil.getTime()).to.equal(h.clock.now().getTime() + 10 * MINUTE);
    expect(await isRecent(h, token)).to.equal(true);
    // The step is used: the same code proves nothing a second time.
    h.clock.advance(11 * MINUTE);
    await expectAccountError(
      h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD, right),
      'invalid_second_factor_code',
    );
    expect(await isRecent(h, token)).to.equal(false);
  });

  it('a recovery code re-authenticates once: it is spent, and the owner is told', async () => {
    const h = makeHarness();
    const { token, recoveryCodes } = await enrolled(h);
    h.clock.advance(11 * MINUTE);
    await h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD, recoveryCodes[0].toUpperCase());
    expect(await isRecent(h, token)).to.equal(true);
    expect((await h.accounts.secondFactors.status(token)).recoveryCodesLeft).to.equal(9);
    h.clock.advance(11 * MINUTE);
    await expectAccountError(
      h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD, recoveryCodes[0]),
      'invalid_second_factor_code',
    );
    expect(await isRecent(h, token)).to.equal(false);
    await h.accounts.drain();
    expect(h.sender.of('sendRecoveryCodeUsed')).to.have.length(1);
  });

  it('an account without a factor re-authenticates with the password alone, and a code sent along is ignored', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('bob');
    h.clock.advance(11 * MINUTE);
    await h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD, '123456');
    expect(await isRecent(h, token)).to.equal(true);
  });

  it('password and code count against the account as sign-in does; only a right code clears the count', async () => {
    const limiter = new SwitchedLimiter();
    const h = makeHarness({ limiter });
    const { token, secret } = await enrolled(h);
    limiter.guesses.clear();
    h.clock.advance(11 * MINUTE);

    await expectAccountError(h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD), 'second_factor_required');
    expect(limiter.counted, 'a right password alone clears nothing').to.equal(1);
    await expectAccountError(
      h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD, '000000'),
      'invalid_second_factor_code',
    );
    expect(limiter.counted, 'the password and the wrong code').to.equal(3);

    limiter.refusing = true;
    await expectAccountError(
      h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD, totpCode(secret, h.clock.now())),
      'rate_limited',
    );
    limiter.refusing = false;
    expect(await isRecent(h, token)).to.equal(false);

    await h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD, totpCode(secret, h.clock.now()));
    expect(limiter.counted, 'a right code clears the count').to.equal(0);
  });
});

describe('AccountService: a challenge answer refused by the account budget', () => {
  it('spends none of the challenge’s five answers', async () => {
    const limiter = new SwitchedLimiter();
    const h = makeHarness({ limiter });
    const { secret } = await enrolled(h);
    const result = await h.accounts.signIn('alice', STRONG_PASSWORD);
    if (result.kind !== 'challenge') throw new Error('expected a challenge');

    limiter.refusing = true;
    for (let i = 0; i < 7; i++) {
      await expectAccountError(
        h.accounts.secondFactors.completeSignIn(result.challengeToken, { code: totpCode(secret, h.clock.now()) }),
        'rate_limited',
      );
    }
    limiter.refusing = false;

    // Still five answers: four wrong ones, then the right code.
    for (let i = 0; i < 4; i++) {
      await expectAccountError(
        h.accounts.secondFactors.completeSignIn(result.challengeToken, { code: '000000' }),
        'invalid_second_factor_code',
      );
    }
    const session = await h.accounts.secondFactors.completeSignIn(result.challengeToken, {
      code: totpCode(secret, h.clock.now()),
    });
    expect((await h.accounts.authenticateSession(session)).methods).to.deep.equal(['pwd', 'otp', 'mfa']);
  });

  it('still refuses the sixth answer, even with a right code', async () => {
    const h = makeHarness({ limiter: new SwitchedLimiter() });
    const { secret } = await enrolled(h);
    const result = await h.accounts.signIn('alice', STRONG_PASSWORD);
    if (result.kind !== 'challenge') throw new Error('expected a challenge');
    for (let i = 0; i < 5; i++) {
      await expectAccountError(
        h.accounts.secondFactors.completeSignIn(result.challengeToken, { code: '000000' }),
        'invalid_second_factor_code',
      );
    }
    await expectAccountError(
      h.accounts.secondFactors.completeSignIn(result.challengeToken, { code: totpCode(secret, h.clock.now()) }),
      'invalid_login_challenge',
    );
  });
});
