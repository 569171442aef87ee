import assert from 'node:assert/strict';
import {
  describe,
  it,
  DAY_LATER,
  T0,
  HOUR_LATER,
  fulfilled,
  message,
  type ConformanceSuite,
  passwordOf,
} from '../support';
import { secondFactorFixtures } from './second-factor';

/**
 * The second factor in use: its recovery codes, switching it off, the login challenges, and what the rest of the
 * account does to it. Enrolment and the TOTP steps are in `second-factor.ts`.
 */
export function describeSecondFactorUse(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor } = suite;
  const {
    RACERS,
    MINUTE_LATER,
    FIVE_MINUTES_LATER,
    write,
    waitingFactor,
    challengeRow,
    start,
    enrolled,
    useStep,
    consumeCode,
    replaceCodes,
    disable,
    createChallenge,
    takeAttempt,
    consumeChallenge,
    kindsOf,
  } = secondFactorFixtures(suite);
  const factorOf = (userId: string) => suite.store.secondFactors.get(userId);
  const countCodes = (userId: string) => suite.store.secondFactors.countRecoveryCodes(userId);
  const findChallenge = (tokenHash: string, now: Date) => suite.store.loginChallenges.find(tokenHash, now);
  const messages = () => suite.store.outbox.list();

  describe('second factor', () => {
    describe('recovery codes', () => {
      it('consumeRecoveryCode uses a code once, only its own user’s, and returns the user for the notice only then', async () => {
        const { user, codes } = await enrolled('alice');
        const bob = await enrolled('bob');
        const notice = message('recoveryCodeUsed');

        assert.equal(await consumeCode(bob.user.id, codes[0], message('recoveryCodeUsed')), false);
        assert.equal(await consumeCode(user.id, 'unknown', message('recoveryCodeUsed')), false);
        assert.equal(await consumeCode('no-such-user', codes[0]), false);
        assert.deepEqual(await messages(), [], 'a refused code queues nothing');

        assert.equal(await consumeCode(user.id, codes[0], notice), true);
        assert.equal(await countCodes(user.id), 2);
        assert.equal(await countCodes(bob.user.id), 3);
        const [queued] = await messages();
        assert.deepEqual(
          [queued.id, queued.kind, queued.userId, queued.email],
          [notice.id, 'recoveryCodeUsed', user.id, user.email],
        );
        assert.equal(await consumeCode(user.id, codes[0], message('recoveryCodeUsed')), false);
        assert.equal((await messages()).length, 1);
      });

      it(`${RACERS} concurrent uses of one code: exactly one succeeds and one notice is queued`, async () => {
        const { user, codes } = await enrolled('alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, () => consumeCode(user.id, codes[1], message('recoveryCodeUsed'))),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.deepEqual(await kindsOf(user.id), ['recoveryCodeUsed']);
        assert.equal(await countCodes(user.id), 2);
      });

      it('replaceRecoveryCodes replaces every code while the factor is enabled, and returns the user for the notice', async () => {
        const { user, codes } = await enrolled('alice');
        const notice = message('recoveryCodesRegenerated');
        assert.equal(await replaceCodes(user.id, ['n1', 'n2', 'n3', 'n4'], HOUR_LATER, notice), true);
        assert.equal(await countCodes(user.id), 4);
        assert.equal(await consumeCode(user.id, codes[0]), false, 'the old codes are gone');
        assert.equal(await consumeCode(user.id, 'n3'), true);
        assert.deepEqual(await kindsOf(user.id), ['recoveryCodesRegenerated']);
      });

      it('replaceRecoveryCodes refuses a waiting factor, no factor and an unknown user', async () => {
        const { user } = await registered('alice');
        assert.equal(await replaceCodes(user.id, ['n1'], T0, message('recoveryCodesRegenerated')), false);
        await start(waitingFactor(user.id));
        assert.equal(await replaceCodes(user.id, ['n1'], T0, message('recoveryCodesRegenerated')), false);
        assert.equal(await replaceCodes('no-such-user', ['n1'], T0), false);
        assert.equal(await countCodes(user.id), 0);
        assert.deepEqual(await messages(), []);
      });

      it('countRecoveryCodes is 0 for a user without codes and for an unknown user', async () => {
        const { user } = await registered('alice');
        assert.equal(await countCodes(user.id), 0);
        assert.equal(await countCodes('no-such-user'), 0);
      });
    });

    describe('switching it off', () => {
      it('secondFactors.disable deletes the factor, the codes and the challenges, and returns the user for the notice', async () => {
        const { user, codes } = await enrolled('alice');
        const bob = await enrolled('bob');
        await createChallenge(challengeRow(user.id, 'alice'));
        await createChallenge(challengeRow(bob.user.id, 'bob'));
        const notice = message('secondFactorDisabled');

        assert.equal(await disable(user.id, HOUR_LATER, notice), true);

        assert.equal(await factorOf(user.id), null);
        assert.equal(await countCodes(user.id), 0);
        assert.equal(await consumeCode(user.id, codes[0]), false);
        assert.equal(await takeAttempt('challenge-alice', T0, 5), null);
        assert.deepEqual(await kindsOf(user.id), ['secondFactorDisabled']);
        assert.ok(await factorOf(bob.user.id), 'other users are untouched');
        assert.equal(await countCodes(bob.user.id), 3);
        assert.ok(await takeAttempt('challenge-bob', T0, 5));

        assert.equal(await start(waitingFactor(user.id)), true, 'enrolment can start again');
      });

      it('secondFactors.disable removes a waiting factor too, and answers null without one', async () => {
        const { user } = await registered('alice');
        assert.equal(await disable(user.id, T0, message('secondFactorDisabled')), false);
        assert.equal(await disable('no-such-user', T0, message('secondFactorDisabled')), false);
        assert.deepEqual(await messages(), [], 'nothing queued without a factor');

        await start(waitingFactor(user.id));
        assert.equal(await disable(user.id, T0), true);
        assert.equal(await factorOf(user.id), null);
      });

      it(`${RACERS} concurrent disablings: exactly one, with one notice`, async () => {
        const { user } = await enrolled('alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, () => disable(user.id, T0, message('secondFactorDisabled'))),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.deepEqual(await kindsOf(user.id), ['secondFactorDisabled']);
      });
    });

    describe('login challenges', () => {
      it('takeAttempt counts an answer and returns the challenge as it now is', async () => {
        const { user } = await enrolled('alice');
        const challenge = challengeRow(user.id, 'alice');
        await createChallenge(challenge);

        assert.deepEqual(await takeAttempt(challenge.tokenHash, T0, 5), { ...challenge, attempts: 1 });
        const second = await takeAttempt(challenge.tokenHash, MINUTE_LATER, 5);
        assert.deepEqual(second, { ...challenge, attempts: 2 });
        second!.attempts = 0;
        second!.expiresAt.setTime(0);
        assert.deepEqual(
          await takeAttempt(challenge.tokenHash, MINUTE_LATER, 5),
          { ...challenge, attempts: 3 },
          'the caller’s own copy',
        );
      });

      it('keeps a challenge without client details', async () => {
        const { user } = await enrolled('alice');
        const challenge = challengeRow(user.id, 'alice', { ip: null, userAgent: null, attempts: 2 });
        await createChallenge(challenge);
        assert.deepEqual(await takeAttempt(challenge.tokenHash, T0, 5), { ...challenge, attempts: 3 });
      });

      it('takeAttempt answers null when out of answers, expired, unknown or consumed', async () => {
        const { user } = await enrolled('alice');
        await createChallenge(challengeRow(user.id, 'worn', { attempts: 4 }));
        assert.equal((await takeAttempt('challenge-worn', T0, 5))?.attempts, 5);
        assert.equal(await takeAttempt('challenge-worn', T0, 5), null, 'the sixth');

        await createChallenge(challengeRow(user.id, 'old'));
        assert.equal(
          await takeAttempt('challenge-old', FIVE_MINUTES_LATER, 5),
          null,
          'dead from the millisecond it expires',
        );
        assert.ok(await takeAttempt('challenge-old', new Date(FIVE_MINUTES_LATER.getTime() - 1), 5));

        assert.equal(await takeAttempt('unknown', T0, 5), null);

        await createChallenge(challengeRow(user.id, 'used'));
        assert.equal(await consumeChallenge('challenge-used'), true);
        assert.equal(await takeAttempt('challenge-used', T0, 5), null);
      });

      it('loginChallenges.find reads a live challenge as it is, counting nothing; null when expired, unknown or used', async () => {
        const { user } = await enrolled('alice');
        const challenge = challengeRow(user.id, 'alice', { attempts: 2 });
        await createChallenge(challenge);
        assert.deepEqual(await findChallenge(challenge.tokenHash, T0), challenge);
        assert.deepEqual(await findChallenge(challenge.tokenHash, T0), challenge, 'still 2 answers');
        const copy = await findChallenge(challenge.tokenHash, T0);
        copy!.attempts = 9;
        assert.equal((await takeAttempt(challenge.tokenHash, T0, 5))?.attempts, 3);
        assert.equal((await findChallenge(challenge.tokenHash, T0))?.attempts, 3);

        assert.equal(await findChallenge(challenge.tokenHash, FIVE_MINUTES_LATER), null, 'expired');
        assert.ok(await findChallenge(challenge.tokenHash, new Date(FIVE_MINUTES_LATER.getTime() - 1)));
        assert.equal(await findChallenge('unknown', T0), null);
        assert.equal(await consumeChallenge(challenge.tokenHash), true);
        assert.equal(await findChallenge(challenge.tokenHash, T0), null, 'used');
      });

      it('loginChallenges.consume deletes a challenge once; an unknown one is false', async () => {
        const { user } = await enrolled('alice');
        await createChallenge(challengeRow(user.id, 'alice'));
        assert.equal(await consumeChallenge('challenge-alice'), true);
        assert.equal(await consumeChallenge('challenge-alice'), false);
        assert.equal(await consumeChallenge('unknown'), false);
      });

      it('loginChallenges.create refuses a duplicate token hash and an unknown user', async () => {
        const { user } = await enrolled('alice');
        await createChallenge(challengeRow(user.id, 'alice'));
        await assert.rejects(createChallenge(challengeRow(user.id, 'alice', { attempts: 3 })));
        assert.equal((await takeAttempt('challenge-alice', T0, 5))?.attempts, 1);
        await assert.rejects(createChallenge(challengeRow('no-such-user', 'nobody')));
        assert.equal(await findChallenge('challenge-nobody', T0), null);
      });

      it('a refused challenge undoes the rest of its transaction', async () => {
        const { user } = await enrolled('alice');
        await createChallenge(challengeRow(user.id, 'alice'));
        await assert.rejects(
          write(async (tx) => {
            await tx.loginChallenges.create(challengeRow(user.id, 'first'));
            await tx.loginChallenges.create(challengeRow(user.id, 'alice', { attempts: 3 }));
          }),
        );
        assert.equal(await findChallenge('challenge-first', T0), null);
        assert.equal((await findChallenge('challenge-alice', T0))?.attempts, 0);
      });

      it(`${RACERS} concurrent answers with 5 allowed: exactly 5 are counted`, async () => {
        const { user } = await enrolled('alice');
        await createChallenge(challengeRow(user.id, 'alice'));
        const results = fulfilled(
          await Promise.allSettled(Array.from({ length: RACERS }, () => takeAttempt('challenge-alice', T0, 5))),
        );
        const counted = results.filter((result) => result !== null);
        assert.equal(counted.length, 5);
        assert.deepEqual(counted.map((result) => result.attempts).sort(), [1, 2, 3, 4, 5]);
      });

      it(`${RACERS} concurrent consumptions of one challenge: exactly one succeeds`, async () => {
        const { user } = await enrolled('alice');
        await createChallenge(challengeRow(user.id, 'alice'));
        const results = fulfilled(
          await Promise.allSettled(Array.from({ length: RACERS }, () => consumeChallenge('challenge-alice'))),
        );
        assert.equal(results.filter(Boolean).length, 1);
      });

      it('deleteExpired removes the challenges past their expiry, and counts them', async () => {
        const { user } = await enrolled('alice');
        await createChallenge(challengeRow(user.id, 'expired', { expiresAt: MINUTE_LATER }));
        await createChallenge(challengeRow(user.id, 'live', { expiresAt: DAY_LATER }));
        const cutoffs = { now: MINUTE_LATER, sessionIdleBefore: new Date(0) };

        assert.equal(await suite.store.deleteExpired(cutoffs), 1);
        assert.equal(await consumeChallenge('challenge-expired'), false);
        assert.ok(await takeAttempt('challenge-live', MINUTE_LATER, 5));
        assert.equal(await suite.store.deleteExpired(cutoffs), 0);
        assert.ok(await factorOf(user.id), 'the factor does not expire');
        assert.equal(await countCodes(user.id), 3);
      });
    });

    describe('with the rest of the account', () => {
      it('a session keeps how it was authenticated, in the hot-path read and the list', async () => {
        const { user } = await enrolled('alice');
        const plain = await sessionFor(user.id, 'plain');
        const methods = ['pwd', 'lookup_secret', 'mfa'] as const;
        const strong = await sessionFor(user.id, 'strong', { methods, createdAt: MINUTE_LATER });
        assert.deepEqual((await suite.store.sessions.findWithUser(plain.tokenHash))?.session.methods, ['pwd']);
        assert.deepEqual((await suite.store.sessions.check(strong.tokenHash))?.methods, methods);
        assert.deepEqual(await suite.store.sessions.findWithUser(strong.tokenHash), { session: strong, user });
        assert.deepEqual(await suite.store.sessions.list(user.id), [strong, plain]);
      });

      it('a password reset ends the challenges but keeps the factor and the codes', async () => {
        const { user, codes } = await enrolled('alice');
        await useStep(user.id, 120);
        await createChallenge(challengeRow(user.id, 'alice'));
        const before = await factorOf(user.id);
        const resetHash = await resetTokenFor(user.id, 'alice');

        assert.ok(await write((tx) => tx.passwords.reset(resetHash, 'new-hash', T0)));

        assert.equal(await takeAttempt('challenge-alice', T0, 5), null);
        assert.deepEqual(await factorOf(user.id), before, 'a reset does not switch it off');
        assert.equal(await countCodes(user.id), codes.length);
        assert.equal(await useStep(user.id, 120), false, 'nor forgets the last used step');
      });

      it('a password change ends the challenges but keeps the factor and the codes', async () => {
        const { user, codes } = await enrolled('alice');
        await createChallenge(challengeRow(user.id, 'alice'));
        const bob = await enrolled('bob');
        await createChallenge(challengeRow(bob.user.id, 'bob'));

        assert.ok(await write((tx) => tx.passwords.change(user.id, passwordOf(user), 'new-hash', T0)));

        assert.equal(await takeAttempt('challenge-alice', T0, 5), null);
        assert.ok(await factorOf(user.id));
        assert.equal(await countCodes(user.id), codes.length);
        assert.ok(await takeAttempt('challenge-bob', T0, 5), 'other users are untouched');
      });

      it('users.delete removes the factor, the codes and the challenges', async () => {
        const { user, codes } = await enrolled('alice');
        await createChallenge(challengeRow(user.id, 'alice'));
        const bob = await enrolled('bob');

        assert.equal((await write((tx) => tx.users.delete(user.id, T0))).outcome, 'deleted');

        assert.equal(await factorOf(user.id), null);
        assert.equal(await countCodes(user.id), 0);
        assert.equal(await consumeCode(user.id, codes[0]), false);
        assert.equal(await takeAttempt('challenge-alice', T0, 5), null);
        assert.equal(await consumeChallenge('challenge-alice'), false);
        assert.equal(await useStep(user.id, 1000), false);
        assert.ok(await factorOf(bob.user.id), 'other users are untouched');
        assert.equal(await countCodes(bob.user.id), 3);
      });

      it('the clean-up of a registration never confirmed removes its factor too', async () => {
        const { user } = await registered('alice');
        await start(waitingFactor(user.id));
        const cutoffs = { now: T0, sessionIdleBefore: new Date(0), unverifiedCreatedBefore: T0 };
        assert.equal(await suite.store.deleteExpired(cutoffs), 1);
        assert.equal(await factorOf(user.id), null);
      });
    });
  });
}
