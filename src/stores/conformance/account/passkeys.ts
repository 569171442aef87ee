import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type {
  PasskeyCeremony,
  PasskeyRemoval,
  StoredPasskey,
  StoredPasskeyChallenge,
} from '../../../services/passkeys/passkey-records';
import { describe, it, HOUR, HOUR_LATER, T0, type ConformanceSuite } from '../support';

const MINUTE = 60_000;
const FIVE_MINUTES_LATER = new Date(T0.getTime() + 5 * MINUTE);

/** Passkeys (`tx.passkeys`, `store.passkeys`) and their ceremonies' challenges. */
export function describePasskeys(suite: ConformanceSuite): void {
  const { registered, transaction } = suite;
  const reads = () => suite.store.passkeys;

  const passkeyOf = (userId: string, label: string, overrides: Partial<StoredPasskey> = {}): StoredPasskey => ({
    id: randomUUID(),
    userId,
    credentialId: `credential-${label}`,
    publicKey: `public-key-${label}`,
    counter: 0,
    userHandle: `handle-of-${userId}`,
    name: `Passkey ${label}`,
    transports: ['internal', 'hybrid'],
    aaguid: '00000000-0000-0000-0000-000000000000',
    backupEligible: true,
    backedUp: false,
    userVerified: true,
    createdAt: new Date(T0),
    lastUsedAt: null,
    ...overrides,
  });
  const challengeOf = (
    label: string,
    ceremony: PasskeyCeremony,
    userId: string | null,
    overrides: Partial<StoredPasskeyChallenge> = {},
  ): StoredPasskeyChallenge => ({
    challengeHash: `challenge-${label}`,
    ceremony,
    userId,
    sessionId: ceremony === 'registration' || ceremony === 'reauthentication' ? `session-of-${label}` : null,
    loginChallengeHash: ceremony === 'second_factor' ? `login-challenge-${label}` : null,
    userHandle: ceremony === 'registration' ? `handle-${label}` : null,
    createdAt: new Date(T0),
    expiresAt: new Date(FIVE_MINUTES_LATER),
    ...overrides,
  });

  const add = (passkey: StoredPasskey) => transaction((tx) => tx.passkeys.add(passkey));
  const added = async (passkey: StoredPasskey): Promise<StoredPasskey> => {
    assert.equal(await add(passkey), 'added');
    return passkey;
  };
  /** With `keepWayIn`, under the rule of a deployment with one provider configured (`corp`); else with none. */
  const remove = (userId: string, id: string, keepWayIn: boolean, now = HOUR_LATER): Promise<PasskeyRemoval> =>
    transaction((tx) => tx.passkeys.remove(userId, id, now, keepWayIn ? { identityProviders: ['corp'] } : null));
  const use = (id: string, expected: number, next: number, backedUp = false, now = HOUR_LATER) =>
    transaction((tx) => tx.passkeys.use(id, expected, next, backedUp, now));
  const createChallenge = (challenge: StoredPasskeyChallenge) =>
    transaction((tx) => tx.passkeys.createChallenge(challenge));
  const consume = (hash: string, ceremony: PasskeyCeremony, now = new Date(T0.getTime() + MINUTE)) =>
    transaction((tx) => tx.passkeys.consumeChallenge(hash, ceremony, now));
  /** A user with no password: only passkeys let it in. */
  const passwordless = (label: string) => registered(label, { passwordHash: null });

  describe('passkeys', () => {
    it('add stores a passkey as given, and list, count and findByCredentialId read it, inside and outside a transaction', async () => {
      const { user } = await registered('alice');
      const later = await added(passkeyOf(user.id, 'later', { createdAt: new Date(T0.getTime() + MINUTE) }));
      const first = await added(passkeyOf(user.id, 'first', { counter: 7, lastUsedAt: new Date(T0) }));

      assert.deepEqual(await reads().list(user.id), [first, later], 'oldest first');
      assert.equal(await reads().count(user.id), 2);
      assert.deepEqual(await reads().findByCredentialId('credential-first'), first);
      assert.equal(await reads().findByCredentialId('credential-unknown'), null);
      assert.deepEqual(await reads().list('no-such-user'), []);
      assert.equal(await reads().count('no-such-user'), 0);
      const inside = await transaction(async (tx) => ({
        list: await tx.passkeys.list(user.id),
        count: await tx.passkeys.count(user.id),
        found: await tx.passkeys.findByCredentialId('credential-later'),
      }));
      assert.deepEqual(inside, { list: [first, later], count: 2, found: later });
      const stored = await suite.store.users.findById(user.id);
      assert.equal(
        stored?.updatedAt.getTime(),
        T0.getTime(),
        "the user's updatedAt is the createdAt of the last one added",
      );
    });

    it('add refuses a credential id stored already, for any account (duplicate), and a gone user (gone), writing nothing', async () => {
      const { user: alice } = await registered('alice');
      const { user: bob } = await registered('bob');
      await added(passkeyOf(alice.id, 'shared'));

      assert.equal(await add(passkeyOf(bob.id, 'shared')), 'duplicate');
      assert.equal(await add(passkeyOf(alice.id, 'shared')), 'duplicate');
      assert.equal(await add(passkeyOf('no-such-user', 'other')), 'gone');
      assert.equal(await reads().count(bob.id), 0);
      assert.equal(await reads().count(alice.id), 1);
      assert.equal(await reads().findByCredentialId('credential-other'), null);
      assert.equal((await suite.store.users.findById(bob.id))?.updatedAt.getTime(), bob.updatedAt.getTime());
    });

    it('add, raced with one credential id by two users, is added exactly once; the other is duplicate', async () => {
      const { user: alice } = await registered('alice');
      const { user: bob } = await registered('bob');
      const outcomes = await Promise.all([add(passkeyOf(alice.id, 'raced')), add(passkeyOf(bob.id, 'raced'))]);

      assert.deepEqual([...outcomes].sort(), ['added', 'duplicate']);
      const winner = outcomes[0] === 'added' ? alice : bob;
      assert.equal((await reads().findByCredentialId('credential-raced'))?.userId, winner.id);
      assert.equal((await reads().count(alice.id)) + (await reads().count(bob.id)), 1);
    });

    it('rename renames only the user’s own passkey', async () => {
      const { user: alice } = await registered('alice');
      const { user: bob } = await registered('bob');
      const passkey = await added(passkeyOf(alice.id, 'laptop'));

      const renamed = await transaction((tx) => tx.passkeys.rename(alice.id, passkey.id, 'Work laptop'));
      assert.deepEqual(renamed, { ...passkey, name: 'Work laptop' });
      assert.deepEqual(await reads().list(alice.id), [renamed]);
      assert.equal(await transaction((tx) => tx.passkeys.rename(bob.id, passkey.id, 'Stolen')), null);
      assert.equal(await transaction((tx) => tx.passkeys.rename(alice.id, randomUUID(), 'None')), null);
      assert.equal((await reads().list(alice.id))[0].name, 'Work laptop');
    });

    it('remove removes the user’s passkey and sets its updatedAt; another user’s or an unknown one is not_found', async () => {
      const { user: alice } = await registered('alice');
      const { user: bob } = await registered('bob');
      const passkey = await added(passkeyOf(alice.id, 'phone'));

      assert.deepEqual(await remove(bob.id, passkey.id, false), { outcome: 'not_found' });
      assert.deepEqual(await remove(alice.id, randomUUID(), true), { outcome: 'not_found' });
      assert.deepEqual(await remove('no-such-user', passkey.id, false), { outcome: 'not_found' });
      const removal = await remove(alice.id, passkey.id, true);
      assert.equal(removal.outcome, 'removed', 'a password is a way in');
      if (removal.outcome !== 'removed') return;
      assert.deepEqual(removal.passkey, passkey);
      assert.equal(removal.user.id, alice.id);
      assert.equal(removal.user.updatedAt.getTime(), HOUR_LATER.getTime());
      assert.equal((await suite.store.users.findById(alice.id))?.updatedAt.getTime(), HOUR_LATER.getTime());
      assert.equal(await reads().count(alice.id), 0);
      assert.deepEqual(await remove(alice.id, passkey.id, false), { outcome: 'not_found' });
    });

    it('remove with a way-in rule refuses the last passkey of a user without a password; without one, removes it', async () => {
      const { user } = await passwordless('carol');
      const first = await added(passkeyOf(user.id, 'first'));
      const second = await added(passkeyOf(user.id, 'second'));

      assert.equal((await remove(user.id, first.id, true)).outcome, 'removed', 'another passkey is left');
      assert.deepEqual(await remove(user.id, second.id, true), { outcome: 'last_way_in' });
      assert.deepEqual(await reads().list(user.id), [second], 'a refusal changes nothing');
      assert.equal((await suite.store.users.findById(user.id))?.updatedAt.getTime(), HOUR_LATER.getTime());
      assert.equal((await remove(user.id, second.id, false)).outcome, 'removed', 'an administrator may');
      assert.equal(await reads().count(user.id), 0);
    });

    it('remove with a way-in rule, raced for a passwordless user’s last two passkeys, removes exactly one', async () => {
      const { user } = await passwordless('dave');
      const first = await added(passkeyOf(user.id, 'first'));
      const second = await added(passkeyOf(user.id, 'second'));

      const outcomes = await Promise.all([remove(user.id, first.id, true), remove(user.id, second.id, true)]);
      assert.deepEqual(outcomes.map((removal) => removal.outcome).sort(), ['last_way_in', 'removed']);
      assert.equal(await reads().count(user.id), 1);
    });

    it('use accepts the counter only while it is the expected one, recording backedUp and lastUsedAt', async () => {
      const { user } = await registered('erin');
      const passkey = await added(passkeyOf(user.id, 'key', { counter: 5 }));
      const usedAt = new Date(T0.getTime() + HOUR);

      assert.equal(await use(passkey.id, 4, 6), false, 'the counter is not 4');
      assert.equal(await use(randomUUID(), 5, 6), false);
      assert.deepEqual(await reads().findByCredentialId(passkey.credentialId), passkey, 'a refusal changes nothing');
      assert.equal(await use(passkey.id, 5, 6, true, usedAt), true);
      assert.deepEqual(await reads().findByCredentialId(passkey.credentialId), {
        ...passkey,
        counter: 6,
        backedUp: true,
        lastUsedAt: usedAt,
      });
      assert.equal(await use(passkey.id, 5, 7), false, 'the counter moved');
      assert.equal(await use(passkey.id, 6, 7, false), true);
      assert.equal((await reads().findByCredentialId(passkey.credentialId))?.backedUp, false);
    });

    it('use, raced by two assertions that read the same counter, is true for exactly one', async () => {
      const { user } = await registered('frank');
      const passkey = await added(passkeyOf(user.id, 'key', { counter: 5 }));

      const results = await Promise.all([use(passkey.id, 5, 6), use(passkey.id, 5, 7)]);
      assert.deepEqual([...results].sort(), [false, true]);
      const counter = (await reads().findByCredentialId(passkey.credentialId))?.counter;
      assert.equal(counter, results[0] ? 6 : 7);
    });

    it('returns copies: changing what it returned or was given changes nothing stored', async () => {
      const { user } = await registered('grace');
      const given = passkeyOf(user.id, 'key');
      await added(given);
      const expected = passkeyOf(user.id, 'key', { id: given.id, userHandle: given.userHandle });
      given.name = 'changed';
      given.transports.push('usb');
      given.createdAt.setTime(0);

      const [listed] = await reads().list(user.id);
      assert.deepEqual(listed, expected);
      listed.name = 'changed';
      listed.transports.push('usb');
      listed.createdAt.setTime(0);
      assert.deepEqual(await reads().findByCredentialId(expected.credentialId), expected);

      const challenge = challengeOf('copied', 'sign_in', null);
      await createChallenge(challenge);
      challenge.expiresAt.setTime(0);
      const consumed = await consume('challenge-copied', 'sign_in');
      assert.deepEqual(consumed, challengeOf('copied', 'sign_in', null));
    });

    it('goes with its user: deleting the user removes its passkeys and challenges, not a sign-in’s', async () => {
      const { user } = await registered('heidi');
      const passkey = await added(passkeyOf(user.id, 'key'));
      await createChallenge(challengeOf('registration', 'registration', user.id));
      await createChallenge(challengeOf('sign-in', 'sign_in', null));

      const deleted = await suite.deleteUser(user.id);
      assert.equal(deleted.outcome, 'deleted');
      assert.equal(await reads().findByCredentialId(passkey.credentialId), null);
      assert.equal(await reads().count(user.id), 0);
      assert.equal(await consume('challenge-registration', 'registration'), null);
      assert.ok(await consume('challenge-sign-in', 'sign_in'));
      const { user: again } = await registered('heidi2');
      assert.equal(await add(passkeyOf(again.id, 'key')), 'added', 'its credential id is free again');
    });

    it('a write of a transaction that fails is undone', async () => {
      const { user } = await registered('ivan');
      await assert.rejects(
        transaction(async (tx) => {
          await tx.passkeys.add(passkeyOf(user.id, 'undone'));
          await tx.passkeys.createChallenge(challengeOf('undone', 'registration', user.id));
          throw new Error('work failed');
        }),
        /work failed/,
      );
      assert.equal(await reads().count(user.id), 0);
      assert.equal(await consume('challenge-undone', 'registration'), null);
    });
  });

  describe('passkey challenges', () => {
    it('consumeChallenge returns a live challenge of its ceremony as stored, once', async () => {
      const { user } = await registered('alice');
      const stored = [
        challengeOf('reg', 'registration', user.id),
        challengeOf('in', 'sign_in', null),
        challengeOf('second', 'second_factor', user.id),
        challengeOf('reauth', 'reauthentication', user.id),
      ];
      for (const challenge of stored) await createChallenge(challenge);

      for (const challenge of stored) {
        assert.deepEqual(await consume(challenge.challengeHash, challenge.ceremony), challenge);
        assert.equal(await consume(challenge.challengeHash, challenge.ceremony), null, 'gone after its first use');
      }
      assert.equal(await consume('challenge-unknown', 'sign_in'), null);
    });

    it('consumeChallenge of another ceremony answers null and leaves the challenge as it is', async () => {
      const { user } = await registered('bob');
      const challenge = challengeOf('reg', 'registration', user.id);
      await createChallenge(challenge);

      assert.equal(await consume(challenge.challengeHash, 'sign_in'), null);
      assert.equal(await consume(challenge.challengeHash, 'reauthentication'), null);
      assert.deepEqual(await consume(challenge.challengeHash, 'registration'), challenge);
    });

    it('consumeChallenge of an expired challenge answers null and deletes it', async () => {
      await createChallenge(challengeOf('old', 'sign_in', null));

      assert.equal(await consume('challenge-old', 'sign_in', FIVE_MINUTES_LATER), null, 'dead from its expiresAt');
      assert.equal(await consume('challenge-old', 'sign_in', new Date(T0)), null, 'deleted, not only refused');
    });

    it('consumeChallenge, raced by two callers, gives the challenge to exactly one', async () => {
      const challenge = challengeOf('raced', 'sign_in', null);
      await createChallenge(challenge);

      const results = await Promise.all([consume('challenge-raced', 'sign_in'), consume('challenge-raced', 'sign_in')]);
      assert.deepEqual(
        results.filter((result) => result !== null),
        [challenge],
      );
    });

    it('deleteExpired removes the expired challenges and keeps the live ones', async () => {
      const { user } = await registered('carol');
      await createChallenge(challengeOf('expired', 'registration', user.id, { expiresAt: new Date(T0) }));
      await createChallenge(challengeOf('expired-sign-in', 'sign_in', null, { expiresAt: new Date(T0) }));
      await createChallenge(challengeOf('live', 'sign_in', null));

      assert.equal(await suite.store.deleteExpired({ now: new Date(T0), sessionIdleBefore: new Date(0) }), 2);
      assert.equal(await consume('challenge-expired', 'registration', new Date(T0.getTime() - 1)), null);
      assert.ok(await consume('challenge-live', 'sign_in'));
    });
  });
}
