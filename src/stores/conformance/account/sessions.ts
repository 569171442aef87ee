import assert from 'node:assert/strict';
import { accountView } from '../../../services/types';
import { describe, it, HOUR, T0, DAY_LATER, token, type ConformanceSuite } from '../support';

export function describeSessions(suite: ConformanceSuite): void {
  const { registered, sessionFor } = suite;
  describe('sessions', () => {
    it('getSessionAndUser returns the session with its user, or null', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'alice', { lastSeenAt: new Date(T0.getTime() + 5) });

      assert.deepEqual(await suite.store.getSessionAndUser(session.tokenHash), { session, user });
      assert.equal(await suite.store.getSessionAndUser('unknown'), null);
    });

    it('getSessionAndUser returns expired sessions too: expiry is judged by the caller', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'old', { expiresAt: new Date(T0.getTime() - 1) });
      assert.deepEqual((await suite.store.getSessionAndUser(session.tokenHash))?.session, session);
    });

    it('checkSession reads what a request check needs, the user as the host sees it, or null', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'alice', {
        lastSeenAt: new Date(T0.getTime() + 5),
        secondFactor: true,
      });
      const check = await suite.store.checkSession(session.tokenHash);

      assert.deepEqual(check, {
        user: accountView(user),
        disabled: false,
        expiresAt: session.expiresAt,
        lastSeenAt: session.lastSeenAt,
        secondFactor: true,
      });
      // Nothing more than the host's view of the user: no hash, no keys.
      assert.deepEqual(Object.keys(check!.user).sort(), Object.keys(accountView(user)).sort());
      assert.equal(await suite.store.checkSession('unknown'), null);
    });

    it('checkSession sees a session end and the idle window move at once', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'alice');
      const later = new Date(T0.getTime() + 3_600_000);
      await suite.store.touchSession(session.tokenHash, later);
      assert.deepEqual((await suite.store.checkSession(session.tokenHash))?.lastSeenAt, later);
      await suite.store.deleteSession(session.tokenHash);
      assert.equal(await suite.store.checkSession(session.tokenHash), null);
    });

    it('touchSession moves lastSeenAt only, and ignores an unknown session', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'alice');
      const later = new Date(T0.getTime() + 3_600_000);

      await suite.store.touchSession(session.tokenHash, later);
      await suite.store.touchSession('unknown', later);
      const touched = await suite.store.getSessionAndUser(session.tokenHash);
      assert.deepEqual(touched?.session, { ...session, lastSeenAt: later });
    });

    it('deleteSession removes one session; deleteUserSessions every session of one user only', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await sessionFor(alice.user.id, 'alice-1');
      await sessionFor(alice.user.id, 'alice-2');
      await sessionFor(alice.user.id, 'alice-3');
      await sessionFor(bob.user.id, 'bob');

      await suite.store.deleteSession('session-alice-1');
      await suite.store.deleteSession('unknown');
      assert.equal(await suite.store.getSessionAndUser('session-alice-1'), null);
      assert.ok(await suite.store.getSessionAndUser('session-alice-2'));

      await suite.store.deleteUserSessions(alice.user.id);
      assert.equal(await suite.store.getSessionAndUser('session-alice-2'), null);
      assert.equal(await suite.store.getSessionAndUser('session-alice-3'), null);
      assert.ok(await suite.store.getSessionAndUser('session-bob'));
      assert.ok(await suite.store.findUserById(alice.user.id), 'the user stays');
    });

    it('deleteExpired removes sessions past either limit and expired tokens, and counts them', async () => {
      const { user, verificationHash } = await registered('alice');
      const now = new Date(T0.getTime() + 10 * HOUR);
      const idleCutoff = new Date(now.getTime() - 2 * HOUR);
      await sessionFor(user.id, 'absolute', { expiresAt: now, lastSeenAt: now });
      await sessionFor(user.id, 'idle', { expiresAt: DAY_LATER, lastSeenAt: idleCutoff });
      await sessionFor(user.id, 'live', {
        expiresAt: new Date(now.getTime() + 1),
        lastSeenAt: new Date(idleCutoff.getTime() + 1),
      });
      await suite.store.replaceToken(token(user.id, 'reset_password', new Date(now.getTime() + 1), 'reset-live'));
      const bob = await registered('bob'); // its verification token expires an hour after T0, long before `now`

      assert.equal(await suite.store.deleteExpired({ now, sessionIdleBefore: idleCutoff }), 4);
      assert.equal(await suite.store.getSessionAndUser('session-absolute'), null);
      assert.equal(await suite.store.getSessionAndUser('session-idle'), null);
      assert.ok(await suite.store.getSessionAndUser('session-live'));
      assert.equal(
        await suite.store.findUserByToken(verificationHash, 'verify_email', T0),
        null,
        'expired token removed',
      );
      assert.equal(await suite.store.findUserByToken(bob.verificationHash, 'verify_email', T0), null);
      assert.ok(await suite.store.findUserByToken('reset-live', 'reset_password', now));
      assert.equal(await suite.store.deleteExpired({ now, sessionIdleBefore: idleCutoff }), 0);
    });
  });
}
