import assert from 'node:assert/strict';
import { SUPERSEDED_ERROR } from '../../../services/outbox-message';
import {
  describe,
  it,
  T0,
  HOUR_LATER,
  DAY_LATER,
  message,
  newUser,
  token,
  type ConformanceSuite,
  passwordOf,
} from '../support';

export function describeTokens(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor, replaceToken, createUser, transaction, entry } = suite;
  describe('single-use tokens', () => {
    it('tokens.findUser finds the owner of a live token of that purpose without consuming it', async () => {
      const { user, verificationHash } = await registered('alice');
      const resetHash = await resetTokenFor(user.id, 'alice');

      assert.equal((await suite.store.tokens.findUser(verificationHash, 'verify_email', T0))?.id, user.id);
      assert.equal((await suite.store.tokens.findUser(resetHash, 'reset_password', T0))?.id, user.id);
      assert.equal((await suite.store.tokens.findUser(resetHash, 'reset_password', T0))?.id, user.id, 'still there');
      assert.equal(await suite.store.tokens.findUser(resetHash, 'verify_email', T0), null, 'wrong purpose');
      assert.equal(await suite.store.tokens.findUser(resetHash, 'reset_password', HOUR_LATER), null, 'expired');
      assert.equal(await suite.store.tokens.findUser('unknown', 'reset_password', T0), null);
      assert.ok(await transaction((tx) => tx.passwords.reset(resetHash, 'new-hash', T0)), 'finding did not consume it');
    });

    it('users.confirmAddress marks the user verified, sets updatedAt, and works once', async () => {
      const { user, verificationHash } = await registered('alice');
      const now = new Date(T0.getTime() + 60_000);

      const verified = await transaction((tx) => tx.users.confirmAddress(verificationHash, now));
      assert.deepEqual(verified, { ...user, verified: true, updatedAt: now });
      assert.deepEqual(await suite.store.users.findById(user.id), verified);
      assert.equal(await transaction((tx) => tx.users.confirmAddress(verificationHash, now)), null, 'second use');
    });

    it('users.confirmAddress refuses an unknown token, a token of another purpose, and an expired token', async () => {
      const { user, verificationHash } = await registered('alice');
      const resetHash = await resetTokenFor(user.id, 'alice');

      assert.equal(await transaction((tx) => tx.users.confirmAddress('unknown', T0)), null);
      assert.equal(
        await transaction((tx) => tx.users.confirmAddress(resetHash, T0)),
        null,
        'reset token used to verify',
      );
      assert.equal(
        await transaction((tx) => tx.users.confirmAddress(verificationHash, HOUR_LATER)),
        null,
        'at the expiry instant',
      );
      assert.equal(
        await transaction((tx) => tx.users.confirmAddress(verificationHash, DAY_LATER)),
        null,
        'after expiry',
      );
      assert.equal((await suite.store.users.findById(user.id))?.verified, false);
      assert.ok(
        await transaction((tx) => tx.passwords.reset(resetHash, 'new-hash', T0)),
        'the wrong-purpose attempt did not burn it',
      );
      assert.ok(
        await transaction((tx) => tx.users.confirmAddress(verificationHash, T0)),
        'the expired attempts did not burn it either',
      );
    });

    it('tokens.replace supersedes older tokens of the same user and purpose, and only those', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      const first = await resetTokenFor(alice.user.id, 'alice-1');
      const bobs = await resetTokenFor(bob.user.id, 'bob');
      const second = await resetTokenFor(alice.user.id, 'alice-2');

      assert.equal(await transaction((tx) => tx.passwords.reset(first, 'hash-1', T0)), null, 'superseded');
      assert.ok(await transaction((tx) => tx.passwords.reset(second, 'hash-2', T0)));
      assert.ok(await transaction((tx) => tx.passwords.reset(bobs, 'hash-3', T0)), "another user's token stays");
      assert.ok(
        await transaction((tx) => tx.users.confirmAddress(alice.verificationHash, T0)),
        'a token of another purpose stays',
      );
    });

    it('tokens.replace works for verification tokens too (resend), failing the unsent link it supersedes', async () => {
      const user = newUser('alice');
      const first = message('verification');
      assert.ok(
        (await createUser(user, token(user.id, 'verify_email', HOUR_LATER, 'verify-alice'), { link: first })).ok,
      );
      const resent = token(user.id, 'verify_email', HOUR_LATER, 'verify-alice-again');
      const again = message('verification', { createdAt: new Date(T0.getTime() + 1000) });
      assert.equal((await replaceToken(resent, again))?.id, user.id);

      assert.equal(await transaction((tx) => tx.users.confirmAddress('verify-alice', T0)), null);
      assert.ok(await transaction((tx) => tx.users.confirmAddress(resent.tokenHash, T0)));
      const [dead, live] = [await entry(first), await entry(again)];
      assert.deepEqual([dead?.status, dead?.lastError, dead?.hasToken], ['failed', SUPERSEDED_ERROR, false]);
      assert.deepEqual([live?.status, live?.hasToken], ['pending', true]);
    });

    it('tokens.replace answers null, and stores nothing, for a user that does not exist', async () => {
      const orphan = token('no-such-id', 'reset_password', HOUR_LATER, 'reset-orphan');
      assert.equal(await transaction((tx) => tx.tokens.replace(orphan, { kind: 'passwordReset', at: T0 })), null);
      assert.equal(await suite.store.tokens.findUser(orphan.tokenHash, 'reset_password', T0), null);
      assert.equal(await transaction((tx) => tx.passwords.reset(orphan.tokenHash, 'new-hash', T0)), null);
    });

    it('passwords.reset replaces the hash, ends every session and reset token, keeps verification tokens', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await sessionFor(alice.user.id, 'alice-1');
      await sessionFor(alice.user.id, 'alice-2');
      const bobSession = await sessionFor(bob.user.id, 'bob');
      const resetHash = await resetTokenFor(alice.user.id, 'alice');
      const now = new Date(T0.getTime() + 1000);

      const updated = await transaction((tx) => tx.passwords.reset(resetHash, 'new-hash', now));
      assert.deepEqual(updated, { ...alice.user, updatedAt: now, credentialEpoch: 1 });
      assert.equal(await suite.store.passwords.hashOf(alice.user.id), 'new-hash');
      assert.equal(await suite.store.sessions.findWithUser('session-alice-1'), null);
      assert.equal(await suite.store.sessions.findWithUser('session-alice-2'), null);
      assert.equal(await transaction((tx) => tx.passwords.reset(resetHash, 'other-hash', now)), null, 'single use');
      assert.ok(await suite.store.sessions.findWithUser(bobSession.tokenHash), "another user's session stays");
      assert.ok(
        await transaction((tx) => tx.users.confirmAddress(alice.verificationHash, now)),
        'the verification token stays',
      );
    });

    it('passwords.reset refuses a verification token, an expired token, and changes nothing then', async () => {
      const { user, verificationHash } = await registered('alice');
      await sessionFor(user.id, 'alice');
      const resetHash = await resetTokenFor(user.id, 'alice');

      assert.equal(await transaction((tx) => tx.passwords.reset(verificationHash, 'new-hash', T0)), null);
      assert.equal(await transaction((tx) => tx.passwords.reset(resetHash, 'new-hash', HOUR_LATER)), null);
      assert.equal(await transaction((tx) => tx.passwords.reset('unknown', 'new-hash', T0)), null);
      assert.equal(await suite.store.passwords.hashOf(user.id), passwordOf(user));
      assert.ok(await suite.store.sessions.findWithUser('session-alice'));
    });
  });
}
