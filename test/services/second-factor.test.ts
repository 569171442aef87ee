import { expect } from 'chai';
import { makeHarness, OTHER_PASSWORD, STRONG_PASSWORD, type Harness } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { MINUTE } from '../support/manual-clock';
import { totpCode } from '../support/rfc6238';

const SECOND = 1000;

/** A verified user with TOTP on; returns the secret, the recovery codes and a fresh session. */
async function enrolled(h: Harness, username = 'alice') {
  const token = await h.loginNewUser(username);
  const { secret, uri } = await h.accounts.secondFactors.startEnrolment(token);
  expect(uri)
    .to.match(/^otpauth:\/\/totp\//)
    .and.include(`secret=${secret}`);
  const { recoveryCodes } = await h.accounts.secondFactors.confirmEnrolment(token, totpCode(secret, h.clock.now()));
  // The next code must come from a later step than the one enrolment used.
  h.clock.advance(30 * SECOND);
  return { secret, recoveryCodes, token };
}

async function challenge(h: Harness, username = 'alice'): Promise<string> {
  const result = await h.accounts.signIn(username, STRONG_PASSWORD);
  if (result.kind !== 'challenge') throw new Error('expected a challenge');
  return result.challengeToken;
}

describe('AccountService: second factor', () => {
  it('enrols only with a right code, and then gives ten distinct recovery codes once', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    const { secret } = await h.accounts.secondFactors.startEnrolment(token);
    expect((await h.accounts.secondFactors.status(token)).pending).to.equal(true);
    await expectAccountError(h.accounts.secondFactors.confirmEnrolment(token, '000000'), 'invalid_second_factor_code');
    const { recoveryCodes } = await h.accounts.secondFactors.confirmEnrolment(token, totpCode(secret, h.clock.now()));
    expect(recoveryCodes).to.have.length(10);
    expect(new Set(recoveryCodes).size).to.equal(10);
    for (const code of recoveryCodes) expect(code).to.match(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    expect(await h.accounts.secondFactors.status(token)).to.deep.equal({
      enabled: true,
      pending: false,
      recoveryCodesLeft: 10,
    });
    await expectAccountError(h.accounts.secondFactors.startEnrolment(token), 'second_factor_already_enabled');
    await h.accounts.drain();
    expect(h.sender.of('sendSecondFactorEnabled')).to.have.length(1);
  });

  it('a session records how it was made: a password, then a code proved on it; the enrolling one outlives the others', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    const other = await h.accounts.login('alice', STRONG_PASSWORD);
    expect((await h.accounts.authenticateSession(token)).methods).to.deep.equal(['pwd']);
    const { secret } = await h.accounts.secondFactors.startEnrolment(token);
    await h.accounts.secondFactors.confirmEnrolment(token, totpCode(secret, h.clock.now()));
    expect((await h.accounts.authenticateSession(token)).methods).to.deep.equal(['pwd', 'otp', 'mfa']);
    expect(await h.accounts.validateSession(other)).to.equal(null);
    // The credential state moved with the other sessions' end; the enrolling session was moved with it.
    expect((await h.store.users.findByUsernameKey('alice'))?.credentialEpoch).to.equal(1);
  });

  it('a challenge holds the credential state its password was checked in', async () => {
    const h = makeHarness();
    await enrolled(h);
    const pending = await challenge(h);
    const user = (await h.store.users.findByUsernameKey('alice'))!;
    const found = await h.store.loginChallenges.find(h.accounts['core'].tokens.hash(pending), h.clock.now());
    expect(found?.credentialEpoch).to.equal(user.credentialEpoch).and.to.equal(1);
  });

  it('enrolment needs a recent password', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    h.clock.advance(10 * MINUTE);
    await expectAccountError(h.accounts.secondFactors.startEnrolment(token), 'reauthentication_required');
  });

  it('a right password gives a challenge, not a session; a right code then gives a second-factor session', async () => {
    const h = makeHarness();
    const { secret } = await enrolled(h);
    await expectAccountError(h.accounts.login('alice', STRONG_PASSWORD), 'second_factor_required');
    const result = await h.accounts.signIn('alice', STRONG_PASSWORD, { ip: '192.0.2.9' });
    expect(result.kind).to.equal('challenge');
    if (result.kind !== 'challenge') return;
    expect(result.methods).to.deep.equal(['totp', 'recovery_code']);
    expect(result.expiresAt.getTime() - h.clock.now().getTime()).to.equal(5 * MINUTE);
    const session = await h.accounts.secondFactors.completeSignIn(result.challengeToken, {
      code: totpCode(secret, h.clock.now()),
    });
    expect((await h.accounts.authenticateSession(session)).methods).to.deep.equal(['pwd', 'otp', 'mfa']);
    expect((await h.accounts.sessions.list(session))[0].ip).to.equal('192.0.2.9');
    // The challenge is spent.
    await expectAccountError(
      h.accounts.secondFactors.completeSignIn(result.challengeToken, { code: totpCode(secret, h.clock.now()) }),
      'invalid_login_challenge',
    );
  });

  it('a code works once: the same step, and an earlier one inside the drift window, are refused', async () => {
    const h = makeHarness();
    const { secret } = await enrolled(h);
    const now = h.clock.now();
    await h.accounts.secondFactors.completeSignIn(await challenge(h), { code: totpCode(secret, now) });
    await expectAccountError(
      h.accounts.secondFactors.completeSignIn(await challenge(h), { code: totpCode(secret, now) }),
      'invalid_second_factor_code',
    );
    await expectAccountError(
      h.accounts.secondFactors.completeSignIn(await challenge(h), { code: totpCode(secret, now, -1) }),
      'invalid_second_factor_code',
    );
    // One step of drift is allowed forward, and a code two steps away is not a code at all.
    await expectAccountError(
      h.accounts.secondFactors.completeSignIn(await challenge(h), { code: totpCode(secret, now, 2) }),
      'invalid_second_factor_code',
    );
    await h.accounts.secondFactors.completeSignIn(await challenge(h), { code: totpCode(secret, now, 1) });
  });

  it('two answers with one code at once: exactly one session', async () => {
    const h = makeHarness();
    const { secret } = await enrolled(h);
    const code = totpCode(secret, h.clock.now());
    const results = await Promise.allSettled([
      h.accounts.secondFactors.completeSignIn(await challenge(h), { code }),
      h.accounts.secondFactors.completeSignIn(await challenge(h), { code }),
    ]);
    expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
  });

  it('a recovery code works once, whatever its case and dashes, and its use is told', async () => {
    const h = makeHarness();
    const { recoveryCodes, token } = await enrolled(h);
    const typed = recoveryCodes[3].toUpperCase().replace(/-/g, ' ');
    const session = await h.accounts.secondFactors.completeSignIn(await challenge(h), { recoveryCode: typed });
    // RFC 8176 has no name for a recovery code: Kratos's `lookup_secret`, and `mfa` all the same.
    expect((await h.accounts.authenticateSession(session)).methods).to.deep.equal(['pwd', 'lookup_secret', 'mfa']);
    await expectAccountError(
      h.accounts.secondFactors.completeSignIn(await challenge(h), { recoveryCode: recoveryCodes[3] }),
      'invalid_second_factor_code',
    );
    expect((await h.accounts.secondFactors.status(token)).recoveryCodesLeft).to.equal(9);
    await h.accounts.drain();
    expect(h.sender.of('sendRecoveryCodeUsed')).to.have.length(1);
  });

  it("another user's recovery code is no code for this account", async () => {
    const h = makeHarness();
    await enrolled(h, 'alice');
    const bob = await enrolled(h, 'bob');
    await expectAccountError(
      h.accounts.secondFactors.completeSignIn(await challenge(h, 'alice'), { recoveryCode: bob.recoveryCodes[0] }),
      'invalid_second_factor_code',
    );
  });

  it('a challenge takes five answers: the sixth is refused even with the right code', async () => {
    const h = makeHarness();
    const { secret } = await enrolled(h);
    const token = await challenge(h);
    for (let i = 0; i < 5; i++) {
      await expectAccountError(
        h.accounts.secondFactors.completeSignIn(token, { code: '000000' }),
        'invalid_second_factor_code',
      );
    }
    await expectAccountError(
      h.accounts.secondFactors.completeSignIn(token, { code: totpCode(secret, h.clock.now()) }),
      'invalid_login_challenge',
    );
  });

  it('a challenge expires, and dies with a password change', async () => {
    const h = makeHarness();
    const { secret, token: session } = await enrolled(h);
    const late = await challenge(h);
    h.clock.advance(5 * MINUTE);
    await expectAccountError(
      h.accounts.secondFactors.completeSignIn(late, { code: totpCode(secret, h.clock.now()) }),
      'invalid_login_challenge',
    );
    const pending = await challenge(h);
    await h.accounts.sessions.reauthenticate(session, STRONG_PASSWORD, totpCode(secret, h.clock.now()));
    await h.accounts.changePassword(session, STRONG_PASSWORD, OTHER_PASSWORD);
    await expectAccountError(
      h.accounts.secondFactors.completeSignIn(pending, { code: totpCode(secret, h.clock.now()) }),
      'invalid_login_challenge',
    );
  });

  it('a password reset keeps the second factor on', async () => {
    const h = makeHarness();
    const { secret } = await enrolled(h);
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    await h.accounts.confirmPasswordReset(h.sender.lastToken('sendPasswordReset'), OTHER_PASSWORD);
    const result = await h.accounts.signIn('alice', OTHER_PASSWORD);
    expect(result.kind).to.equal('challenge');
    if (result.kind === 'challenge') {
      await h.accounts.secondFactors.completeSignIn(result.challengeToken, { code: totpCode(secret, h.clock.now()) });
    }
  });

  it('regenerating codes and switching off need a recent password and a code', async () => {
    const h = makeHarness();
    const { secret, recoveryCodes } = await enrolled(h);
    const session = await h.accounts.secondFactors.completeSignIn(await challenge(h), {
      code: totpCode(secret, h.clock.now()),
    });
    h.clock.advance(11 * MINUTE);
    await expectAccountError(
      h.accounts.secondFactors.regenerateRecoveryCodes(session, totpCode(secret, h.clock.now())),
      'reauthentication_required',
    );
    // A recovery code, so the authenticator's current step is still free for the change itself.
    await h.accounts.sessions.reauthenticate(session, STRONG_PASSWORD, recoveryCodes[1]);
    await expectAccountError(
      h.accounts.secondFactors.regenerateRecoveryCodes(session, '123456'),
      'invalid_second_factor_code',
    );
    const fresh = await h.accounts.secondFactors.regenerateRecoveryCodes(session, totpCode(secret, h.clock.now()));
    expect(fresh.recoveryCodes).to.have.length(10).and.not.include(recoveryCodes[0]);
    await expectAccountError(h.accounts.secondFactors.disable(session, recoveryCodes[0]), 'invalid_second_factor_code');
    await h.accounts.secondFactors.disable(session, fresh.recoveryCodes[0]);
    expect((await h.accounts.signIn('alice', STRONG_PASSWORD)).kind).to.equal('session');
    await expectAccountError(h.accounts.secondFactors.disable(session, '123456'), 'second_factor_not_enabled');
    await h.accounts.drain();
    expect(h.sender.of('sendRecoveryCodesRegenerated')).to.have.length(1);
    expect(h.sender.of('sendSecondFactorDisabled')).to.have.length(1);
  });

  it('an operator switches it off, and that is logged', async () => {
    const h = makeHarness();
    await enrolled(h);
    expect(await h.accounts.secondFactors.disableFor('ALICE')).to.equal(true);
    expect(await h.accounts.secondFactors.disableFor('alice')).to.equal(false);
    expect(h.logger.events('second_factor_disabled').map((e) => e.outcome)).to.deep.equal(['by_operator']);
    expect((await h.accounts.signIn('alice', STRONG_PASSWORD)).kind).to.equal('session');
  });

  it('after the secret key changed, codes are refused (not an error) and a recovery code still works', async () => {
    const h = makeHarness();
    const { secret, recoveryCodes } = await enrolled(h);
    const rotated = makeHarness({ store: h.store, options: { secretKey: 'a-completely-different-secret-key-of-40b' } });
    rotated.clock.set(h.clock.now());
    const result = await rotated.accounts.signIn('alice', STRONG_PASSWORD);
    if (result.kind !== 'challenge') throw new Error('expected a challenge');
    await expectAccountError(
      rotated.accounts.secondFactors.completeSignIn(result.challengeToken, {
        code: totpCode(secret, rotated.clock.now()),
      }),
      'invalid_second_factor_code',
    );
    expect(rotated.logger.events('second_factor_unreadable')).to.have.length(1);
    // Recovery codes are keyed hashes under the old key too: only an operator can help now.
    await expectAccountError(
      rotated.accounts.secondFactors.completeSignIn(result.challengeToken, { recoveryCode: recoveryCodes[0] }),
      'invalid_second_factor_code',
    );
    expect(await rotated.accounts.secondFactors.disableFor('alice')).to.equal(true);
  });

  it('never logs or stores the secret or a code in usable form', async () => {
    const h = makeHarness();
    const { secret, recoveryCodes } = await enrolled(h);
    const factor = await h.store.secondFactors.get((await h.store.users.findByUsernameKey('alice'))!.id);
    expect(factor!.sealedSecret).to.not.include(secret);
    const text = h.logger.text();
    expect(text).to.not.include(secret);
    for (const code of recoveryCodes) expect(text).to.not.include(code);
  });
});
