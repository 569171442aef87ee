import assert from 'node:assert/strict';
import { accountView } from '../../../services/types';
import type { UserStoreTransaction } from '../../../services/user-store';
import { describe, it, HOUR, T0, DAY_LATER, token, type ConformanceSuite } from '../support';

export function describeSessions(suite: ConformanceSuite): void {
  const { registered, sessionFor } = suite;
  const write = <T>(work: (tx: UserStoreTransaction) => Promise<T>): Promise<T> => suite.store.transaction(work);
  describe('sessions', () => {
    it('sessions.findWithUser returns the session with its user, or null', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'alice', { lastSeenAt: new Date(T0.getTime() + 5) });

      assert.deepEqual(await suite.store.sessions.findWithUser(session.tokenHash), { session, user });
      assert.equal(await suite.store.sessions.findWithUser('unknown'), null);
    });

    it('sessions.findWithUser returns expired sessions too: expiry is judged by the caller', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'old', { expiresAt: new Date(T0.getTime() - 1) });
      assert.deepEqual((await suite.store.sessions.findWithUser(session.tokenHash))?.session, session);
    });

    it('sessions.check reads what a request check needs, the user as the host sees it, or null', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'alice', {
        lastSeenAt: new Date(T0.getTime() + 5),
        methods: ['pwd', 'otp', 'mfa'],
      });
      const check = await suite.store.sessions.check(session.tokenHash);

      assert.deepEqual(check, {
        user: accountView(user),
        disabled: false,
        expiresAt: session.expiresAt,
        lastSeenAt: session.lastSeenAt,
        methods: ['pwd', 'otp', 'mfa'],
      });
      // Nothing more than the host's view of the user: no hash, no keys.
      assert.deepEqual(Object.keys(check!.user).sort(), Object.keys(accountView(user)).sort());
      assert.equal(await suite.store.sessions.check('unknown'), null);
    });

    it('sessions.check sees a session end and the idle window move at once', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'alice');
      const later = new Date(T0.getTime() + 3_600_000);
      await suite.store.sessions.touch(session.tokenHash, later);
      assert.deepEqual((await suite.store.sessions.check(session.tokenHash))?.lastSeenAt, later);
      assert.equal(await write((tx) => tx.sessions.delete(session.tokenHash)), true);
      assert.equal(await suite.store.sessions.check(session.tokenHash), null);
    });

    it('sessions.touch moves lastSeenAt only, and ignores an unknown session', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'alice');
      const later = new Date(T0.getTime() + 3_600_000);

      await suite.store.sessions.touch(session.tokenHash, later);
      await suite.store.sessions.touch('unknown', later);
      const touched = await suite.store.sessions.findWithUser(session.tokenHash);
      assert.deepEqual(touched?.session, { ...session, lastSeenAt: later });
    });

    it('sessions.delete removes one session; deleteAll every session of one user only, counted', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await sessionFor(alice.user.id, 'alice-1');
      await sessionFor(alice.user.id, 'alice-2');
      await sessionFor(alice.user.id, 'alice-3');
      await sessionFor(bob.user.id, 'bob');

      assert.equal(await write((tx) => tx.sessions.delete('session-alice-1')), true);
      assert.equal(await write((tx) => tx.sessions.delete('unknown')), false);
      assert.equal(await suite.store.sessions.findWithUser('session-alice-1'), null);
      assert.ok(await suite.store.sessions.findWithUser('session-alice-2'));

      assert.equal(await write((tx) => tx.sessions.deleteAll(alice.user.id, T0)), 2);
      assert.equal(await write((tx) => tx.sessions.deleteAll('no-such-user', T0)), null, 'no such user');
      assert.equal(await suite.store.sessions.findWithUser('session-alice-2'), null);
      assert.equal(await suite.store.sessions.findWithUser('session-alice-3'), null);
      assert.ok(await suite.store.sessions.findWithUser('session-bob'));
      assert.ok(await suite.store.users.findById(alice.user.id), 'the user stays');
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
      const reset = token(user.id, 'reset_password', new Date(now.getTime() + 1), 'reset-live');
      assert.ok(await write((tx) => tx.tokens.replace(reset, { kind: 'passwordReset', at: T0 })));
      const bob = await registered('bob'); // its verification token expires an hour after T0, long before `now`

      assert.equal(await suite.store.deleteExpired({ now, sessionIdleBefore: idleCutoff }), 4);
      assert.equal(await suite.store.sessions.findWithUser('session-absolute'), null);
      assert.equal(await suite.store.sessions.findWithUser('session-idle'), null);
      assert.ok(await suite.store.sessions.findWithUser('session-live'));
      assert.equal(
        await suite.store.tokens.findUser(verificationHash, 'verify_email', T0),
        null,
        'expired token removed',
      );
      assert.equal(await suite.store.tokens.findUser(bob.verificationHash, 'verify_email', T0), null);
      assert.ok(await suite.store.tokens.findUser('reset-live', 'reset_password', now));
      assert.equal(await suite.store.deleteExpired({ now, sessionIdleBefore: idleCutoff }), 0);
    });
  });
}
