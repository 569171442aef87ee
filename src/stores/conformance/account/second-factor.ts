import assert from 'node:assert/strict';
import type { StoredLoginChallenge, StoredSecondFactor } from '../../../services/user-store';
import { describe, it, DAY_LATER, T0, HOUR_LATER, fulfilled, message, type ConformanceSuite } from '../support';

export function describeSecondFactor(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor } = suite;
  const RACERS = 20;
  const MINUTE_LATER = new Date(T0.getTime() + 60_000);
  const FIVE_MINUTES_LATER = new Date(T0.getTime() + 5 * 60_000);

  const waitingFactor = (userId: string, overrides: Partial<StoredSecondFactor> = {}): StoredSecondFactor => ({
    userId,
    sealedSecret: `v1.sealed-secret-of-${userId}`,
    enabled: false,
    createdAt: new Date(T0),
    enabledAt: null,
    lastUsedStep: null,
    ...overrides,
  });

  const challengeRow = (
    userId: string,
    label: string,
    overrides: Partial<StoredLoginChallenge> = {},
  ): StoredLoginChallenge => ({
    tokenHash: `challenge-${label}`,
    userId,
    passwordBinding: `binding-${label}`,
    attempts: 0,
    createdAt: new Date(T0),
    expiresAt: new Date(FIVE_MINUTES_LATER),
    ip: '203.0.113.7',
    userAgent: 'Authenticator test',
    ...overrides,
  });

  /** `enableSecondFactor` of the factor `waitingFactor` made (or of `sealedSecret`), keeping the other sessions. */
  const enable = (
    userId: string,
    step: number,
    recoveryCodeHashes: readonly string[],
    now: Date,
    notice?: ReturnType<typeof message>,
    sessionTokenHash?: string,
    sealedSecret = waitingFactor(userId).sealedSecret,
  ) =>
    suite.store.enableSecondFactor({ userId, sealedSecret, step, recoveryCodeHashes, now, sessionTokenHash }, notice);

  /** A user whose factor is enabled at step 100 with recovery codes `code-<label>-1..3`. */
  const enrolled = async (label: string) => {
    const { user } = await registered(label);
    assert.equal(await suite.store.startSecondFactor(waitingFactor(user.id)), true);
    const codes = [1, 2, 3].map((n) => `code-${label}-${n}`);
    assert.equal(await enable(user.id, 100, codes, MINUTE_LATER), true);
    return { user, codes };
  };

  const kindsOf = async (userId: string) =>
    (await suite.store.listMessages())
      .filter((entry) => entry.userId === userId)
      .map((entry) => entry.kind)
      .sort();

  describe('second factor', () => {
    describe('enrolment', () => {
      it('startSecondFactor stores a waiting factor, replacing a waiting one; getSecondFactor returns a copy', async () => {
        const { user } = await registered('alice');
        assert.equal(await suite.store.getSecondFactor(user.id), null);

        assert.equal(await suite.store.startSecondFactor(waitingFactor(user.id)), true);
        assert.deepEqual(await suite.store.getSecondFactor(user.id), waitingFactor(user.id));

        const again = waitingFactor(user.id, { sealedSecret: 'v1.another', createdAt: MINUTE_LATER });
        assert.equal(await suite.store.startSecondFactor(again), true, 'a waiting factor is replaced');
        const found = await suite.store.getSecondFactor(user.id);
        assert.deepEqual(found, again);

        found!.sealedSecret = 'changed';
        found!.createdAt.setTime(0);
        assert.deepEqual(await suite.store.getSecondFactor(user.id), again, 'the caller’s own copy');
      });

      it('startSecondFactor stores the factor as waiting, whatever it is given', async () => {
        const { user } = await registered('alice');
        const given = waitingFactor(user.id, { enabled: true, enabledAt: MINUTE_LATER });
        assert.equal(await suite.store.startSecondFactor(given), true);
        assert.deepEqual(await suite.store.getSecondFactor(user.id), waitingFactor(user.id));
        assert.equal(await suite.store.useTotpStep(user.id, 1), false, 'a waiting factor accepts no code');
      });

      it('startSecondFactor refuses while a factor is enabled, and for an unknown user', async () => {
        const { user } = await enrolled('alice');
        const before = await suite.store.getSecondFactor(user.id);
        assert.equal(await suite.store.startSecondFactor(waitingFactor(user.id, { sealedSecret: 'v1.new' })), false);
        assert.deepEqual(await suite.store.getSecondFactor(user.id), before, 'the enabled factor is untouched');
        assert.equal(await suite.store.countRecoveryCodes(user.id), 3);

        assert.equal(await suite.store.startSecondFactor(waitingFactor('no-such-user')), false);
        assert.equal(await suite.store.getSecondFactor('no-such-user'), null);
      });

      it('enableSecondFactor enables a waiting factor with its step, stores the codes and queues the notice', async () => {
        const { user } = await registered('alice');
        await suite.store.startSecondFactor(waitingFactor(user.id));
        const notice = message('secondFactorEnabled');

        assert.equal(await enable(user.id, 4242, ['c1', 'c2'], MINUTE_LATER, notice), true);

        assert.deepEqual(
          await suite.store.getSecondFactor(user.id),
          waitingFactor(user.id, { enabled: true, enabledAt: MINUTE_LATER, lastUsedStep: 4242 }),
        );
        assert.equal(await suite.store.countRecoveryCodes(user.id), 2);
        const [queued] = await suite.store.listMessages();
        assert.deepEqual(
          [queued.id, queued.kind, queued.userId, queued.username, queued.email, queued.status],
          [notice.id, 'secondFactorEnabled', user.id, user.username, user.email, 'pending'],
        );
      });

      it("enableSecondFactor marks the enrolling session as made with a second factor, and no one else's", async () => {
        const { user } = await registered('alice');
        const bob = await registered('bob');
        const asking = await sessionFor(user.id, 'asking');
        const other = await sessionFor(user.id, 'other');
        const bobs = await sessionFor(bob.user.id, 'bobs');
        assert.equal(await suite.store.startSecondFactor(waitingFactor(user.id)), true);
        assert.equal(await enable(user.id, 7, ['c'], MINUTE_LATER, undefined, asking.tokenHash), true);
        const flag = async (tokenHash: string) =>
          (await suite.store.getSessionAndUser(tokenHash))!.session.secondFactor;
        assert.equal(await flag(asking.tokenHash), true);
        assert.equal(await flag(other.tokenHash), false);
        assert.equal(await suite.store.startSecondFactor(waitingFactor(bob.user.id)), true);
        assert.equal(await enable(bob.user.id, 7, ['d'], MINUTE_LATER, undefined, other.tokenHash), true);
        assert.equal(await flag(other.tokenHash), false, "another user's session is not marked");
        assert.equal(await flag(bobs.tokenHash), false);
      });

      it('enableSecondFactor works only from a waiting factor: not twice, not without one', async () => {
        const { user, codes } = await enrolled('alice');
        const before = await suite.store.getSecondFactor(user.id);

        assert.equal(
          await enable(user.id, 999, ['other'], HOUR_LATER, message('secondFactorEnabled')),
          false,
          'already enabled',
        );
        assert.deepEqual(await suite.store.getSecondFactor(user.id), before, 'step and instant untouched');
        assert.equal(await suite.store.countRecoveryCodes(user.id), codes.length, 'the codes are untouched');
        assert.equal(await suite.store.consumeRecoveryCode(user.id, 'other'), false);

        const bob = await registered('bob');
        assert.equal(await enable(bob.user.id, 1, ['b1'], T0, message('secondFactorEnabled')), false);
        assert.equal(await enable('no-such-user', 1, ['x1'], T0), false);
        assert.equal(await suite.store.getSecondFactor(bob.user.id), null);
        assert.equal(await suite.store.countRecoveryCodes(bob.user.id), 0);
        assert.deepEqual(await suite.store.listMessages(), [], 'no refused call queued a notice');
      });

      it(`${RACERS} concurrent enablings of one waiting factor: exactly one, with its codes and one notice`, async () => {
        const { user } = await registered('alice');
        await suite.store.startSecondFactor(waitingFactor(user.id));
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, (_, i) =>
              enable(user.id, 100 + i, [`race-${i}-a`, `race-${i}-b`], T0, message('secondFactorEnabled')),
            ),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        const winner = results.indexOf(true);
        assert.equal((await suite.store.getSecondFactor(user.id))?.lastUsedStep, 100 + winner);
        assert.equal(await suite.store.countRecoveryCodes(user.id), 2);
        assert.equal(await suite.store.consumeRecoveryCode(user.id, `race-${winner}-a`), true, 'the winner’s codes');
        assert.equal((await suite.store.listMessages()).length, 1);
      });
      it('enableSecondFactor switches on only the waiting factor it names: a replaced one is refused', async () => {
        const { user } = await registered('alice');
        const first = waitingFactor(user.id, { sealedSecret: 'v1.first' });
        const second = waitingFactor(user.id, { sealedSecret: 'v1.second', createdAt: new Date(MINUTE_LATER) });
        assert.equal(await suite.store.startSecondFactor(first), true);
        assert.equal(await suite.store.startSecondFactor(second), true);

        const session = await sessionFor(user.id, 'enrolling');
        const other = await sessionFor(user.id, 'other');
        assert.equal(
          await suite.store.enableSecondFactor(
            {
              userId: user.id,
              sealedSecret: first.sealedSecret,
              step: 5,
              recoveryCodeHashes: ['stale-1'],
              now: HOUR_LATER,
              sessionTokenHash: session.tokenHash,
              endOtherSessions: true,
            },
            message('secondFactorEnabled'),
          ),
          false,
        );
        assert.deepEqual(await suite.store.getSecondFactor(user.id), second, 'the newer secret still waits');
        assert.equal(await suite.store.countRecoveryCodes(user.id), 0, 'no codes were stored');
        assert.equal((await suite.store.getSessionAndUser(session.tokenHash))!.session.secondFactor, false);
        assert.ok(await suite.store.getSessionAndUser(other.tokenHash), 'no session ended');
        assert.deepEqual(await suite.store.listMessages(), [], 'no notice');

        assert.equal(
          await enable(user.id, 5, ['fresh-1'], HOUR_LATER, undefined, undefined, second.sealedSecret),
          true,
        );
        assert.equal((await suite.store.getSecondFactor(user.id))?.sealedSecret, second.sealedSecret);
      });

      it('enableSecondFactor with endOtherSessions ends every other session of the user, keeping the enrolling one', async () => {
        const { user } = await registered('alice');
        const bob = await registered('bob');
        const asking = await sessionFor(user.id, 'asking');
        const others = [await sessionFor(user.id, 'laptop'), await sessionFor(user.id, 'phone')];
        const bobs = await sessionFor(bob.user.id, 'bobs');
        await suite.store.startSecondFactor(waitingFactor(user.id));
        assert.equal(
          await suite.store.enableSecondFactor({
            userId: user.id,
            sealedSecret: waitingFactor(user.id).sealedSecret,
            step: 9,
            recoveryCodeHashes: ['e1'],
            now: MINUTE_LATER,
            sessionTokenHash: asking.tokenHash,
            endOtherSessions: true,
          }),
          true,
        );
        assert.deepEqual(
          (await suite.store.listSessions(user.id)).map((session) => session.tokenHash),
          [asking.tokenHash],
        );
        for (const ended of others) assert.equal(await suite.store.getSessionAndUser(ended.tokenHash), null);
        assert.ok(await suite.store.getSessionAndUser(bobs.tokenHash), "another user's session stays");
      });

      it('an enabling racing new starts of the set-up: exactly one outcome, never a secret no code proved', async () => {
        for (let round = 0; round < 8; round++) {
          const { user } = await registered(`racer${round}`);
          const proved = waitingFactor(user.id, { sealedSecret: `v1.proved-${round}` });
          assert.equal(await suite.store.startSecondFactor(proved), true);
          const starts = Array.from({ length: 4 }, (_, i) =>
            waitingFactor(user.id, { sealedSecret: `v1.started-${round}-${i}` }),
          );
          const [enabled, ...started] = fulfilled(
            await Promise.allSettled([
              suite.store.enableSecondFactor(
                {
                  userId: user.id,
                  sealedSecret: proved.sealedSecret,
                  step: 100 + round,
                  recoveryCodeHashes: [`race-${round}-a`, `race-${round}-b`],
                  now: MINUTE_LATER,
                },
                message('secondFactorEnabled'),
              ),
              ...starts.map((factor) => suite.store.startSecondFactor(factor)),
            ]),
          );
          const factor = await suite.store.getSecondFactor(user.id);
          const notices = (await suite.store.listMessages()).filter((entry) => entry.userId === user.id);
          if (enabled) {
            // The enabling came first: the proved secret is on, and every start after it was refused.
            assert.equal(factor?.enabled, true, `round ${round}`);
            assert.equal(factor?.sealedSecret, proved.sealedSecret, `round ${round}: the proved secret`);
            assert.equal(factor?.lastUsedStep, 100 + round);
            assert.equal(await suite.store.countRecoveryCodes(user.id), 2);
            assert.equal(notices.length, 1);
          } else {
            // A start came first: nothing is on, no codes or notice, and the last start's secret waits.
            assert.equal(factor?.enabled, false, `round ${round}`);
            assert.notEqual(factor?.sealedSecret, proved.sealedSecret, `round ${round}`);
            assert.ok(started.every(Boolean), `round ${round}: with nothing on, every start succeeded`);
            assert.equal(await suite.store.countRecoveryCodes(user.id), 0);
            assert.equal(notices.length, 0);
          }
        }
      });
    });

    describe('TOTP steps', () => {
      it('useTotpStep accepts only a later step than the last used one', async () => {
        const { user } = await enrolled('alice');
        assert.equal(await suite.store.useTotpStep(user.id, 100), false, 'the enabling code’s step');
        assert.equal(await suite.store.useTotpStep(user.id, 99), false, 'an earlier step');
        assert.equal(await suite.store.useTotpStep(user.id, 101), true);
        assert.equal(await suite.store.useTotpStep(user.id, 101), false, 'a replay');
        assert.equal(await suite.store.useTotpStep(user.id, 103), true, 'a skip ahead');
        assert.equal(await suite.store.useTotpStep(user.id, 102), false, 'then back');
        assert.equal((await suite.store.getSecondFactor(user.id))?.lastUsedStep, 103);
      });

      it('useTotpStep keeps steps beyond 32 bits (a bigint column)', async () => {
        const { user } = await enrolled('alice');
        const far = 2 ** 40 + 7;
        assert.equal(await suite.store.useTotpStep(user.id, far), true);
        assert.equal((await suite.store.getSecondFactor(user.id))?.lastUsedStep, far);
        assert.equal(await suite.store.useTotpStep(user.id, far), false);
      });

      it('useTotpStep refuses a waiting factor, a user without one and an unknown user', async () => {
        const { user } = await registered('alice');
        assert.equal(await suite.store.useTotpStep(user.id, 1), false, 'no factor');
        await suite.store.startSecondFactor(waitingFactor(user.id));
        assert.equal(await suite.store.useTotpStep(user.id, 1), false, 'waiting');
        assert.equal((await suite.store.getSecondFactor(user.id))?.lastUsedStep, null);
        assert.equal(await suite.store.useTotpStep('no-such-user', 1), false);
      });

      it('useTotpStep after enabling at step 0 accepts step 1', async () => {
        const { user } = await registered('alice');
        await suite.store.startSecondFactor(waitingFactor(user.id));
        await enable(user.id, 0, [], T0);
        assert.equal(await suite.store.useTotpStep(user.id, 1), true);
      });

      it(`${RACERS} concurrent uses of one step: exactly one is accepted`, async () => {
        const { user } = await enrolled('alice');
        const results = fulfilled(
          await Promise.allSettled(Array.from({ length: RACERS }, () => suite.store.useTotpStep(user.id, 101))),
        );
        assert.equal(results.filter(Boolean).length, 1);
      });

      it(`${RACERS} concurrent uses of rising steps: the last used step ends at the highest accepted`, async () => {
        const { user } = await enrolled('alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, (_, i) => suite.store.useTotpStep(user.id, 101 + (i % 5))),
          ),
        );
        assert.ok(results.filter(Boolean).length >= 1 && results.filter(Boolean).length <= 5);
        assert.equal((await suite.store.getSecondFactor(user.id))?.lastUsedStep, 105);
      });
    });

    describe('recovery codes', () => {
      it('consumeRecoveryCode uses a code once, only its own user’s, and queues the notice only then', async () => {
        const { user, codes } = await enrolled('alice');
        const bob = await enrolled('bob');
        const notice = message('recoveryCodeUsed');

        assert.equal(await suite.store.consumeRecoveryCode(bob.user.id, codes[0], message('recoveryCodeUsed')), false);
        assert.equal(await suite.store.consumeRecoveryCode(user.id, 'unknown', message('recoveryCodeUsed')), false);
        assert.equal(await suite.store.consumeRecoveryCode('no-such-user', codes[0]), false);
        assert.deepEqual(await suite.store.listMessages(), [], 'a refused code queues nothing');

        assert.equal(await suite.store.consumeRecoveryCode(user.id, codes[0], notice), true);
        assert.equal(await suite.store.countRecoveryCodes(user.id), 2);
        assert.equal(await suite.store.countRecoveryCodes(bob.user.id), 3);
        const [queued] = await suite.store.listMessages();
        assert.deepEqual(
          [queued.id, queued.kind, queued.userId, queued.email],
          [notice.id, 'recoveryCodeUsed', user.id, user.email],
        );
        assert.equal(await suite.store.consumeRecoveryCode(user.id, codes[0], message('recoveryCodeUsed')), false);
        assert.equal((await suite.store.listMessages()).length, 1);
      });

      it(`${RACERS} concurrent uses of one code: exactly one succeeds and one notice is queued`, async () => {
        const { user, codes } = await enrolled('alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, () =>
              suite.store.consumeRecoveryCode(user.id, codes[1], message('recoveryCodeUsed')),
            ),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.deepEqual(await kindsOf(user.id), ['recoveryCodeUsed']);
        assert.equal(await suite.store.countRecoveryCodes(user.id), 2);
      });

      it('replaceRecoveryCodes replaces every code while the factor is enabled, and queues the notice', async () => {
        const { user, codes } = await enrolled('alice');
        const notice = message('recoveryCodesRegenerated');
        assert.equal(
          await suite.store.replaceRecoveryCodes(user.id, ['n1', 'n2', 'n3', 'n4'], HOUR_LATER, notice),
          true,
        );
        assert.equal(await suite.store.countRecoveryCodes(user.id), 4);
        assert.equal(await suite.store.consumeRecoveryCode(user.id, codes[0]), false, 'the old codes are gone');
        assert.equal(await suite.store.consumeRecoveryCode(user.id, 'n3'), true);
        assert.deepEqual(await kindsOf(user.id), ['recoveryCodesRegenerated']);
      });

      it('replaceRecoveryCodes refuses a waiting factor, no factor and an unknown user', async () => {
        const { user } = await registered('alice');
        assert.equal(
          await suite.store.replaceRecoveryCodes(user.id, ['n1'], T0, message('recoveryCodesRegenerated')),
          false,
        );
        await suite.store.startSecondFactor(waitingFactor(user.id));
        assert.equal(
          await suite.store.replaceRecoveryCodes(user.id, ['n1'], T0, message('recoveryCodesRegenerated')),
          false,
        );
        assert.equal(await suite.store.replaceRecoveryCodes('no-such-user', ['n1'], T0), false);
        assert.equal(await suite.store.countRecoveryCodes(user.id), 0);
        assert.deepEqual(await suite.store.listMessages(), []);
      });

      it('countRecoveryCodes is 0 for a user without codes and for an unknown user', async () => {
        const { user } = await registered('alice');
        assert.equal(await suite.store.countRecoveryCodes(user.id), 0);
        assert.equal(await suite.store.countRecoveryCodes('no-such-user'), 0);
      });
    });

    describe('switching it off', () => {
      it('disableSecondFactor deletes the factor, the codes and the challenges, and queues the notice', async () => {
        const { user, codes } = await enrolled('alice');
        const bob = await enrolled('bob');
        await suite.store.createLoginChallenge(challengeRow(user.id, 'alice'));
        await suite.store.createLoginChallenge(challengeRow(bob.user.id, 'bob'));
        const notice = message('secondFactorDisabled');

        assert.equal(await suite.store.disableSecondFactor(user.id, HOUR_LATER, notice), true);

        assert.equal(await suite.store.getSecondFactor(user.id), null);
        assert.equal(await suite.store.countRecoveryCodes(user.id), 0);
        assert.equal(await suite.store.consumeRecoveryCode(user.id, codes[0]), false);
        assert.equal(await suite.store.takeLoginChallengeAttempt('challenge-alice', T0, 5), null);
        assert.deepEqual(await kindsOf(user.id), ['secondFactorDisabled']);
        assert.ok(await suite.store.getSecondFactor(bob.user.id), 'other users are untouched');
        assert.equal(await suite.store.countRecoveryCodes(bob.user.id), 3);
        assert.ok(await suite.store.takeLoginChallengeAttempt('challenge-bob', T0, 5));

        assert.equal(await suite.store.startSecondFactor(waitingFactor(user.id)), true, 'enrolment can start again');
      });

      it('disableSecondFactor removes a waiting factor too, and answers false without one', async () => {
        const { user } = await registered('alice');
        assert.equal(await suite.store.disableSecondFactor(user.id, T0, message('secondFactorDisabled')), false);
        assert.equal(await suite.store.disableSecondFactor('no-such-user', T0, message('secondFactorDisabled')), false);
        assert.deepEqual(await suite.store.listMessages(), [], 'nothing queued without a factor');

        await suite.store.startSecondFactor(waitingFactor(user.id));
        assert.equal(await suite.store.disableSecondFactor(user.id, T0), true);
        assert.equal(await suite.store.getSecondFactor(user.id), null);
      });

      it(`${RACERS} concurrent disablings: exactly one, with one notice`, async () => {
        const { user } = await enrolled('alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, () =>
              suite.store.disableSecondFactor(user.id, T0, message('secondFactorDisabled')),
            ),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.deepEqual(await kindsOf(user.id), ['secondFactorDisabled']);
      });
    });

    describe('login challenges', () => {
      it('takeLoginChallengeAttempt counts an answer and returns the challenge as it now is', async () => {
        const { user } = await enrolled('alice');
        const challenge = challengeRow(user.id, 'alice');
        await suite.store.createLoginChallenge(challenge);

        assert.deepEqual(await suite.store.takeLoginChallengeAttempt(challenge.tokenHash, T0, 5), {
          ...challenge,
          attempts: 1,
        });
        const second = await suite.store.takeLoginChallengeAttempt(challenge.tokenHash, MINUTE_LATER, 5);
        assert.deepEqual(second, { ...challenge, attempts: 2 });
        second!.attempts = 0;
        second!.expiresAt.setTime(0);
        assert.deepEqual(
          await suite.store.takeLoginChallengeAttempt(challenge.tokenHash, MINUTE_LATER, 5),
          { ...challenge, attempts: 3 },
          'the caller’s own copy',
        );
      });

      it('keeps a challenge without client details', async () => {
        const { user } = await enrolled('alice');
        const challenge = challengeRow(user.id, 'alice', { ip: null, userAgent: null, attempts: 2 });
        await suite.store.createLoginChallenge(challenge);
        assert.deepEqual(await suite.store.takeLoginChallengeAttempt(challenge.tokenHash, T0, 5), {
          ...challenge,
          attempts: 3,
        });
      });

      it('takeLoginChallengeAttempt answers null when out of answers, expired, unknown or consumed', async () => {
        const { user } = await enrolled('alice');
        await suite.store.createLoginChallenge(challengeRow(user.id, 'worn', { attempts: 4 }));
        assert.equal((await suite.store.takeLoginChallengeAttempt('challenge-worn', T0, 5))?.attempts, 5);
        assert.equal(await suite.store.takeLoginChallengeAttempt('challenge-worn', T0, 5), null, 'the sixth');

        await suite.store.createLoginChallenge(challengeRow(user.id, 'old'));
        assert.equal(
          await suite.store.takeLoginChallengeAttempt('challenge-old', FIVE_MINUTES_LATER, 5),
          null,
          'dead from the millisecond it expires',
        );
        assert.ok(
          await suite.store.takeLoginChallengeAttempt('challenge-old', new Date(FIVE_MINUTES_LATER.getTime() - 1), 5),
        );

        assert.equal(await suite.store.takeLoginChallengeAttempt('unknown', T0, 5), null);

        await suite.store.createLoginChallenge(challengeRow(user.id, 'used'));
        assert.equal(await suite.store.consumeLoginChallenge('challenge-used'), true);
        assert.equal(await suite.store.takeLoginChallengeAttempt('challenge-used', T0, 5), null);
      });

      it('findLoginChallenge reads a live challenge as it is, counting nothing; null when expired, unknown or used', async () => {
        const { user } = await enrolled('alice');
        const challenge = challengeRow(user.id, 'alice', { attempts: 2 });
        await suite.store.createLoginChallenge(challenge);
        assert.deepEqual(await suite.store.findLoginChallenge(challenge.tokenHash, T0), challenge);
        assert.deepEqual(await suite.store.findLoginChallenge(challenge.tokenHash, T0), challenge, 'still 2 answers');
        const copy = await suite.store.findLoginChallenge(challenge.tokenHash, T0);
        copy!.attempts = 9;
        assert.equal((await suite.store.takeLoginChallengeAttempt(challenge.tokenHash, T0, 5))?.attempts, 3);
        assert.equal((await suite.store.findLoginChallenge(challenge.tokenHash, T0))?.attempts, 3);

        assert.equal(await suite.store.findLoginChallenge(challenge.tokenHash, FIVE_MINUTES_LATER), null, 'expired');
        assert.ok(
          await suite.store.findLoginChallenge(challenge.tokenHash, new Date(FIVE_MINUTES_LATER.getTime() - 1)),
        );
        assert.equal(await suite.store.findLoginChallenge('unknown', T0), null);
        assert.equal(await suite.store.consumeLoginChallenge(challenge.tokenHash), true);
        assert.equal(await suite.store.findLoginChallenge(challenge.tokenHash, T0), null, 'used');
      });

      it('consumeLoginChallenge deletes a challenge once; an unknown one is false', async () => {
        const { user } = await enrolled('alice');
        await suite.store.createLoginChallenge(challengeRow(user.id, 'alice'));
        assert.equal(await suite.store.consumeLoginChallenge('challenge-alice'), true);
        assert.equal(await suite.store.consumeLoginChallenge('challenge-alice'), false);
        assert.equal(await suite.store.consumeLoginChallenge('unknown'), false);
      });

      it('createLoginChallenge refuses a duplicate token hash and an unknown user', async () => {
        const { user } = await enrolled('alice');
        await suite.store.createLoginChallenge(challengeRow(user.id, 'alice'));
        await assert.rejects(suite.store.createLoginChallenge(challengeRow(user.id, 'alice', { attempts: 3 })));
        assert.equal((await suite.store.takeLoginChallengeAttempt('challenge-alice', T0, 5))?.attempts, 1);
        await assert.rejects(suite.store.createLoginChallenge(challengeRow('no-such-user', 'nobody')));
      });

      it(`${RACERS} concurrent answers with 5 allowed: exactly 5 are counted`, async () => {
        const { user } = await enrolled('alice');
        await suite.store.createLoginChallenge(challengeRow(user.id, 'alice'));
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, () => suite.store.takeLoginChallengeAttempt('challenge-alice', T0, 5)),
          ),
        );
        const counted = results.filter((result) => result !== null);
        assert.equal(counted.length, 5);
        assert.deepEqual(counted.map((result) => result.attempts).sort(), [1, 2, 3, 4, 5]);
      });

      it(`${RACERS} concurrent consumptions of one challenge: exactly one succeeds`, async () => {
        const { user } = await enrolled('alice');
        await suite.store.createLoginChallenge(challengeRow(user.id, 'alice'));
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, () => suite.store.consumeLoginChallenge('challenge-alice')),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
      });

      it('deleteExpired removes the challenges past their expiry, and counts them', async () => {
        const { user } = await enrolled('alice');
        await suite.store.createLoginChallenge(challengeRow(user.id, 'expired', { expiresAt: MINUTE_LATER }));
        await suite.store.createLoginChallenge(challengeRow(user.id, 'live', { expiresAt: DAY_LATER }));
        const cutoffs = { now: MINUTE_LATER, sessionIdleBefore: new Date(0) };

        assert.equal(await suite.store.deleteExpired(cutoffs), 1);
        assert.equal(await suite.store.consumeLoginChallenge('challenge-expired'), false);
        assert.ok(await suite.store.takeLoginChallengeAttempt('challenge-live', MINUTE_LATER, 5));
        assert.equal(await suite.store.deleteExpired(cutoffs), 0);
        assert.ok(await suite.store.getSecondFactor(user.id), 'the factor does not expire');
        assert.equal(await suite.store.countRecoveryCodes(user.id), 3);
      });
    });

    describe('with the rest of the account', () => {
      it('a session keeps whether it was made with a second factor, in the hot-path read and the list', async () => {
        const { user } = await enrolled('alice');
        const plain = await sessionFor(user.id, 'plain');
        const strong = await sessionFor(user.id, 'strong', { secondFactor: true, createdAt: MINUTE_LATER });
        assert.equal((await suite.store.getSessionAndUser(plain.tokenHash))?.session.secondFactor, false);
        assert.deepEqual(await suite.store.getSessionAndUser(strong.tokenHash), { session: strong, user });
        assert.deepEqual(await suite.store.listSessions(user.id), [strong, plain]);
      });

      it('a password reset ends the challenges but keeps the factor and the codes', async () => {
        const { user, codes } = await enrolled('alice');
        await suite.store.useTotpStep(user.id, 120);
        await suite.store.createLoginChallenge(challengeRow(user.id, 'alice'));
        const before = await suite.store.getSecondFactor(user.id);

        assert.ok(await suite.store.resetPassword(await resetTokenFor(user.id, 'alice'), 'new-hash', T0));

        assert.equal(await suite.store.takeLoginChallengeAttempt('challenge-alice', T0, 5), null);
        assert.deepEqual(await suite.store.getSecondFactor(user.id), before, 'a reset does not switch it off');
        assert.equal(await suite.store.countRecoveryCodes(user.id), codes.length);
        assert.equal(await suite.store.useTotpStep(user.id, 120), false, 'nor forgets the last used step');
      });

      it('a password change ends the challenges but keeps the factor and the codes', async () => {
        const { user, codes } = await enrolled('alice');
        await suite.store.createLoginChallenge(challengeRow(user.id, 'alice'));
        const bob = await enrolled('bob');
        await suite.store.createLoginChallenge(challengeRow(bob.user.id, 'bob'));

        assert.equal(await suite.store.changePassword(user.id, user.passwordHash, 'new-hash', T0), true);

        assert.equal(await suite.store.takeLoginChallengeAttempt('challenge-alice', T0, 5), null);
        assert.ok(await suite.store.getSecondFactor(user.id));
        assert.equal(await suite.store.countRecoveryCodes(user.id), codes.length);
        assert.ok(await suite.store.takeLoginChallengeAttempt('challenge-bob', T0, 5), 'other users are untouched');
      });

      it('deleteUser removes the factor, the codes and the challenges', async () => {
        const { user, codes } = await enrolled('alice');
        await suite.store.createLoginChallenge(challengeRow(user.id, 'alice'));
        const bob = await enrolled('bob');

        assert.equal(await suite.store.deleteUser(user.id), true);

        assert.equal(await suite.store.getSecondFactor(user.id), null);
        assert.equal(await suite.store.countRecoveryCodes(user.id), 0);
        assert.equal(await suite.store.consumeRecoveryCode(user.id, codes[0]), false);
        assert.equal(await suite.store.takeLoginChallengeAttempt('challenge-alice', T0, 5), null);
        assert.equal(await suite.store.consumeLoginChallenge('challenge-alice'), false);
        assert.equal(await suite.store.useTotpStep(user.id, 1000), false);
        assert.ok(await suite.store.getSecondFactor(bob.user.id), 'other users are untouched');
        assert.equal(await suite.store.countRecoveryCodes(bob.user.id), 3);
      });

      it('the clean-up of a registration never confirmed removes its factor too', async () => {
        const { user } = await registered('alice');
        await suite.store.startSecondFactor(waitingFactor(user.id));
        const cutoffs = { now: T0, sessionIdleBefore: new Date(0), unverifiedCreatedBefore: T0 };
        assert.equal(await suite.store.deleteExpired(cutoffs), 1);
        assert.equal(await suite.store.getSecondFactor(user.id), null);
      });
    });
  });
}
