import assert from 'node:assert/strict';
import { SUPERSEDED_ERROR } from '../../../services/outbox-message';
import {
  describe,
  it,
  T0,
  HOUR_LATER,
  DAY_LATER,
  T0_MINUS_1,
  newUser,
  message,
  token,
  type ConformanceSuite,
  userFieldsOf,
} from '../support';

export function describeAddresses(suite: ConformanceSuite): void {
  const { registered, sessionFor, createUser, replaceToken, transaction } = suite;
  describe('addresses: owned by the registration that proves them', () => {
    const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

    it('users.create stores the registration whoever holds the address, and queues the link or the owner notice', async () => {
      const first = newUser('first', { emailKey: 'shared@example.com' });
      const firstLink = message('verification');
      const stored = await createUser(first, token(first.id, 'verify_email', HOUR_LATER, 'verify-first'), {
        link: firstLink,
        ownerNotice: message('registrationAttempt'),
      });
      assert.deepEqual(stored, {
        ok: true,
        user: { ...userFieldsOf(first), verified: false, updatedAt: T0, disabledAt: null, credentialEpoch: 0 },
        owner: null,
      });

      const second = newUser('second', { emailKey: 'shared@example.com', createdAt: at(1) });
      const secondLink = message('verification');
      const claimed = await createUser(second, token(second.id, 'verify_email', HOUR_LATER, 'verify-second'), {
        link: secondLink,
      });
      assert.ok(claimed.ok && claimed.owner === null, 'an address held only by unverified registrations is not owned');
      assert.deepEqual(
        (await suite.store.outbox.list()).map((entry) => [entry.id, entry.userId]).sort(),
        [
          [firstLink.id, first.id],
          [secondLink.id, second.id],
        ].sort(),
      );

      assert.ok(await transaction((tx) => tx.users.confirmAddress('verify-first', T0)));
      const late = newUser('late', { emailKey: 'shared@example.com', createdAt: at(2) });
      const notice = message('registrationAttempt');
      const lateLink = message('verification');
      const owned = await createUser(late, token(late.id, 'verify_email', HOUR_LATER, 'verify-late'), {
        link: lateLink,
        ownerNotice: notice,
      });
      assert.ok(owned.ok && owned.owner?.id === first.id, 'the owner is named');
      assert.equal((await suite.store.users.findById(late.id))?.verified, false, 'stored all the same, unverified');
      const messages = await suite.store.outbox.list();
      assert.equal(messages.find((entry) => entry.id === notice.id)?.userId, first.id, 'the owner is told');
      assert.equal(
        messages.find((entry) => entry.id === lateLink.id),
        undefined,
        'no link to an owned address',
      );
      assert.equal(
        await transaction((tx) => tx.users.confirmAddress('verify-late', T0)),
        null,
        'a registration of an owned address never owns it',
      );
      assert.equal((await suite.store.users.findById(late.id))?.verified, false);
      assert.equal((await suite.store.users.findVerifiedByEmailKey('shared@example.com'))?.id, first.id);
    });

    it('users.findUnverifiedByEmailKey lists the live registrations of an address, newest first, at most `limit`', async () => {
      const users = [0, 1, 2, 3].map((i) =>
        newUser(`claim-${i}`, { emailKey: 'shared@example.com', createdAt: at(i) }),
      );
      for (const user of users) await createUser(user, token(user.id, 'verify_email', HOUR_LATER, `v-${user.id}`));
      await registered('other');

      const ids = async (after: Date, limit: number) =>
        (await suite.store.users.findUnverifiedByEmailKey('shared@example.com', after, limit)).map((user) => user.id);
      assert.deepEqual(
        await ids(T0_MINUS_1, 10),
        [3, 2, 1, 0].map((i) => users[i].id),
      );
      assert.deepEqual(await ids(T0_MINUS_1, 2), [users[3].id, users[2].id]);
      assert.deepEqual(await ids(at(1), 10), [users[3].id, users[2].id], 'created at or before the cut-off: expired');
      assert.deepEqual(await ids(T0_MINUS_1, 0), []);
    });

    it('users.confirmAddress makes its registration the owner and ends every other registration of the address', async () => {
      const owner = newUser('owner', { emailKey: 'shared@example.com', createdAt: at(1) });
      const rival = newUser('rival', { emailKey: 'shared@example.com' });
      const elsewhere = await registered('elsewhere');
      const rivalLink = message('verification');
      await createUser(rival, token(rival.id, 'verify_email', HOUR_LATER, 'verify-rival'), {
        link: rivalLink,
      });
      await createUser(owner, token(owner.id, 'verify_email', HOUR_LATER, 'verify-owner'));
      assert.ok(await replaceToken(token(rival.id, 'reset_password', HOUR_LATER, 'reset-rival')));

      const verified = await transaction((tx) => tx.users.confirmAddress('verify-owner', at(2)));
      assert.deepEqual(verified, {
        ...userFieldsOf(owner),
        verified: true,
        updatedAt: at(2),
        disabledAt: null,
        credentialEpoch: 0,
      });
      assert.equal((await suite.store.users.findVerifiedByEmailKey('shared@example.com'))?.id, owner.id);
      assert.equal(await suite.store.users.findById(rival.id), null, 'the other registration ended');
      assert.equal(await suite.store.users.findByUsernameKey(rival.usernameKey), null, 'and its username is free');
      assert.equal(
        await transaction((tx) => tx.users.confirmAddress('verify-rival', at(2))),
        null,
        'its link died with it',
      );
      assert.equal(await suite.store.tokens.findUser('reset-rival', 'reset_password', T0), null, 'every token of it');
      const dead = (await suite.store.outbox.list()).find((entry) => entry.id === rivalLink.id);
      assert.deepEqual([dead?.status, dead?.hasToken, dead?.lastError], ['failed', false, SUPERSEDED_ERROR]);
      assert.ok(await suite.store.users.findById(elsewhere.user.id), 'registrations of other addresses stay');
      const again = newUser('again', { usernameKey: rival.usernameKey });
      assert.ok((await createUser(again, token(again.id, 'verify_email', HOUR_LATER, 'verify-again'))).ok);
    });

    it('users.create frees a username held by an expired registration, and by nothing else', async () => {
      const expired = newUser('taken', { usernameKey: 'taken-expired' });
      const live = newUser('live', { usernameKey: 'taken-live', createdAt: at(10) });
      await createUser(expired, token(expired.id, 'verify_email', HOUR_LATER, 'verify-expired'));
      await createUser(live, token(live.id, 'verify_email', HOUR_LATER, 'verify-live'));
      const verified = await registered('verified', { usernameKey: 'taken-verified' });
      assert.ok(await transaction((tx) => tx.users.confirmAddress(verified.verificationHash, T0)));
      const cutoff = { expiredUnverifiedBefore: at(5) };

      const claim = (key: string) => {
        const user = newUser(`new-${key}`, { usernameKey: key, createdAt: at(20) });
        return createUser(user, token(user.id, 'verify_email', DAY_LATER, `verify-new-${key}`), cutoff);
      };
      assert.ok((await claim('taken-expired')).ok, 'an expired registration gives way');
      assert.equal(await suite.store.users.findById(expired.id), null);
      assert.equal(await suite.store.tokens.findUser('verify-expired', 'verify_email', T0), null, 'with its tokens');
      assert.deepEqual(await claim('taken-live'), { ok: false, conflict: 'username' });
      assert.deepEqual(
        await claim('taken-verified'),
        { ok: false, conflict: 'username' },
        'a verified user never expires',
      );
    });

    it('deleteExpired removes registrations never confirmed by the cut-off, with their tokens and sessions', async () => {
      const old = await registered('old');
      const fresh = await registered('fresh', { createdAt: at(30) });
      const verified = await registered('verified');
      assert.ok(await transaction((tx) => tx.users.confirmAddress(verified.verificationHash, T0)));
      await sessionFor(old.user.id, 'old');
      const cutoffs = { now: T0, sessionIdleBefore: new Date(0), unverifiedCreatedBefore: at(10) };

      assert.equal(await suite.store.deleteExpired(cutoffs), 1);
      assert.equal(await suite.store.users.findById(old.user.id), null);
      assert.equal(await suite.store.sessions.findWithUser('session-old'), null);
      assert.equal(await suite.store.tokens.findUser(old.verificationHash, 'verify_email', T0), null);
      assert.ok(await suite.store.users.findById(fresh.user.id));
      assert.ok(await suite.store.users.findById(verified.user.id));
      assert.equal(await suite.store.deleteExpired(cutoffs), 0);
    });
  });
}
