import assert from 'node:assert/strict';
import { describe, it, T0, HOUR_LATER, DAY_LATER, token, type ConformanceSuite } from '../support';

export function describeTokens(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor } = suite;
  describe('single-use tokens', () => {
    it('findUserByToken finds the owner of a live token of that purpose without consuming it', async () => {
      const { user, verificationHash } = await registered('alice');
      const resetHash = await resetTokenFor(user.id, 'alice');

      assert.equal((await suite.store.findUserByToken(verificationHash, 'verify_email', T0))?.id, user.id);
      assert.equal((await suite.store.findUserByToken(resetHash, 'reset_password', T0))?.id, user.id);
      assert.equal((await suite.store.findUserByToken(resetHash, 'reset_password', T0))?.id, user.id, 'still there');
      assert.equal(await suite.store.findUserByToken(resetHash, 'verify_email', T0), null, 'wrong purpose');
      assert.equal(await suite.store.findUserByToken(resetHash, 'reset_password', HOUR_LATER), null, 'expired');
      assert.equal(await suite.store.findUserByToken('unknown', 'reset_password', T0), null);
      assert.ok(await suite.store.resetPassword(resetHash, 'new-hash', T0), 'finding did not consume it');
    });

    it('verifyEmail marks the user verified, sets updatedAt, and works once', async () => {
      const { user, verificationHash } = await registered('alice');
      const now = new Date(T0.getTime() + 60_000);

      const verified = await suite.store.verifyEmail(verificationHash, now);
      assert.deepEqual(verified, { ...user, verified: true, updatedAt: now });
      assert.deepEqual(await suite.store.findUserById(user.id), verified);
      assert.equal(await suite.store.verifyEmail(verificationHash, now), null, 'second use');
    });

    it('verifyEmail refuses an unknown token, a token of another purpose, and an expired token', async () => {
      const { user, verificationHash } = await registered('alice');
      const resetHash = await resetTokenFor(user.id, 'alice');

      assert.equal(await suite.store.verifyEmail('unknown', T0), null);
      assert.equal(await suite.store.verifyEmail(resetHash, T0), null, 'reset token used to verify');
      assert.equal(await suite.store.verifyEmail(verificationHash, HOUR_LATER), null, 'at the expiry instant');
      assert.equal(await suite.store.verifyEmail(verificationHash, DAY_LATER), null, 'after expiry');
      assert.equal((await suite.store.findUserById(user.id))?.verified, false);
      assert.ok(
        await suite.store.resetPassword(resetHash, 'new-hash', T0),
        'the wrong-purpose attempt did not burn it',
      );
      assert.ok(await suite.store.verifyEmail(verificationHash, T0), 'the expired attempts did not burn it either');
    });

    it('replaceToken supersedes older tokens of the same user and purpose, and only those', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      const first = await resetTokenFor(alice.user.id, 'alice-1');
      const bobs = await resetTokenFor(bob.user.id, 'bob');
      const second = await resetTokenFor(alice.user.id, 'alice-2');

      assert.equal(await suite.store.resetPassword(first, 'hash-1', T0), null, 'superseded');
      assert.ok(await suite.store.resetPassword(second, 'hash-2', T0));
      assert.ok(await suite.store.resetPassword(bobs, 'hash-3', T0), "another user's token stays");
      assert.ok(await suite.store.verifyEmail(alice.verificationHash, T0), 'a token of another purpose stays');
    });

    it('replaceToken works for verification tokens too (resend)', async () => {
      const { user, verificationHash } = await registered('alice');
      const resent = token(user.id, 'verify_email', HOUR_LATER, 'verify-alice-again');
      await suite.store.replaceToken(resent);

      assert.equal(await suite.store.verifyEmail(verificationHash, T0), null);
      assert.ok(await suite.store.verifyEmail(resent.tokenHash, T0));
    });

    it('resetPassword replaces the hash, ends every session and reset token, keeps verification tokens', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await sessionFor(alice.user.id, 'alice-1');
      await sessionFor(alice.user.id, 'alice-2');
      const bobSession = await sessionFor(bob.user.id, 'bob');
      const resetHash = await resetTokenFor(alice.user.id, 'alice');
      const now = new Date(T0.getTime() + 1000);

      const updated = await suite.store.resetPassword(resetHash, 'new-hash', now);
      assert.deepEqual(updated, { ...alice.user, passwordHash: 'new-hash', updatedAt: now });
      assert.equal((await suite.store.findUserById(alice.user.id))?.passwordHash, 'new-hash');
      assert.equal(await suite.store.getSessionAndUser('session-alice-1'), null);
      assert.equal(await suite.store.getSessionAndUser('session-alice-2'), null);
      assert.equal(await suite.store.resetPassword(resetHash, 'other-hash', now), null, 'single use');
      assert.ok(await suite.store.getSessionAndUser(bobSession.tokenHash), "another user's session stays");
      assert.ok(await suite.store.verifyEmail(alice.verificationHash, now), 'the verification token stays');
    });

    it('resetPassword refuses a verification token, an expired token, and changes nothing then', async () => {
      const { user, verificationHash } = await registered('alice');
      await sessionFor(user.id, 'alice');
      const resetHash = await resetTokenFor(user.id, 'alice');

      assert.equal(await suite.store.resetPassword(verificationHash, 'new-hash', T0), null);
      assert.equal(await suite.store.resetPassword(resetHash, 'new-hash', HOUR_LATER), null);
      assert.equal(await suite.store.resetPassword('unknown', 'new-hash', T0), null);
      assert.equal((await suite.store.findUserById(user.id))?.passwordHash, user.passwordHash);
      assert.ok(await suite.store.getSessionAndUser('session-alice'));
    });
  });
}
