import assert from 'node:assert/strict';
import { SUPERSEDED_ERROR, type NewOutboxMessage } from '../../../services/outbox-message';
import type { EmailChangeResult, StoredEmailChange, StoredUser } from '../../../services/user-store';
import {
  describe,
  it,
  T0,
  HOUR_LATER,
  auditEvent,
  message,
  token,
  fulfilled,
  type AuditInput,
  type ConformanceSuite,
  passwordOf,
} from '../support';

/**
 * What ends a pending change of address besides its confirmation, and the link mailed for it: a change dropped or
 * superseded leaves nothing to confirm, and its link, unsent, is never sent (a dead link is never mailed).
 */
export function describeEmailChangeDrops(suite: ConformanceSuite): void {
  const { sessionFor, resetTokenFor, verifiedWithSession: verified, transaction, entry } = suite;
  const { requestEmailChange, confirmEmailChange, replaceToken, deleteUser } = suite;
  const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

  /** Asks for a change from the session, with its link and the notice to the current address; both queued. */
  async function asked(
    who: { user: StoredUser; sessionHash: string; sessionId: string },
    label: string,
  ): Promise<{ change: StoredEmailChange; link: NewOutboxMessage; notice: NewOutboxMessage }> {
    const change: StoredEmailChange = {
      tokenHash: `change-${label}`,
      userId: who.user.id,
      newEmail: `${label}@new.example`,
      newEmailKey: `${label}@new.example`,
      createdAt: new Date(T0),
      expiresAt: new Date(HOUR_LATER),
      endOtherSessions: true,
      keepSessionId: who.sessionId,
    };
    const link = message('emailChange');
    const notice = message('emailChangeRequested');
    const result = await requestEmailChange(change, { link, requestedNotice: notice }, who.sessionHash);
    assert.deepEqual([result.ok, result.ok && result.user.id, result.ok && result.owner], [true, who.user.id, null]);
    return { change, link, notice };
  }

  /** Logout-all as the core does it: the sessions end, and the event records how many, in one transaction. */
  const logoutAll = (userId: string, audit: AuditInput): Promise<number | null> =>
    transaction(async (tx) => {
      const ended = await tx.sessions.deleteAll(userId, audit.at);
      if (ended !== null) await tx.audit.add({ ...audit, details: { ...audit.details, sessions_ended: ended } });
      return ended;
    });

  /** Ending the other sessions, as the core does it (see `logoutAll`). */
  const endOthers = (userId: string, keepTokenHash: string, audit: AuditInput): Promise<number | null> =>
    transaction(async (tx) => {
      const ended = await tx.sessions.deleteOthers(userId, keepTokenHash, audit.at);
      if (ended !== null) await tx.audit.add({ ...audit, details: { ...audit.details, sessions_ended: ended } });
      return ended;
    });

  /** The message failed unsent, its sealed token erased, at `when`. */
  async function assertDead(sent: NewOutboxMessage, when: Date, what: string): Promise<void> {
    const found = await entry(sent);
    assert.deepEqual(
      [found?.status, found?.hasToken, found?.lastError, found?.updatedAt],
      ['failed', false, SUPERSEDED_ERROR, when],
      what,
    );
  }

  async function assertGone(change: StoredEmailChange, what: string): Promise<void> {
    assert.equal(await suite.store.emailChanges.find(change.tokenHash, T0), null, what);
    assert.deepEqual(await confirmEmailChange(change.tokenHash, at(30)), { outcome: 'invalid' }, what);
  }

  describe('email change: dropped changes and their links', () => {
    it('sessions.deleteAll (logout-all) drops the pending change and fails its unsent link, in one go', async () => {
      const alice = await verified('alice');
      await sessionFor(alice.user.id, 'alice-elsewhere');
      const bob = await verified('bob');
      const hers = await asked(alice, 'hers');
      const his = await asked(bob, 'his');

      const audit = auditEvent('logout_all', { at: at(3), actorId: alice.user.id, subjectId: alice.user.id });
      assert.equal(await logoutAll(alice.user.id, audit), 2);

      await assertGone(hers.change, 'nothing is left to confirm');
      await assertDead(hers.link, at(3), 'the link of the dropped change is never sent');
      assert.equal((await entry(hers.notice))?.status, 'pending', 'the notice to the current address still goes');
      assert.ok(await suite.store.emailChanges.find(his.change.tokenHash, T0), 'other users keep theirs');
      assert.equal((await entry(his.link))?.status, 'pending');
      const [logged] = await suite.store.audit.list({ userId: alice.user.id, types: ['logout_all'], limit: 5 });
      assert.deepEqual(logged?.details, { sessions_ended: 2 });
    });

    it('sessions.deleteAll leaves a link a worker holds right now to finish', async () => {
      const alice = await verified('alice');
      const hers = await asked(alice, 'held');
      const claimed = await suite.store.outbox.claimDue(at(1), at(10), 100);
      assert.ok(claimed.some((one) => one.id === hers.link.id));

      assert.equal(await logoutAll(alice.user.id, auditEvent('logout_all', { at: at(2) })), 1);
      await assertGone(hers.change, 'the change goes all the same');
      const held = await entry(hers.link);
      assert.deepEqual([held?.status, held?.claimed], ['pending', true]);
      assert.deepEqual(held?.giveUpAt, at(2), 'but it is never tried again: its give-up time is the drop');
      const [claim] = (await suite.store.outbox.claimDue(at(1), at(10), 100)).filter((one) => one.id === hers.link.id);
      assert.equal(claim, undefined);
      // A failed attempt puts it back; the next claim hands it over past its give-up time, and the worker fails it.
      const retried = await suite.store.outbox.claimDue(at(11), at(20), 100);
      const again = retried.find((one) => one.id === hers.link.id);
      assert.ok(again);
      assert.ok(again.giveUpAt.getTime() <= at(11).getTime());
    });

    it('sessions.deleteOthers drops a change asked for from an ended session, and keeps one the kept session asked for', async () => {
      const alice = await verified('alice');
      const elsewhere = await sessionFor(alice.user.id, 'alice-elsewhere');
      const fromElsewhere = await asked(
        { user: alice.user, sessionHash: elsewhere.tokenHash, sessionId: elsewhere.id },
        'elsewhere',
      );
      const audit = auditEvent('other_sessions_ended', { at: at(4) });
      assert.equal(await endOthers(alice.user.id, alice.sessionHash, audit), 1);
      await assertGone(fromElsewhere.change, 'asked for from a session that ended');
      await assertDead(fromElsewhere.link, at(4), 'its link is never sent');

      await sessionFor(alice.user.id, 'alice-third');
      const fromHere = await asked(alice, 'here');
      assert.equal(await endOthers(alice.user.id, alice.sessionHash, auditEvent('other_sessions_ended')), 1);
      assert.ok(await suite.store.emailChanges.find(fromHere.change.tokenHash, T0), 'asked for from the kept session');
      assert.equal((await entry(fromHere.link))?.status, 'pending');
    });

    /** Each change that ends the pending change of address at `at(5)`; true when it was made. */
    const drops: [string, (user: StoredUser) => Promise<boolean>][] = [
      [
        'passwords.reset',
        async (user) => {
          const resetHash = await resetTokenFor(user.id, 'r');
          return (await transaction((tx) => tx.passwords.reset(resetHash, 'new-hash', at(5)))) !== null;
        },
      ],
      [
        'passwords.change',
        async (user) =>
          (await transaction((tx) => tx.passwords.change(user.id, passwordOf(user), 'new-hash', at(5)))) !== null,
      ],
      [
        'users.delete (the account holder)',
        async (user) => {
          const goodbye = message('accountDeleted', { createdAt: at(5) });
          return (await deleteUser(user.id, { message: goodbye })).outcome === 'deleted';
        },
      ],
      [
        'users.delete (an administrator)',
        async (user) => {
          const audit = auditEvent('admin.user_deleted', { at: at(5) });
          return (await deleteUser(user.id, { audit })).outcome === 'deleted';
        },
      ],
      ['users.disable', async (user) => (await transaction((tx) => tx.users.disable(user.id, at(5)))) === 'ok'],
    ];
    for (const [what, drop] of drops) {
      it(`${what} drops the pending change and fails its unsent link`, async () => {
        const alice = await verified('alice');
        const hers = await asked(alice, 'hers');
        assert.equal(await drop(alice.user), true, what);
        await assertGone(hers.change, what);
        await assertDead(hers.link, at(5), what);
      });
    }

    it('users.delete fails every unsent link of the account, and still queues its notice', async () => {
      const alice = await verified('alice');
      const reset = message('passwordReset');
      assert.ok(await replaceToken(token(alice.user.id, 'reset_password', HOUR_LATER, 'reset-alice'), reset));
      const hers = await asked(alice, 'hers');
      const goodbye = message('accountDeleted', { createdAt: at(6) });
      const audit = auditEvent('account_deleted', { at: at(7), subjectId: alice.user.id });
      assert.equal((await deleteUser(alice.user.id, { at: at(7), message: goodbye, audit })).outcome, 'deleted');
      await assertDead(reset, at(7), 'the reset link');
      await assertDead(hers.link, at(7), 'the change link');
      assert.equal((await entry(goodbye))?.status, 'pending', 'the notice of the deletion goes');
      assert.equal((await entry(hers.notice))?.status, 'pending', 'notices carry no link and go');
    });

    it('a password change and a confirmed change of address fail the unsent reset links they end', async () => {
      const alice = await verified('alice');
      const reset = message('passwordReset');
      assert.ok(await replaceToken(token(alice.user.id, 'reset_password', HOUR_LATER, 'reset-1'), reset));
      assert.ok(
        await transaction((tx) => tx.passwords.change(alice.user.id, passwordOf(alice.user), 'new-hash', at(1))),
      );
      await assertDead(reset, at(1), 'after a password change');

      const bob = await verified('bob');
      const bobsReset = message('passwordReset');
      assert.ok(await replaceToken(token(bob.user.id, 'reset_password', HOUR_LATER, 'reset-2'), bobsReset));
      const his = await asked(bob, 'moved');
      assert.equal((await confirmEmailChange(his.change.tokenHash, at(2))).outcome, 'changed');
      await assertDead(bobsReset, at(2), 'it was addressed to the old address');
    });

    const ROUNDS = 5;

    it('logout-all racing a request for a change: no change is left waiting, nor an unsent link', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const alice = await verified(`alice${round}`);
        const change: StoredEmailChange = {
          tokenHash: `change-race-${round}`,
          userId: alice.user.id,
          newEmail: `race-${round}@new.example`,
          newEmailKey: `race-${round}@new.example`,
          createdAt: new Date(T0),
          expiresAt: new Date(HOUR_LATER),
          endOtherSessions: true,
          keepSessionId: alice.sessionId,
        };
        const link = message('emailChange');
        const [requested] = fulfilled(
          await Promise.allSettled([
            requestEmailChange(change, { link }, alice.sessionHash),
            logoutAll(alice.user.id, auditEvent('logout_all', { at: at(1), subjectId: alice.user.id })),
          ]),
        );
        await assertGone(change, `round ${round}`);
        const queued = await entry(link);
        if ((requested as { ok: boolean }).ok) await assertDead(link, at(1), `round ${round}: asked first, dropped`);
        else assert.equal(queued, undefined, `round ${round}: refused, nothing queued`);
      }
    });

    it('logout-all racing the confirmation of the change: the change is made or dropped, never both', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const alice = await verified(`alice${round}`);
        const hers = await asked(alice, `confirm-race-${round}`);
        const [confirmed] = fulfilled(
          await Promise.allSettled([
            confirmEmailChange(hers.change.tokenHash, at(1)),
            logoutAll(alice.user.id, auditEvent('logout_all', { at: at(1), subjectId: alice.user.id })),
            endOthers(alice.user.id, alice.sessionHash, auditEvent('other_sessions_ended')),
          ]),
        ) as [EmailChangeResult, ...unknown[]];
        const email = (await suite.store.users.findById(alice.user.id))?.email;
        assert.equal(
          email,
          confirmed.outcome === 'changed' ? hers.change.newEmail : alice.user.email,
          `round ${round}: the address is as the confirmation answered`,
        );
        await assertGone(hers.change, `round ${round}`);
        assert.deepEqual(await suite.store.sessions.list(alice.user.id), [], `round ${round}: every session ended`);
      }
    });
  });
}
