import assert from 'node:assert/strict';
import { SUPERSEDED_ERROR, type NewOutboxMessage } from '../../../services/outbox-message';
import type { EmailChangeResult, StoredEmailChange, StoredUser } from '../../../services/user-store';
import {
  describe,
  it,
  T0,
  HOUR_LATER,
  DAY_LATER,
  newUser,
  message,
  token,
  fulfilled,
  type ConformanceSuite,
  type EmailChangeMessages,
  passwordOf,
} from '../support';

export function describeEmailChange(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor, verifiedWithSession: verified, transaction } = suite;
  const { createUser, deleteUser, requestEmailChange, confirmEmailChange } = suite;
  const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

  function change(userId: string, label: string, overrides: Partial<StoredEmailChange> = {}): StoredEmailChange {
    return {
      tokenHash: `change-${label}`,
      userId,
      newEmail: `${label}@New.example`,
      newEmailKey: `${label.toLowerCase()}@new.example`,
      createdAt: new Date(T0),
      expiresAt: new Date(HOUR_LATER),
      endOtherSessions: true,
      keepSessionId: null,
      ...overrides,
    };
  }

  function messages(): Required<EmailChangeMessages> {
    return {
      link: message('emailChange'),
      ownerNotice: message('emailChangeAttempt'),
      requestedNotice: message('emailChangeRequested'),
    };
  }

  /** The queued message of that id, as [kind, userId, username, email, status], or undefined. */
  async function queued(sent: NewOutboxMessage | undefined): Promise<unknown[] | undefined> {
    const entry = (await suite.store.outbox.list()).find((candidate) => candidate.id === sent?.id);
    return entry && [entry.kind, entry.userId, entry.username, entry.email, entry.status];
  }

  describe('email change: a link to the new address', () => {
    it('emailChanges.request stores the change, sends the link to the new address and a notice to the current one', async () => {
      const alice = await verified('alice');
      const asked = change(alice.user.id, 'fresh', { keepSessionId: alice.sessionId });
      const sent = messages();

      assert.deepEqual(await requestEmailChange(asked, sent, alice.sessionHash), {
        ok: true,
        user: alice.user,
        owner: null,
      });
      assert.deepEqual(await queued(sent.link), [
        'emailChange',
        alice.user.id,
        'alice',
        'fresh@New.example',
        'pending',
      ]);
      assert.deepEqual(await queued(sent.requestedNotice), [
        'emailChangeRequested',
        alice.user.id,
        'alice',
        'alice@example.com',
        'pending',
      ]);
      assert.equal(await queued(sent.ownerNotice), undefined, 'no owner to tell');
      assert.deepEqual(await suite.store.emailChanges.find(asked.tokenHash, T0), { change: asked, user: alice.user });
      assert.deepEqual(await suite.store.users.findById(alice.user.id), alice.user, 'nothing changes before the link');
      assert.equal(await suite.store.emailChanges.find(asked.tokenHash, HOUR_LATER), null, 'expired at its expiry');
      assert.equal(await suite.store.emailChanges.find('unknown', T0), null);
    });

    it('emailChanges.request stores nothing when the asking session has ended, is another’s, or the user is gone', async () => {
      const alice = await verified('alice');
      const bob = await verified('bob');
      const refused = async (asked: StoredEmailChange, sessionHash: string) => {
        const sent = messages();
        assert.deepEqual(await requestEmailChange(asked, sent, sessionHash), { ok: false });
        assert.equal(await suite.store.emailChanges.find(asked.tokenHash, T0), null);
        for (const one of Object.values(sent)) assert.equal(await queued(one), undefined);
      };
      await refused(change(alice.user.id, 'with-bobs'), bob.sessionHash);
      await refused(change(alice.user.id, 'with-none'), 'no-such-session');
      await refused(change('no-such-user', 'nobody'), alice.sessionHash);
      assert.equal(await transaction((tx) => tx.sessions.delete(alice.sessionHash)), true);
      await refused(change(alice.user.id, 'ended'), alice.sessionHash);
    });

    it('an owned new address: the same change is stored, its owner is told, and confirming it is refused', async () => {
      const alice = await verified('alice');
      const bob = await verified('bob');
      const asked = change(alice.user.id, 'taken', { newEmail: 'BOB@example.com', newEmailKey: 'bob@example.com' });
      const sent = messages();

      assert.deepEqual(await requestEmailChange(asked, sent, alice.sessionHash), {
        ok: true,
        user: alice.user,
        owner: bob.user,
      });
      assert.deepEqual(await suite.store.emailChanges.find(asked.tokenHash, T0), { change: asked, user: alice.user });
      assert.deepEqual(await queued(sent.ownerNotice), [
        'emailChangeAttempt',
        bob.user.id,
        'bob',
        'bob@example.com',
        'pending',
      ]);
      assert.equal(await queued(sent.link), undefined, 'no link to an owned address');
      assert.deepEqual(await queued(sent.requestedNotice), [
        'emailChangeRequested',
        alice.user.id,
        'alice',
        'alice@example.com',
        'pending',
      ]);

      const notice = message('emailChanged');
      assert.deepEqual(await confirmEmailChange(asked.tokenHash, at(1), notice), { outcome: 'taken' });
      assert.equal(await queued(notice), undefined);
      assert.deepEqual(await suite.store.users.findById(alice.user.id), alice.user);
      assert.deepEqual(await confirmEmailChange(asked.tokenHash, at(1)), { outcome: 'invalid' }, 'spent');
      assert.equal(await suite.store.emailChanges.find(asked.tokenHash, at(1)), null);
    });

    it('a new request supersedes the pending one: its token dies and its unsent link fails', async () => {
      const alice = await verified('alice');
      const first = change(alice.user.id, 'first');
      const firstSent = messages();
      await requestEmailChange(first, firstSent, alice.sessionHash);
      const second = change(alice.user.id, 'second', { createdAt: at(1) });
      const secondSent = messages();
      assert.deepEqual(await requestEmailChange(second, secondSent, alice.sessionHash), {
        ok: true,
        user: alice.user,
        owner: null,
      });

      assert.equal(await suite.store.emailChanges.find(first.tokenHash, T0), null);
      assert.deepEqual(await confirmEmailChange(first.tokenHash, at(2)), { outcome: 'invalid' });
      const entries = await suite.store.outbox.list();
      const dead = entries.find((entry) => entry.id === firstSent.link.id);
      assert.deepEqual(
        [dead?.status, dead?.hasToken, dead?.lastError, dead?.updatedAt],
        ['failed', false, SUPERSEDED_ERROR, at(1)],
      );
      const notice = entries.find((entry) => entry.id === firstSent.requestedNotice.id);
      assert.equal(notice?.status, 'pending', 'notices are not superseded');
      assert.equal((await suite.store.emailChanges.find(second.tokenHash, T0))?.change.newEmail, 'second@New.example');

      // A link a worker holds right now is left to finish.
      const [claimed] = (await suite.store.outbox.claimDue(at(2), at(10), 100)).filter(
        (entry) => entry.id === secondSent.link.id,
      );
      assert.ok(claimed);
      await requestEmailChange(change(alice.user.id, 'third', { createdAt: at(3) }), messages(), alice.sessionHash);
      const held = (await suite.store.outbox.list()).find((entry) => entry.id === secondSent.link.id);
      assert.deepEqual([held?.status, held?.claimed], ['pending', true]);
    });

    it('emailChanges.confirm makes the new address the user’s, ends the other sessions and tells the old address', async () => {
      const alice = await verified('alice');
      const other = await sessionFor(alice.user.id, 'alice-elsewhere');
      const bob = await verified('bob');
      const resetHash = await resetTokenFor(alice.user.id, 'alice');
      const asked = change(alice.user.id, 'moved', { keepSessionId: alice.sessionId });
      await requestEmailChange(asked, messages(), alice.sessionHash);

      const notice = message('emailChanged');
      const result = await confirmEmailChange(asked.tokenHash, at(5), notice);
      const changed = {
        ...alice.user,
        email: 'moved@New.example',
        emailKey: 'moved@new.example',
        updatedAt: at(5),
      };
      assert.deepEqual(result, {
        outcome: 'changed',
        user: changed,
        previousEmail: 'alice@example.com',
        endedSessions: 1,
      });
      assert.deepEqual(await suite.store.users.findById(alice.user.id), changed);
      assert.equal((await suite.store.users.findVerifiedByEmailKey('moved@new.example'))?.id, alice.user.id);
      assert.equal(
        await suite.store.users.findVerifiedByEmailKey('alice@example.com'),
        null,
        'the old address is free',
      );
      assert.deepEqual(await queued(notice), ['emailChanged', alice.user.id, 'alice', 'alice@example.com', 'pending']);
      assert.ok(await suite.store.sessions.findWithUser(alice.sessionHash), 'the asking session stays');
      assert.equal(await suite.store.sessions.findWithUser(other.tokenHash), null, 'the others end');
      assert.ok(await suite.store.sessions.findWithUser(bob.sessionHash), 'other users keep theirs');
      assert.equal(
        await suite.store.tokens.findUser(resetHash, 'reset_password', T0),
        null,
        'resets went to the old address',
      );
      assert.deepEqual(await confirmEmailChange(asked.tokenHash, at(5)), { outcome: 'invalid' }, 'spent');
      assert.equal(await suite.store.emailChanges.find(asked.tokenHash, at(5)), null);

      // The old address can now be registered and proved by someone else.
      const next = await registered('next', { email: 'alice@example.com', emailKey: 'alice@example.com' });
      assert.ok(await transaction((tx) => tx.users.confirmAddress(next.verificationHash, at(6))));
    });

    it('emailChanges.confirm ends the other sessions only when asked, and all of them when none is kept', async () => {
      const alice = await verified('alice');
      await sessionFor(alice.user.id, 'alice-2');
      const keepAll = change(alice.user.id, 'keep-all', { endOtherSessions: false, keepSessionId: alice.sessionId });
      await requestEmailChange(keepAll, {}, alice.sessionHash);
      const kept = await confirmEmailChange(keepAll.tokenHash, at(1));
      assert.equal(kept.outcome === 'changed' && kept.endedSessions, 0);
      assert.equal((await suite.store.sessions.list(alice.user.id)).length, 2);

      const endAll = change(alice.user.id, 'end-all', { keepSessionId: null });
      await requestEmailChange(endAll, {}, alice.sessionHash);
      const ended = await confirmEmailChange(endAll.tokenHash, at(2));
      assert.equal(ended.outcome === 'changed' && ended.endedSessions, 2);
      assert.deepEqual(await suite.store.sessions.list(alice.user.id), []);
    });

    it('emailChanges.confirm ends the unverified registrations of the new address, as a verification does', async () => {
      const alice = await verified('alice');
      const asked = change(alice.user.id, 'claimed');
      await requestEmailChange(asked, messages(), alice.sessionHash);
      const rival = newUser('rival', { email: 'claimed@new.example', emailKey: 'claimed@new.example' });
      const rivalLink = message('verification');
      await createUser(rival, token(rival.id, 'verify_email', DAY_LATER, 'verify-rival'), {
        link: rivalLink,
      });
      const elsewhere = await registered('elsewhere');

      assert.equal((await confirmEmailChange(asked.tokenHash, at(1))).outcome, 'changed');
      assert.equal(await suite.store.users.findById(rival.id), null);
      assert.equal(
        await transaction((tx) => tx.users.confirmAddress('verify-rival', at(2))),
        null,
        'its link died with it',
      );
      const dead = (await suite.store.outbox.list()).find((entry) => entry.id === rivalLink.id);
      assert.deepEqual([dead?.status, dead?.hasToken, dead?.lastError], ['failed', false, SUPERSEDED_ERROR]);
      assert.ok(await suite.store.users.findById(elsewhere.user.id));
    });

    it('emailChanges.confirm refuses an unknown or expired change, and `taken` once another has proved the address', async () => {
      const alice = await verified('alice');
      const late = change(alice.user.id, 'late');
      await requestEmailChange(late, {}, alice.sessionHash);
      assert.deepEqual(await confirmEmailChange('unknown', T0), { outcome: 'invalid' });
      assert.deepEqual(await confirmEmailChange(late.tokenHash, HOUR_LATER), { outcome: 'invalid' });

      const bob = await verified('bob');
      const raced = change(bob.user.id, 'raced');
      assert.deepEqual(await requestEmailChange(raced, messages(), bob.sessionHash), {
        ok: true,
        user: bob.user,
        owner: null,
      });
      const carol = await registered('carol', { email: 'raced@new.example', emailKey: 'raced@new.example' });
      assert.ok(
        await transaction((tx) => tx.users.confirmAddress(carol.verificationHash, at(1))),
        'carol proves the address first',
      );
      assert.deepEqual(await confirmEmailChange(raced.tokenHash, at(2)), { outcome: 'taken' });
      assert.deepEqual(await confirmEmailChange(raced.tokenHash, at(2)), { outcome: 'invalid' });
      assert.equal((await suite.store.users.findById(bob.user.id))?.email, 'bob@example.com');
    });

    for (const [what, end] of [
      [
        'passwords.reset',
        async (user: StoredUser) => {
          const resetHash = await resetTokenFor(user.id, 'r');
          assert.ok(await transaction((tx) => tx.passwords.reset(resetHash, 'new-hash', at(1))));
        },
      ],
      [
        'passwords.change',
        async (user: StoredUser) =>
          assert.ok(await transaction((tx) => tx.passwords.change(user.id, passwordOf(user), 'new-hash', at(1)))),
      ],
      ['users.delete', async (user: StoredUser) => assert.equal((await deleteUser(user.id)).outcome, 'deleted')],
    ] as const) {
      it(`${what} drops the pending change`, async () => {
        const alice = await verified('alice');
        const bob = await verified('bob');
        const asked = change(alice.user.id, 'dropped');
        const bobs = change(bob.user.id, 'kept');
        await requestEmailChange(asked, {}, alice.sessionHash);
        await requestEmailChange(bobs, {}, bob.sessionHash);

        await end(alice.user);
        assert.equal(await suite.store.emailChanges.find(asked.tokenHash, T0), null);
        assert.deepEqual(await confirmEmailChange(asked.tokenHash, at(2)), { outcome: 'invalid' });
        assert.ok(await suite.store.emailChanges.find(bobs.tokenHash, T0), 'other users keep theirs');
      });
    }

    it('deleteExpired removes the changes past their expiry, and counts them', async () => {
      const alice = await verified('alice');
      const bob = await verified('bob');
      await requestEmailChange(change(alice.user.id, 'expired'), {}, alice.sessionHash);
      const live = change(bob.user.id, 'live', { expiresAt: DAY_LATER });
      await requestEmailChange(live, {}, bob.sessionHash);

      const cutoffs = { now: HOUR_LATER, sessionIdleBefore: new Date(0) };
      assert.equal(await suite.store.deleteExpired(cutoffs), 1);
      assert.deepEqual(await suite.store.emailChanges.find(live.tokenHash, HOUR_LATER), {
        change: live,
        user: bob.user,
      });
      assert.deepEqual(await confirmEmailChange('change-expired', T0), { outcome: 'invalid' }, 'gone');
      assert.equal(await suite.store.deleteExpired(cutoffs), 0);
    });

    const RACERS = 10;
    const ROUNDS = 5;

    it(`${RACERS} concurrent confirmations of one change: exactly one changes the address`, async () => {
      const alice = await verified('alice');
      const asked = change(alice.user.id, 'once');
      await requestEmailChange(asked, {}, alice.sessionHash);
      const notices = Array.from({ length: RACERS }, () => message('emailChanged'));
      const results = fulfilled(
        await Promise.allSettled(notices.map((notice) => confirmEmailChange(asked.tokenHash, at(1), notice))),
      );
      assert.equal(results.filter((result) => result.outcome === 'changed').length, 1);
      assert.equal(results.filter((result) => result.outcome === 'invalid').length, RACERS - 1);
      const sent = (await suite.store.outbox.list()).filter((entry) => entry.kind === 'emailChanged');
      assert.equal(sent.length, 1, 'one notice');
    });

    it('two accounts confirming a change to one address at once: exactly one owns it, nothing throws', async () => {
      const alice = await verified('alice');
      const bob = await verified('bob');
      for (let round = 0; round < ROUNDS; round++) {
        const address = { newEmail: `Same-${round}@new.example`, newEmailKey: `same-${round}@new.example` };
        const hers = change(alice.user.id, `alice-${round}`, { ...address, endOtherSessions: false });
        const his = change(bob.user.id, `bob-${round}`, { ...address, endOtherSessions: false });
        await requestEmailChange(hers, {}, alice.sessionHash);
        await requestEmailChange(his, {}, bob.sessionHash);

        const results = fulfilled(
          await Promise.allSettled([
            confirmEmailChange(hers.tokenHash, at(1)),
            confirmEmailChange(his.tokenHash, at(1)),
          ]),
        );
        assert.deepEqual(results.map((result) => result.outcome).sort(), ['changed', 'taken'], `round ${round}`);
        const winner = results[0].outcome === 'changed' ? alice : bob;
        assert.equal((await suite.store.users.findVerifiedByEmailKey(address.newEmailKey))?.id, winner.user.id);
      }
    });

    it('a confirmation racing the verification of a registration of the address: one owner, nothing throws', async () => {
      const alice = await verified('alice');
      for (let round = 0; round < ROUNDS; round++) {
        const key = `contested-${round}@new.example`;
        const asked = change(alice.user.id, `contested-${round}`, {
          newEmail: key,
          newEmailKey: key,
          endOtherSessions: false,
        });
        const claimed = await requestEmailChange(asked, {}, alice.sessionHash);
        assert.deepEqual(
          [claimed.ok, claimed.ok && claimed.user.id, claimed.ok && claimed.owner],
          [true, alice.user.id, null],
        );
        const rival = newUser(`rival-${round}`, { email: key, emailKey: key, createdAt: at(round) });
        const created = await createUser(rival, token(rival.id, 'verify_email', DAY_LATER, `verify-${rival.id}`));
        assert.ok(created.ok);

        const [confirmed, verifiedRival] = fulfilled(
          await Promise.allSettled([
            confirmEmailChange(asked.tokenHash, at(round + 1)),
            transaction((tx) => tx.users.confirmAddress(`verify-${rival.id}`, at(round + 1))),
          ]),
        ) as [EmailChangeResult, StoredUser | null];
        const aliceWon = confirmed.outcome === 'changed';
        assert.equal(aliceWon, verifiedRival === null, `round ${round}: exactly one of them wins`);
        assert.equal(confirmed.outcome, aliceWon ? 'changed' : 'taken');
        assert.equal(
          (await suite.store.users.findVerifiedByEmailKey(key))?.id,
          aliceWon ? alice.user.id : rival.id,
          `round ${round}: the winner owns the address`,
        );
        assert.equal(
          await suite.store.users.findById(rival.id).then((user) => user !== null),
          !aliceWon,
          'a registration that lost ended',
        );
      }
    });
  });
}
