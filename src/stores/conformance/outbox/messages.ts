import assert from 'node:assert/strict';
import type { NewOutboxMessage, OutboxEntry, OutboxKind } from '../../../services/outbox-message';
import type { StoredUser, UserStoreTransaction } from '../../../services/user-store';
import {
  describe,
  it,
  HOUR,
  T0,
  HOUR_LATER,
  DAY_LATER,
  newUser,
  message,
  pick,
  token,
  fulfilled,
  type ConformanceSuite,
  passwordOf,
} from '../support';

export function describeMessages(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor, transaction, createUser, replaceToken, enqueue, deleteUser } = suite;
  const { requestEmailChange } = suite;

  /** A change that returns its user, and `sent` to that user, composed in one transaction as the core does. */
  const withMessage = (
    change: (tx: UserStoreTransaction) => Promise<StoredUser | null>,
    sent: NewOutboxMessage,
  ): Promise<StoredUser | null> =>
    transaction(async (tx) => {
      const user = await change(tx);
      if (user) await tx.outbox.add(sent, user);
      return user;
    });

  describe('outbox', () => {
    /** The one message of this kind in the store; fails the test unless there is exactly one. */
    async function onlyMessage(kind: OutboxKind): Promise<OutboxEntry> {
      const found = (await suite.store.outbox.list()).filter((entry) => entry.kind === kind);
      assert.equal(found.length, 1, `one ${kind} message`);
      return found[0];
    }

    it('each account change and its message commit in one transaction, addressed to the user it returns', async () => {
      const alice = newUser('alice', { username: 'Alice', email: 'Alice@Example.com' });
      const welcome = message('verification');
      await createUser(alice, token(alice.id, 'verify_email', HOUR_LATER, 'verify-alice'), { link: welcome });
      assert.deepEqual(await onlyMessage('verification'), {
        id: welcome.id,
        kind: 'verification',
        userId: alice.id,
        username: 'Alice',
        email: 'Alice@Example.com',
        status: 'pending',
        attempts: 0,
        nextAttemptAt: T0,
        giveUpAt: DAY_LATER,
        createdAt: T0,
        updatedAt: T0,
        sentAt: null,
        lastError: null,
        hasToken: true,
        claimed: false,
      });

      // The core does not know whose token it is: the store returns the user, and the message goes to it.
      const confirmed = await withMessage(
        (tx) => tx.users.confirmAddress('verify-alice', T0),
        message('emailVerified'),
      );
      assert.equal(confirmed?.id, alice.id);
      assert.equal((await onlyMessage('emailVerified')).userId, alice.id);

      const reset = token(alice.id, 'reset_password', HOUR_LATER, 'reset-alice');
      assert.ok(await replaceToken(reset, message('passwordReset')));
      assert.equal((await onlyMessage('passwordReset')).email, 'Alice@Example.com');
      assert.ok(await withMessage((tx) => tx.passwords.reset('reset-alice', 'hash-2', T0), message('passwordChanged')));
      assert.ok(
        await withMessage((tx) => tx.passwords.change(alice.id, 'hash-2', 'hash-3', T0), message('passwordChanged')),
      );
      assert.equal((await suite.store.outbox.list()).filter((entry) => entry.kind === 'passwordChanged').length, 2);
      assert.equal(await enqueue(alice.id, message('registrationAttempt')), true);
      assert.equal(await enqueue('no-such-id', message('registrationAttempt')), false);

      // The deletion notice goes to the row as it was before it went, and outlives it with every other message.
      assert.equal((await deleteUser(alice.id, { message: message('accountDeleted') })).outcome, 'deleted');
      const farewell = await onlyMessage('accountDeleted');
      assert.deepEqual([farewell.userId, farewell.username, farewell.email], [alice.id, 'Alice', 'Alice@Example.com']);
      assert.equal((await suite.store.outbox.list()).length, 7);
      assert.ok((await suite.store.outbox.list()).every((entry) => entry.userId === alice.id));
    });

    it('outbox.add copies the recipient it is given: a link to a new address goes there, under the account', async () => {
      const { user } = await registered('alice');
      const link = message('emailChange');
      await transaction((tx) => tx.outbox.add(link, { id: user.id, username: 'Alice', email: 'New@Example.net' }));
      const [queued] = await suite.store.outbox.list();
      assert.deepEqual(
        [queued?.id, queued?.userId, queued?.username, queued?.email, queued?.hasToken],
        [link.id, user.id, 'Alice', 'New@Example.net', true],
      );
      assert.equal((await suite.store.users.findById(user.id))?.email, user.email, 'the account is untouched');
    });

    it('no change, no message', async () => {
      const alice = await registered('alice');
      const clash = newUser('mallory', { usernameKey: alice.user.usernameKey });
      const refused = await createUser(clash, token(clash.id, 'verify_email', HOUR_LATER, 'v'), {
        link: message('verification'),
        ownerNotice: message('registrationAttempt'),
      });
      assert.deepEqual(refused, { ok: false, conflict: 'username' });
      assert.equal(await withMessage((tx) => tx.users.confirmAddress('unknown', T0), message('emailVerified')), null);
      assert.equal(
        await withMessage((tx) => tx.passwords.reset('unknown', 'hash', T0), message('passwordChanged')),
        null,
      );
      assert.equal(
        await withMessage((tx) => tx.passwords.change(alice.user.id, 'stale', 'hash', T0), message('passwordChanged')),
        null,
      );
      assert.deepEqual(await deleteUser('no-such-id', { message: message('accountDeleted') }), {
        outcome: 'unknown_user',
      });
      assert.deepEqual(await suite.store.outbox.list(), []);
    });

    it('a message that cannot be stored undoes its account change, whichever the change', async () => {
      // Would fail for a store that committed each write as it came instead of the transaction as a whole.
      const { user, verificationHash } = await registered('alice');
      await sessionFor(user.id, 'alice');
      const resetHash = await resetTokenFor(user.id, 'alice');
      const taken = message('registrationAttempt');
      assert.ok(await enqueue(user.id, taken));
      const clashing = (kind: OutboxKind) => ({ ...message(kind), id: taken.id });

      const bob = newUser('bob');
      await assert.rejects(
        createUser(bob, token(bob.id, 'verify_email', HOUR_LATER, 'verify-bob'), { link: clashing('verification') }),
      );
      assert.equal(await suite.store.users.findById(bob.id), null, 'users.create undone');
      await assert.rejects(
        replaceToken(token(user.id, 'reset_password', HOUR_LATER, 'reset-2'), clashing('passwordReset')),
      );
      assert.equal(await suite.store.tokens.findUser('reset-2', 'reset_password', T0), null, 'tokens.replace undone');
      assert.ok(
        await suite.store.tokens.findUser(resetHash, 'reset_password', T0),
        'the older token was not superseded',
      );
      await assert.rejects(
        withMessage((tx) => tx.users.confirmAddress(verificationHash, T0), clashing('emailVerified')),
      );
      assert.equal((await suite.store.users.findById(user.id))?.verified, false, 'users.confirmAddress undone');
      await assert.rejects(
        withMessage((tx) => tx.passwords.reset(resetHash, 'hash-2', T0), clashing('passwordChanged')),
      );
      await assert.rejects(
        withMessage((tx) => tx.passwords.change(user.id, passwordOf(user), 'hash-3', T0), clashing('passwordChanged')),
      );
      await assert.rejects(deleteUser(user.id, { message: clashing('accountDeleted') }));

      assert.deepEqual(await suite.store.users.findById(user.id), user, 'the user is as it was');
      assert.ok(await suite.store.sessions.findWithUser('session-alice'), 'the session survived');
      assert.ok(await suite.store.tokens.findUser(resetHash, 'reset_password', T0), 'the reset token was not spent');
      assert.ok(
        await transaction((tx) => tx.users.confirmAddress(verificationHash, T0)),
        'the verification token was not spent',
      );
      assert.deepEqual(
        (await suite.store.outbox.list()).map((entry) => entry.id),
        [taken.id],
      );
    });

    it('refuses a message of a kind this release does not know, undoing its change', async () => {
      // The database no longer constrains the kind (2026-11-30-kinds-checked-in-code): the store checks it.
      const { user, verificationHash } = await registered('alice');
      const unknown = { ...message('emailVerified'), kind: 'noSuchKind' as OutboxKind };
      await assert.rejects(
        withMessage((tx) => tx.users.confirmAddress(verificationHash, T0), unknown),
        /unknown outbox/,
      );
      assert.equal((await suite.store.users.findById(user.id))?.verified, false, 'users.confirmAddress undone');
      assert.deepEqual(await suite.store.outbox.list(), []);
    });

    it('claims due messages oldest first, under a lease, counting the attempt', async () => {
      const { user } = await registered('alice');
      const first = message('verification', {
        createdAt: new Date(T0.getTime() - 2000),
        sealedToken: 'sealed-first',
      });
      const second = message('emailVerified', { createdAt: new Date(T0.getTime() - 1000) });
      const later = message('passwordChanged', { createdAt: new Date(T0.getTime() + 1000) });
      for (const queued of [later, second, first]) assert.ok(await enqueue(user.id, queued));

      const lease = new Date(T0.getTime() + 60_000);
      const claimed = await suite.store.outbox.claimDue(T0, lease, 10);
      assert.deepEqual(
        claimed.map(({ claimId: _claimId, ...rest }) => rest),
        [
          {
            id: first.id,
            kind: 'verification',
            userId: user.id,
            username: user.username,
            email: user.email,
            sealedToken: 'sealed-first',
            attempts: 1,
            giveUpAt: DAY_LATER,
            createdAt: first.createdAt,
          },
          {
            id: second.id,
            kind: 'emailVerified',
            userId: user.id,
            username: user.username,
            email: user.email,
            sealedToken: null,
            attempts: 1,
            giveUpAt: DAY_LATER,
            createdAt: second.createdAt,
          },
        ],
      );
      assert.ok(claimed.every((entry) => typeof entry.claimId === 'string' && entry.claimId.length > 0));
      const listed = (await suite.store.outbox.list()).find((entry) => entry.id === first.id);
      assert.deepEqual([listed?.claimed, listed?.nextAttemptAt, listed?.attempts], [true, lease, 1]);

      const at = (ms: number) => new Date(T0.getTime() + ms);
      assert.deepEqual(
        await suite.store.outbox.claimDue(at(999), lease, 10),
        [],
        'held ones are not due; the later one not yet',
      );
      const afterLater = await suite.store.outbox.claimDue(at(1000), lease, 10);
      assert.deepEqual(
        afterLater.map((entry) => entry.id),
        [later.id],
        'the later message, once due',
      );
      assert.deepEqual(
        await suite.store.outbox.claimDue(new Date(lease.getTime() - 1), lease, 10),
        [],
        'nothing while leased',
      );

      // A worker that died holding its claim: once the lease runs out, the message is claimed again.
      const again = await suite.store.outbox.claimDue(lease, new Date(lease.getTime() + 60_000), 1);
      assert.deepEqual(
        again.map((entry) => [entry.id, entry.attempts]),
        [[first.id, 2]],
      );
      assert.notEqual(again[0].claimId, claimed[0].claimId);
      assert.equal(
        await suite.store.outbox.markRetry(first.id, claimed[0].claimId, DAY_LATER, 'Error', lease),
        false,
        'stale claim',
      );
      assert.equal(
        await suite.store.outbox.markFailed(first.id, claimed[0].claimId, 'Error', lease),
        false,
        'stale claim',
      );
      assert.equal(
        await suite.store.outbox.markRetry(first.id, again[0].claimId, DAY_LATER, 'Error:ESOCKET', lease),
        true,
      );
    });

    it('records outcomes: sent and failed erase the sealed token; a retry waits, unclaimed, with the code', async () => {
      const { user } = await registered('alice');
      const [toSend, toRetry, toFail] = [message('verification'), message('passwordReset'), message('verification')];
      for (const queued of [toSend, toRetry, toFail]) await enqueue(user.id, queued);
      const claims = new Map((await suite.store.outbox.claimDue(T0, HOUR_LATER, 10)).map((c) => [c.id, c.claimId]));
      const later = new Date(T0.getTime() + 5000);

      assert.equal(await suite.store.outbox.markSent(toSend.id, later), true);
      assert.equal(await suite.store.outbox.markSent(toSend.id, later), false, 'not pending any more');
      assert.equal(
        await suite.store.outbox.markRetry(toRetry.id, claims.get(toRetry.id)!, HOUR_LATER, 'Error:ETIMEDOUT', later),
        true,
      );
      assert.equal(
        await suite.store.outbox.markFailed(
          toFail.id,
          claims.get(toFail.id)!,
          'EmailDeliveryError:EENVELOPE:550',
          later,
        ),
        true,
      );
      assert.equal(await suite.store.outbox.markFailed(toFail.id, claims.get(toFail.id)!, 'again', later), false);

      const byId = new Map((await suite.store.outbox.list()).map((entry) => [entry.id, entry]));
      assert.deepEqual(pick(byId.get(toSend.id)!), ['sent', false, false, later, null, null]);
      assert.deepEqual(pick(byId.get(toRetry.id)!), ['pending', true, false, null, 'Error:ETIMEDOUT', HOUR_LATER]);
      assert.deepEqual(pick(byId.get(toFail.id)!), [
        'failed',
        false,
        false,
        null,
        'EmailDeliveryError:EENVELOPE:550',
        null,
      ]);
      // The retried message is due again at its time, with a new claim and a second attempt.
      const retried = await suite.store.outbox.claimDue(HOUR_LATER, DAY_LATER, 10);
      assert.deepEqual(
        retried.map((entry) => [entry.id, entry.attempts, entry.sealedToken]),
        [[toRetry.id, 2, toRetry.sealedToken]],
      );
    });

    it('records a send whoever holds the claim: a delivery is a fact', async () => {
      const { user } = await registered('alice');
      const queued = message('emailVerified');
      await enqueue(user.id, queued);
      const [first] = await suite.store.outbox.claimDue(T0, HOUR_LATER, 1);
      const [second] = await suite.store.outbox.claimDue(HOUR_LATER, DAY_LATER, 1);
      assert.equal(await suite.store.outbox.markSent(queued.id, HOUR_LATER), true);
      assert.equal(
        await suite.store.outbox.markRetry(queued.id, second.claimId, DAY_LATER, 'Error', HOUR_LATER),
        false,
      );
      assert.equal((await suite.store.outbox.list())[0].status, 'sent');
      assert.ok(first.claimId !== second.claimId);
    });

    it('lists newest first, by status, up to a limit', async () => {
      const { user } = await registered('alice');
      const messages = [0, 1, 2, 3].map((i) =>
        message('emailVerified', { createdAt: new Date(T0.getTime() + i * 1000) }),
      );
      for (const queued of messages) await enqueue(user.id, queued);
      await suite.store.outbox.markSent(messages[1].id, T0);
      assert.deepEqual(
        (await suite.store.outbox.list()).map((entry) => entry.id),
        messages.map((m) => m.id).reverse(),
      );
      assert.deepEqual(
        (await suite.store.outbox.list({ status: 'sent' })).map((entry) => entry.id),
        [messages[1].id],
      );
      assert.deepEqual(
        (await suite.store.outbox.list({ status: 'pending', limit: 2 })).map((entry) => entry.id),
        [messages[3].id, messages[2].id],
      );
      assert.deepEqual(await suite.store.outbox.list({ status: 'failed' }), []);
    });

    it('retries a failed notice, never a failed link, and hurries a waiting pending message', async () => {
      const { user } = await registered('alice');
      const [notice, link, other, waiting] = [
        message('passwordChanged'),
        message('passwordReset'),
        message('accountDeleted'),
        message('emailVerified'),
      ];
      for (const queued of [notice, link, other]) await enqueue(user.id, queued);
      for (const claim of await suite.store.outbox.claimDue(T0, HOUR_LATER, 10)) {
        await suite.store.outbox.markFailed(claim.id, claim.claimId, 'Error', T0);
      }
      await enqueue(user.id, waiting);
      const [held] = await suite.store.outbox.claimDue(T0, HOUR_LATER, 1);
      await suite.store.outbox.markRetry(held.id, held.claimId, DAY_LATER, 'Error', T0);
      const now = new Date(T0.getTime() + 1000);
      const giveUp = new Date(now.getTime() + HOUR);

      assert.equal(await suite.store.outbox.retry({ id: link.id }, now, giveUp), 0, 'its token is gone');
      assert.equal(await suite.store.outbox.retry({ id: notice.id }, now, giveUp), 1);
      assert.equal(await suite.store.outbox.retry({ status: 'failed' }, now, giveUp), 1, 'the other notice only');
      assert.equal(await suite.store.outbox.retry({ id: waiting.id }, now, giveUp), 1);
      assert.equal(await suite.store.outbox.retry({ id: 'no-such-id' }, now, giveUp), 0);

      const byId = new Map((await suite.store.outbox.list()).map((entry) => [entry.id, entry]));
      for (const revived of [notice, other]) {
        const entry = byId.get(revived.id)!;
        assert.deepEqual(
          [entry.status, entry.attempts, entry.nextAttemptAt, entry.giveUpAt, entry.claimed],
          ['pending', 0, now, giveUp, false],
        );
      }
      assert.equal(byId.get(link.id)!.status, 'failed');
      assert.deepEqual([byId.get(waiting.id)!.nextAttemptAt, byId.get(waiting.id)!.attempts], [now, 1]);

      // A message a worker holds right now is left alone.
      const [claimed] = await suite.store.outbox.claimDue(now, HOUR_LATER, 1);
      assert.equal(await suite.store.outbox.retry({ id: claimed.id }, now, giveUp), 0);
    });

    it('a new link supersedes the pending links of its kind to the same user, except one being sent', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      const [held, waiting, notice, bobs] = [
        message('passwordReset'),
        message('passwordReset'),
        message('passwordChanged'),
        message('passwordReset'),
      ];
      await replaceToken(token(alice.user.id, 'reset_password', HOUR_LATER, 'reset-1'), held);
      const [claim] = await suite.store.outbox.claimDue(T0, HOUR_LATER, 1);
      assert.equal(claim.id, held.id);
      await replaceToken(token(alice.user.id, 'reset_password', HOUR_LATER, 'reset-2'), waiting);
      await enqueue(alice.user.id, notice);
      await replaceToken(token(bob.user.id, 'reset_password', HOUR_LATER, 'reset-bob'), bobs);
      const newest = message('passwordReset', { createdAt: new Date(T0.getTime() + 1000) });
      await replaceToken(token(alice.user.id, 'reset_password', HOUR_LATER, 'reset-3'), newest);

      const byId = new Map((await suite.store.outbox.list()).map((entry) => [entry.id, entry]));
      assert.deepEqual(
        [byId.get(waiting.id)!.status, byId.get(waiting.id)!.lastError, byId.get(waiting.id)!.hasToken],
        ['failed', 'SUPERSEDED', false],
      );
      for (const untouched of [held, notice, bobs, newest]) assert.equal(byId.get(untouched.id)!.status, 'pending');
    });

    it('the link of a change of address that logout-all dropped is never claimed; the notices still are', async () => {
      const alice = await registered('alice');
      const verifiedAlice = await transaction((tx) => tx.users.confirmAddress(alice.verificationHash, T0));
      assert.ok(verifiedAlice);
      const session = await sessionFor(alice.user.id, 'alice');
      const [link, notice] = [message('emailChange'), message('emailChangeRequested')];
      const change = {
        tokenHash: 'change-alice',
        userId: alice.user.id,
        newEmail: 'moved@example.net',
        newEmailKey: 'moved@example.net',
        createdAt: new Date(T0),
        expiresAt: new Date(HOUR_LATER),
        endOtherSessions: true,
        keepSessionId: session.id,
      };
      const requested = await requestEmailChange(change, { link, requestedNotice: notice }, session.tokenHash);
      assert.ok(requested.ok);
      assert.equal(await transaction((tx) => tx.sessions.deleteAll(alice.user.id, T0)), 1);

      const claimed = await suite.store.outbox.claimDue(HOUR_LATER, DAY_LATER, 100);
      assert.deepEqual(
        claimed.map((one) => one.id),
        [notice.id],
      );
      assert.deepEqual(await suite.store.outbox.retry({ id: link.id }, HOUR_LATER, DAY_LATER), 0, 'nor retried');
    });

    it('deleteExpired removes sent and failed messages last changed by the cutoff, never pending ones', async () => {
      const { user } = await registered('alice');
      const [oldSent, oldFailed, recentSent, pending] = [0, 1, 2, 3].map(() => message('emailVerified'));
      for (const queued of [oldSent, oldFailed, recentSent, pending]) await enqueue(user.id, queued);
      const claims = new Map((await suite.store.outbox.claimDue(T0, T0, 10)).map((c) => [c.id, c.claimId]));
      await suite.store.outbox.markSent(oldSent.id, T0);
      await suite.store.outbox.markFailed(oldFailed.id, claims.get(oldFailed.id)!, 'Error', T0);
      await suite.store.outbox.markSent(recentSent.id, HOUR_LATER);

      const cutoffs = { now: T0, sessionIdleBefore: T0 };
      assert.equal(await suite.store.deleteExpired(cutoffs), 0, 'without a cutoff the outbox is left alone');
      assert.equal(await suite.store.deleteExpired({ ...cutoffs, outboxChangedBefore: T0 }), 2);
      assert.deepEqual(
        (await suite.store.outbox.list()).map((entry) => entry.id).sort(),
        [recentSent.id, pending.id].sort(),
      );
      assert.equal(
        await suite.store.deleteExpired({ ...cutoffs, outboxChangedBefore: DAY_LATER }),
        1,
        'pending messages stay',
      );
    });

    it('concurrent claims never hand out one message twice', async () => {
      const { user } = await registered('alice');
      const queued = Array.from({ length: 24 }, () => message('emailVerified'));
      for (const m of queued) await enqueue(user.id, m);
      const batches = fulfilled(
        await Promise.allSettled(Array.from({ length: 8 }, () => suite.store.outbox.claimDue(T0, HOUR_LATER, 5))),
      );
      const claimed = batches.flat().map((entry) => entry.id);
      assert.equal(new Set(claimed).size, claimed.length, 'a message was claimed twice');
      assert.ok(
        batches.every((batch) => batch.length <= 5),
        `a claim took more than its limit: ${batches.map((batch) => batch.length)}`,
      );
      const rest = await suite.store.outbox.claimDue(T0, HOUR_LATER, 100);
      assert.deepEqual([...claimed, ...rest.map((entry) => entry.id)].sort(), queued.map((m) => m.id).sort());
    });
  });
}
