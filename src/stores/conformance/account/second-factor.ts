import assert from 'node:assert/strict';
import type {
  AuthMethod,
  NewOutboxMessage,
  SecondFactorEnabling,
  StoredLoginChallenge,
  StoredSecondFactor,
  UserStoreTransaction,
} from '../../../services/user-store';
import { describe, it, T0, HOUR_LATER, fulfilled, message, type ConformanceSuite } from '../support';

const RACERS = 20;
const MINUTE_LATER = new Date(T0.getTime() + 60_000);
const FIVE_MINUTES_LATER = new Date(T0.getTime() + 5 * 60_000);
/** What an enrolling session counts as once its code is proved. */
const PASSWORD_AND_CODE: readonly AuthMethod[] = ['pwd', 'otp', 'mfa'];

/**
 * The rows and calls both second-factor areas use (this one and `second-factor-use.ts`). Each change is its own
 * transaction, composed as the core composes it: a notice, when given, is queued with the change only when the store
 * answers that it made one.
 */

export function secondFactorFixtures(suite: ConformanceSuite) {
  const write = <T>(work: (tx: UserStoreTransaction) => Promise<T>): Promise<T> => suite.store.transaction(work);

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
    credentialEpoch: 0,
    attempts: 0,
    createdAt: new Date(T0),
    expiresAt: new Date(FIVE_MINUTES_LATER),
    ip: '203.0.113.7',
    userAgent: 'Authenticator test',
    firstFactor: 'pwd',
    ...overrides,
  });

  const start = (factor: StoredSecondFactor) => write((tx) => tx.secondFactors.start(factor));

  /** `secondFactors.enable`, with the notice to the user it returns; true when it enabled the factor. */
  const enableWith = (enabling: SecondFactorEnabling, notice?: NewOutboxMessage) =>
    write(async (tx) => {
      const enabled = await tx.secondFactors.enable(enabling);
      if (enabled && notice) await tx.outbox.add(notice, enabled.user);
      return enabled !== null;
    });

  /** `enableWith` of the factor `waitingFactor` made (or of `sealedSecret`), keeping the other sessions. */
  const enable = (
    userId: string,
    step: number,
    recoveryCodeHashes: readonly string[],
    now: Date,
    notice?: NewOutboxMessage,
    sessionTokenHash?: string,
    sealedSecret = waitingFactor(userId).sealedSecret,
  ) => {
    const methods = sessionTokenHash === undefined ? undefined : PASSWORD_AND_CODE;
    return enableWith({ userId, sealedSecret, step, recoveryCodeHashes, now, sessionTokenHash, methods }, notice);
  };

  /** A user whose factor is enabled at step 100 with recovery codes `code-<label>-1..3`. */
  const enrolled = async (label: string) => {
    const { user } = await suite.registered(label);
    assert.equal(await start(waitingFactor(user.id)), true);
    const codes = [1, 2, 3].map((n) => `code-${label}-${n}`);
    assert.equal(await enable(user.id, 100, codes, MINUTE_LATER), true);
    return { user, codes };
  };

  const useStep = (userId: string, step: number) => write((tx) => tx.secondFactors.useTotpStep(userId, step, T0));

  const consumeCode = (userId: string, codeHash: string, notice?: NewOutboxMessage) =>
    write(async (tx) => {
      const user = await tx.secondFactors.consumeRecoveryCode(userId, codeHash, T0);
      if (user && notice) await tx.outbox.add(notice, user);
      return user !== null;
    });

  const replaceCodes = (userId: string, codeHashes: readonly string[], now: Date, notice?: NewOutboxMessage) =>
    write(async (tx) => {
      const user = await tx.secondFactors.replaceRecoveryCodes(userId, codeHashes, now);
      if (user && notice) await tx.outbox.add(notice, user);
      return user !== null;
    });

  const disable = (userId: string, now: Date, notice?: NewOutboxMessage) =>
    write(async (tx) => {
      const user = await tx.secondFactors.disable(userId, now);
      if (user && notice) await tx.outbox.add(notice, user);
      return user !== null;
    });

  const createChallenge = (challenge: StoredLoginChallenge) => write((tx) => tx.loginChallenges.create(challenge));
  const takeAttempt = (tokenHash: string, now: Date, maxAttempts: number) =>
    write((tx) => tx.loginChallenges.takeAttempt(tokenHash, now, maxAttempts));
  const consumeChallenge = (tokenHash: string) => write((tx) => tx.loginChallenges.consume(tokenHash));

  const kindsOf = async (userId: string) =>
    (await suite.store.outbox.list())
      .filter((entry) => entry.userId === userId)
      .map((entry) => entry.kind)
      .sort();

  return {
    RACERS,
    MINUTE_LATER,
    FIVE_MINUTES_LATER,
    write,
    waitingFactor,
    challengeRow,
    start,
    enableWith,
    enable,
    enrolled,
    useStep,
    consumeCode,
    replaceCodes,
    disable,
    createChallenge,
    takeAttempt,
    consumeChallenge,
    kindsOf,
  };
}

/** Enrolment in the second factor and the TOTP steps; its other areas are in `second-factor-use.ts`. */
export function describeSecondFactor(suite: ConformanceSuite): void {
  const { registered, sessionFor } = suite;
  const { waitingFactor, start, enableWith, enable, enrolled, useStep, consumeCode } = secondFactorFixtures(suite);
  const factorOf = (userId: string) => suite.store.secondFactors.get(userId);
  const countCodes = (userId: string) => suite.store.secondFactors.countRecoveryCodes(userId);
  const messages = () => suite.store.outbox.list();

  describe('second factor', () => {
    describe('enrolment', () => {
      it('secondFactors.start stores a waiting factor, replacing a waiting one; get returns a copy', async () => {
        const { user } = await registered('alice');
        assert.equal(await factorOf(user.id), null);

        assert.equal(await start(waitingFactor(user.id)), true);
        assert.deepEqual(await factorOf(user.id), waitingFactor(user.id));

        const again = waitingFactor(user.id, { sealedSecret: 'v1.another', createdAt: MINUTE_LATER });
        assert.equal(await start(again), true, 'a waiting factor is replaced');
        const found = await factorOf(user.id);
        assert.deepEqual(found, again);

        found!.sealedSecret = 'changed';
        found!.createdAt.setTime(0);
        assert.deepEqual(await factorOf(user.id), again, 'the caller’s own copy');
      });

      it('secondFactors.start stores the factor as waiting, whatever it is given', async () => {
        const { user } = await registered('alice');
        const given = waitingFactor(user.id, { enabled: true, enabledAt: MINUTE_LATER });
        assert.equal(await start(given), true);
        assert.deepEqual(await factorOf(user.id), waitingFactor(user.id));
        assert.equal(await useStep(user.id, 1), false, 'a waiting factor accepts no code');
      });

      it('secondFactors.start refuses while a factor is enabled, and for an unknown user', async () => {
        const { user } = await enrolled('alice');
        const before = await factorOf(user.id);
        assert.equal(await start(waitingFactor(user.id, { sealedSecret: 'v1.new' })), false);
        assert.deepEqual(await factorOf(user.id), before, 'the enabled factor is untouched');
        assert.equal(await countCodes(user.id), 3);

        assert.equal(await start(waitingFactor('no-such-user')), false);
        assert.equal(await factorOf('no-such-user'), null);
      });

      it('secondFactors.enable enables a waiting factor with its step, stores the codes, returns the user for the notice', async () => {
        const { user } = await registered('alice');
        await start(waitingFactor(user.id));
        const notice = message('secondFactorEnabled');

        assert.equal(await enable(user.id, 4242, ['c1', 'c2'], MINUTE_LATER, notice), true);

        assert.deepEqual(
          await factorOf(user.id),
          waitingFactor(user.id, { enabled: true, enabledAt: MINUTE_LATER, lastUsedStep: 4242 }),
        );
        assert.equal(await countCodes(user.id), 2);
        const [queued] = await messages();
        assert.deepEqual(
          [queued.id, queued.kind, queued.userId, queued.username, queued.email, queued.status],
          [notice.id, 'secondFactorEnabled', user.id, user.username, user.email, 'pending'],
        );
      });

      it("secondFactors.enable marks the enrolling session as made with a second factor, and no one else's", async () => {
        const { user } = await registered('alice');
        const bob = await registered('bob');
        const asking = await sessionFor(user.id, 'asking');
        const other = await sessionFor(user.id, 'other');
        const bobs = await sessionFor(bob.user.id, 'bobs');
        assert.equal(await start(waitingFactor(user.id)), true);
        assert.equal(await enable(user.id, 7, ['c'], MINUTE_LATER, undefined, asking.tokenHash), true);
        const flag = async (tokenHash: string) =>
          (await suite.store.sessions.findWithUser(tokenHash))!.session.methods.includes('mfa');
        assert.equal(await flag(asking.tokenHash), true);
        assert.equal(await flag(other.tokenHash), false);
        assert.equal(await start(waitingFactor(bob.user.id)), true);
        assert.equal(await enable(bob.user.id, 7, ['d'], MINUTE_LATER, undefined, other.tokenHash), true);
        assert.equal(await flag(other.tokenHash), false, "another user's session is not marked");
        assert.equal(await flag(bobs.tokenHash), false);
      });

      it('secondFactors.enable works only from a waiting factor: not twice, not without one', async () => {
        const { user, codes } = await enrolled('alice');
        const before = await factorOf(user.id);

        assert.equal(
          await enable(user.id, 999, ['other'], HOUR_LATER, message('secondFactorEnabled')),
          false,
          'already enabled',
        );
        assert.deepEqual(await factorOf(user.id), before, 'step and instant untouched');
        assert.equal(await countCodes(user.id), codes.length, 'the codes are untouched');
        assert.equal(await consumeCode(user.id, 'other'), false);

        const bob = await registered('bob');
        assert.equal(await enable(bob.user.id, 1, ['b1'], T0, message('secondFactorEnabled')), false);
        assert.equal(await enable('no-such-user', 1, ['x1'], T0), false);
        assert.equal(await factorOf(bob.user.id), null);
        assert.equal(await countCodes(bob.user.id), 0);
        assert.deepEqual(await messages(), [], 'no refused call queued a notice');
      });

      it(`${RACERS} concurrent enablings of one waiting factor: exactly one, with its codes and one notice`, async () => {
        const { user } = await registered('alice');
        await start(waitingFactor(user.id));
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, (_, i) =>
              enable(user.id, 100 + i, [`race-${i}-a`, `race-${i}-b`], T0, message('secondFactorEnabled')),
            ),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        const winner = results.indexOf(true);
        assert.equal((await factorOf(user.id))?.lastUsedStep, 100 + winner);
        assert.equal(await countCodes(user.id), 2);
        assert.equal(await consumeCode(user.id, `race-${winner}-a`), true, 'the winner’s codes');
        assert.equal((await messages()).length, 1);
      });

      it('secondFactors.enable switches on only the waiting factor it names: a replaced one is refused', async () => {
        const { user } = await registered('alice');
        const first = waitingFactor(user.id, { sealedSecret: 'v1.first' });
        const second = waitingFactor(user.id, { sealedSecret: 'v1.second', createdAt: new Date(MINUTE_LATER) });
        assert.equal(await start(first), true);
        assert.equal(await start(second), true);

        const session = await sessionFor(user.id, 'enrolling');
        const other = await sessionFor(user.id, 'other');
        assert.equal(
          await enableWith(
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
        assert.deepEqual(await factorOf(user.id), second, 'the newer secret still waits');
        assert.equal(await countCodes(user.id), 0, 'no codes were stored');
        assert.deepEqual((await suite.store.sessions.findWithUser(session.tokenHash))!.session.methods, ['pwd']);
        assert.ok(await suite.store.sessions.findWithUser(other.tokenHash), 'no session ended');
        assert.deepEqual(await messages(), [], 'no notice');

        assert.equal(
          await enable(user.id, 5, ['fresh-1'], HOUR_LATER, undefined, undefined, second.sealedSecret),
          true,
        );
        assert.equal((await factorOf(user.id))?.sealedSecret, second.sealedSecret);
      });

      it('secondFactors.enable with endOtherSessions ends every other session of the user, keeping the enrolling one, and counts them', async () => {
        const { user } = await registered('alice');
        const bob = await registered('bob');
        const asking = await sessionFor(user.id, 'asking');
        const others = [await sessionFor(user.id, 'laptop'), await sessionFor(user.id, 'phone')];
        const bobs = await sessionFor(bob.user.id, 'bobs');
        await start(waitingFactor(user.id));
        const enabled = await suite.store.transaction((tx) =>
          tx.secondFactors.enable({
            userId: user.id,
            sealedSecret: waitingFactor(user.id).sealedSecret,
            step: 9,
            recoveryCodeHashes: ['e1'],
            now: MINUTE_LATER,
            sessionTokenHash: asking.tokenHash,
            methods: PASSWORD_AND_CODE,
            endOtherSessions: true,
          }),
        );
        assert.equal(enabled?.user.id, user.id);
        assert.equal(enabled?.sessionsEnded, others.length, 'the sessions it ended, for the audit event');
        assert.deepEqual(
          (await suite.store.sessions.list(user.id)).map((session) => session.tokenHash),
          [asking.tokenHash],
        );
        for (const ended of others) assert.equal(await suite.store.sessions.findWithUser(ended.tokenHash), null);
        assert.ok(await suite.store.sessions.findWithUser(bobs.tokenHash), "another user's session stays");
        // The credential state moved: the kept session moved with it, and one issued under the old state is refused.
        assert.equal(enabled?.user.credentialEpoch, user.credentialEpoch + 1);
        assert.equal((await suite.store.users.findById(user.id))?.credentialEpoch, user.credentialEpoch + 1);
        const kept = await suite.store.sessions.check(asking.tokenHash);
        assert.deepEqual(kept?.methods, PASSWORD_AND_CODE);
        const late = suite.sessionRow(user.id, 'late', { credentialEpoch: user.credentialEpoch });
        assert.equal(await suite.store.transaction((tx) => tx.sessions.create(late), { durable: false }), false);
        assert.equal((await suite.store.users.findById(bob.user.id))?.credentialEpoch, 0, "bob's state stays");
      });

      it('secondFactors.enable without endOtherSessions ends none, and counts none', async () => {
        const { user } = await registered('alice');
        const asking = await sessionFor(user.id, 'asking');
        const other = await sessionFor(user.id, 'other');
        await start(waitingFactor(user.id));
        const enabled = await suite.store.transaction((tx) =>
          tx.secondFactors.enable({
            userId: user.id,
            sealedSecret: waitingFactor(user.id).sealedSecret,
            step: 9,
            recoveryCodeHashes: ['e1'],
            now: MINUTE_LATER,
            sessionTokenHash: asking.tokenHash,
          }),
        );
        assert.equal(enabled?.sessionsEnded, 0);
        assert.ok(await suite.store.sessions.findWithUser(other.tokenHash));
        assert.equal(enabled?.user.credentialEpoch, 0, 'the credential state stays');
      });

      it('an enabling racing new starts of the set-up: exactly one outcome, never a secret no code proved', async () => {
        for (let round = 0; round < 8; round++) {
          const { user } = await registered(`racer${round}`);
          const proved = waitingFactor(user.id, { sealedSecret: `v1.proved-${round}` });
          assert.equal(await start(proved), true);
          const starts = Array.from({ length: 4 }, (_, i) =>
            waitingFactor(user.id, { sealedSecret: `v1.started-${round}-${i}` }),
          );
          const [enabled, ...started] = fulfilled(
            await Promise.allSettled([
              enableWith(
                {
                  userId: user.id,
                  sealedSecret: proved.sealedSecret,
                  step: 100 + round,
                  recoveryCodeHashes: [`race-${round}-a`, `race-${round}-b`],
                  now: MINUTE_LATER,
                },
                message('secondFactorEnabled'),
              ),
              ...starts.map((factor) => start(factor)),
            ]),
          );
          const factor = await factorOf(user.id);
          const notices = (await messages()).filter((entry) => entry.userId === user.id);
          if (enabled) {
            // The enabling came first: the proved secret is on, and every start after it was refused.
            assert.equal(factor?.enabled, true, `round ${round}`);
            assert.equal(factor?.sealedSecret, proved.sealedSecret, `round ${round}: the proved secret`);
            assert.equal(factor?.lastUsedStep, 100 + round);
            assert.equal(await countCodes(user.id), 2);
            assert.equal(notices.length, 1);
          } else {
            // A start came first: nothing is on, no codes or notice, and the last start's secret waits.
            assert.equal(factor?.enabled, false, `round ${round}`);
            assert.notEqual(factor?.sealedSecret, proved.sealedSecret, `round ${round}`);
            assert.ok(started.every(Boolean), `round ${round}: with nothing on, every start succeeded`);
            assert.equal(await countCodes(user.id), 0);
            assert.equal(notices.length, 0);
          }
        }
      });
    });

    describe('TOTP steps', () => {
      it('useTotpStep accepts only a later step than the last used one', async () => {
        const { user } = await enrolled('alice');
        assert.equal(await useStep(user.id, 100), false, 'the enabling code’s step');
        assert.equal(await useStep(user.id, 99), false, 'an earlier step');
        assert.equal(await useStep(user.id, 101), true);
        assert.equal(await useStep(user.id, 101), false, 'a replay');
        assert.equal(await useStep(user.id, 103), true, 'a skip ahead');
        assert.equal(await useStep(user.id, 102), false, 'then back');
        assert.equal((await factorOf(user.id))?.lastUsedStep, 103);
      });

      it('useTotpStep keeps steps beyond 32 bits (a bigint column)', async () => {
        const { user } = await enrolled('alice');
        const far = 2 ** 40 + 7;
        assert.equal(await useStep(user.id, far), true);
        assert.equal((await factorOf(user.id))?.lastUsedStep, far);
        assert.equal(await useStep(user.id, far), false);
      });

      it('useTotpStep refuses a waiting factor, a user without one and an unknown user', async () => {
        const { user } = await registered('alice');
        assert.equal(await useStep(user.id, 1), false, 'no factor');
        await start(waitingFactor(user.id));
        assert.equal(await useStep(user.id, 1), false, 'waiting');
        assert.equal((await factorOf(user.id))?.lastUsedStep, null);
        assert.equal(await useStep('no-such-user', 1), false);
      });

      it('useTotpStep after enabling at step 0 accepts step 1', async () => {
        const { user } = await registered('alice');
        await start(waitingFactor(user.id));
        await enable(user.id, 0, [], T0);
        assert.equal(await useStep(user.id, 1), true);
      });

      it(`${RACERS} concurrent uses of one step: exactly one is accepted`, async () => {
        const { user } = await enrolled('alice');
        const results = fulfilled(
          await Promise.allSettled(Array.from({ length: RACERS }, () => useStep(user.id, 101))),
        );
        assert.equal(results.filter(Boolean).length, 1);
      });

      it(`${RACERS} concurrent uses of rising steps: the last used step ends at the highest accepted`, async () => {
        const { user } = await enrolled('alice');
        const results = fulfilled(
          await Promise.allSettled(Array.from({ length: RACERS }, (_, i) => useStep(user.id, 101 + (i % 5)))),
        );
        assert.ok(results.filter(Boolean).length >= 1 && results.filter(Boolean).length <= 5);
        assert.equal((await factorOf(user.id))?.lastUsedStep, 105);
      });
    });
  });
}
