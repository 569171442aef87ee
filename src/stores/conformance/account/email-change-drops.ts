import assert from 'node:assert/strict';
import { SUPERSEDED_ERROR, type NewOutboxMessage, type OutboxEntry } from '../../../services/outbox-message';
import type { StoredEmailChange, StoredUser } from '../../../services/user-store';
import { describe, it, T0, HOUR_LATER, auditEvent, message, token, fulfilled, type ConformanceSuite } from '../support';

/**
 * What ends a pending change of address besides its confirmation, and the link mailed for it: a change dropped or
 * superseded leaves nothing to confirm, and its link, unsent, is never sent (a dead link is never mailed).
 */
export function describeEmailChangeDrops(suite: ConformanceSuite): void {
  const { sessionFor, resetTokenFor, verifiedWithSession: verified } = suite;
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
    const result = await suite.store.requestEmailChange(change, { link, requestedNotice: notice }, who.sessionHash);
    assert.deepEqual(result, { ok: true, addressOwned: false });
    return { change, link, notice };
  }

  async function entry(sent: NewOutboxMessage): Promise<OutboxEntry | undefined> {
    return (await suite.store.listMessages()).find((candidate) => candidate.id === sent.id);
  }

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
    assert.equal(await suite.store.findEmailChange(change.tokenHash, T0), null, what);
    assert.deepEqual(await suite.store.confirmEmailChange(change.tokenHash, at(30)), { outcome: 'invalid' }, what);
  }

  describe('email change: dropped changes and their links', () => {
    it('deleteUserSessions (logout-all) drops the pending change and fails its unsent link, in one go', async () => {
      const alice = await verified('alice');
      await sessionFor(alice.user.id, 'alice-elsewhere');
      const bob = await verified('bob');
      const hers = await asked(alice, 'hers');
      const his = await asked(bob, 'his');

      const audit = auditEvent('logout_all', { at: at(3), actorId: alice.user.id, subjectId: alice.user.id });
      assert.equal(await suite.store.deleteUserSessions(alice.user.id, audit), 2);

      await assertGone(hers.change, 'nothing is left to confirm');
      await assertDead(hers.link, at(3), 'the link of the dropped change is never sent');
      assert.equal((await entry(hers.notice))?.status, 'pending', 'the notice to the current address still goes');
      assert.ok(await suite.store.findEmailChange(his.change.tokenHash, T0), 'other users keep theirs');
      assert.equal((await entry(his.link))?.status, 'pending');
      const [logged] = await suite.store.listAuditEvents({ userId: alice.user.id, types: ['logout_all'], limit: 5 });
      assert.deepEqual(logged?.details, { sessions_ended: 2 });
    });

    it('deleteUserSessions leaves a link a worker holds right now to finish', async () => {
      const alice = await verified('alice');
      const hers = await asked(alice, 'held');
      const claimed = await suite.store.claimDueMessages(at(1), at(10), 100);
      assert.ok(claimed.some((one) => one.id === hers.link.id));

      await suite.store.deleteUserSessions(alice.user.id, auditEvent('logout_all', { at: at(2) }));
      await assertGone(hers.change, 'the change goes all the same');
      const held = await entry(hers.link);
      assert.deepEqual([held?.status, held?.claimed], ['pending', true]);
      assert.deepEqual(held?.giveUpAt, at(2), 'but it is never tried again: its give-up time is the drop');
      const [claim] = (await suite.store.claimDueMessages(at(1), at(10), 100)).filter((one) => one.id === hers.link.id);
      assert.equal(claim, undefined);
      // A failed attempt puts it back; the next claim hands it over past its give-up time, and the worker fails it.
      const retried = await suite.store.claimDueMessages(at(11), at(20), 100);
      const again = retried.find((one) => one.id === hers.link.id);
      assert.ok(again);
      assert.ok(again.giveUpAt.getTime() <= at(11).getTime());
    });

    it('deleteOtherSessions drops a change asked for from an ended session, and keeps one the kept session asked for', async () => {
      const alice = await verified('alice');
      const elsewhere = await sessionFor(alice.user.id, 'alice-elsewhere');
      const fromElsewhere = await asked(
        { user: alice.user, sessionHash: elsewhere.tokenHash, sessionId: elsewhere.id },
        'elsewhere',
      );
      const audit = auditEvent('other_sessions_ended', { at: at(4) });
      assert.equal(await suite.store.deleteOtherSessions(alice.user.id, alice.sessionHash, audit), 1);
      await assertGone(fromElsewhere.change, 'asked for from a session that ended');
      await assertDead(fromElsewhere.link, at(4), 'its link is never sent');

      await sessionFor(alice.user.id, 'alice-third');
      const fromHere = await asked(alice, 'here');
      assert.equal(
        await suite.store.deleteOtherSessions(alice.user.id, alice.sessionHash, auditEvent('other_sessions_ended')),
        1,
      );
      assert.ok(await suite.store.findEmailChange(fromHere.change.tokenHash, T0), 'asked for from the kept session');
      assert.equal((await entry(fromHere.link))?.status, 'pending');
    });

    const drops: [string, (user: StoredUser, sessionHash: string) => Promise<unknown>][] = [
      [
        'resetPassword',
        async (user) => suite.store.resetPassword(await resetTokenFor(user.id, 'r'), 'new-hash', at(5)),
      ],
      ['changePassword', (user) => suite.store.changePassword(user.id, user.passwordHash, 'new-hash', at(5))],
      ['deleteUser', (user) => suite.store.deleteUser(user.id, message('accountDeleted', { createdAt: at(5) }))],
      [
        'deleteUserAsAdmin',
        (user) => suite.store.deleteUserAsAdmin(user.id, undefined, auditEvent('admin.user_deleted', { at: at(5) })),
      ],
      ['disableUser', (user) => suite.store.disableUser(user.id, at(5))],
    ];
    for (const [what, drop] of drops) {
      it(`${what} drops the pending change and fails its unsent link`, async () => {
        const alice = await verified('alice');
        const hers = await asked(alice, 'hers');
        assert.ok(await drop(alice.user, alice.sessionHash));
        await assertGone(hers.change, what);
        await assertDead(hers.link, at(5), what);
      });
    }

    it('deleteUser fails every unsent link of the account, and still queues its notice', async () => {
      const alice = await verified('alice');
      const reset = message('passwordReset');
      await suite.store.replaceToken(token(alice.user.id, 'reset_password', HOUR_LATER, 'reset-alice'), reset);
      const hers = await asked(alice, 'hers');
      const goodbye = message('accountDeleted', { createdAt: at(6) });
      assert.equal(
        await suite.store.deleteUser(alice.user.id, goodbye, undefined, auditEvent('account_deleted', { at: at(7) })),
        true,
      );
      await assertDead(reset, at(7), 'the reset link');
      await assertDead(hers.link, at(7), 'the change link');
      assert.equal((await entry(goodbye))?.status, 'pending', 'the notice of the deletion goes');
      assert.equal((await entry(hers.notice))?.status, 'pending', 'notices carry no link and go');
    });

    it('a password change and a confirmed change of address fail the unsent reset links they end', async () => {
      const alice = await verified('alice');
      const reset = message('passwordReset');
      await suite.store.replaceToken(token(alice.user.id, 'reset_password', HOUR_LATER, 'reset-1'), reset);
      assert.equal(await suite.store.changePassword(alice.user.id, alice.user.passwordHash, 'new-hash', at(1)), true);
      await assertDead(reset, at(1), 'after a password change');

      const bob = await verified('bob');
      const bobsReset = message('passwordReset');
      await suite.store.replaceToken(token(bob.user.id, 'reset_password', HOUR_LATER, 'reset-2'), bobsReset);
      const his = await asked(bob, 'moved');
      assert.equal((await suite.store.confirmEmailChange(his.change.tokenHash, at(2))).outcome, 'changed');
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
            suite.store.requestEmailChange(change, { link }, alice.sessionHash),
            suite.store.deleteUserSessions(alice.user.id, auditEvent('logout_all', { at: at(1) })),
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
            suite.store.confirmEmailChange(hers.change.tokenHash, at(1)),
            suite.store.deleteUserSessions(alice.user.id, auditEvent('logout_all', { at: at(1) })),
            suite.store.deleteOtherSessions(alice.user.id, alice.sessionHash, auditEvent('other_sessions_ended')),
          ]),
        ) as [Awaited<ReturnType<typeof suite.store.confirmEmailChange>>, ...unknown[]];
        const email = (await suite.store.findUserById(alice.user.id))?.email;
        assert.equal(
          email,
          confirmed.outcome === 'changed' ? hers.change.newEmail : alice.user.email,
          `round ${round}: the address is as the confirmation answered`,
        );
        await assertGone(hers.change, `round ${round}`);
        assert.deepEqual(await suite.store.listSessions(alice.user.id), [], `round ${round}: every session ended`);
      }
    });
  });
}
