import assert from 'node:assert/strict';
import type { UserStoreTransaction } from '../../../services/user-store';
import { describe, it, HOUR, T0, DAY_LATER, fulfilled, type ConformanceSuite, passwordOf } from '../support';

export function describeSessionDetails(suite: ConformanceSuite): void {
  const { registered, sessionFor, sessionRow } = suite;
  const write = <T>(work: (tx: UserStoreTransaction) => Promise<T>): Promise<T> => suite.store.transaction(work);
  describe('sessions a person can see and end', () => {
    const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

    it('keeps the public id, the authentication instant, the IP and the user agent of a session', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'alice', {
        id: '7d1f0c8e-5b8a-4c1e-9f39-0b7e6c1d2a3b',
        authenticatedAt: at(3),
        ip: '2001:db8::1',
        userAgent: `Mozilla/5.0 (X11; Linux x86_64) Ünïcödé ✓ ${'x'.repeat(450)}`,
      });
      const found = await suite.store.sessions.findWithUser(session.tokenHash);
      assert.deepEqual(found, { session, user });
      assert.deepEqual(await suite.store.sessions.list(user.id), [session]);
    });

    it('sessions.list lists the sessions of one user, expired ones too, newest first, then by id', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      await sessionFor(alice.user.id, 'old', { createdAt: at(1), id: 'id-c' });
      await sessionFor(alice.user.id, 'new-b', { createdAt: at(5), id: 'id-b' });
      await sessionFor(alice.user.id, 'expired', { createdAt: at(2), id: 'id-z', expiresAt: at(3) });
      await sessionFor(alice.user.id, 'new-a', { createdAt: at(5), id: 'id-a' });
      await sessionFor(alice.user.id, 'new-d', { createdAt: at(5), id: 'id-d' });
      await sessionFor(bob.user.id, 'bob', { createdAt: at(9) });

      const listed = await suite.store.sessions.list(alice.user.id);
      assert.deepEqual(
        listed.map((session) => session.tokenHash),
        ['session-new-d', 'session-new-b', 'session-new-a', 'session-expired', 'session-old'],
      );
      assert.deepEqual(
        listed[3],
        sessionRow(alice.user.id, 'expired', { createdAt: at(2), id: 'id-z', expiresAt: at(3) }),
      );
      assert.deepEqual(await suite.store.sessions.list('unknown-user'), []);

      listed[0].lastSeenAt.setTime(0);
      listed[0].ip = 'changed';
      assert.deepEqual(
        (await suite.store.sessions.list(alice.user.id))[0],
        sessionRow(alice.user.id, 'new-d', { createdAt: at(5), id: 'id-d' }),
        'the list is the caller’s own copy',
      );
    });

    it('sessions.deleteById ends only a session of that user, and says whether it did', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      const first = await sessionFor(alice.user.id, 'alice-1');
      const second = await sessionFor(alice.user.id, 'alice-2');
      const bobs = await sessionFor(bob.user.id, 'bob');

      assert.equal(await write((tx) => tx.sessions.deleteById(alice.user.id, bobs.id)), false, 'not alice’s');
      assert.ok(await suite.store.sessions.findWithUser(bobs.tokenHash), 'bob’s stays');
      assert.equal(await write((tx) => tx.sessions.deleteById(alice.user.id, 'no-such-id')), false);
      assert.equal(
        await write((tx) => tx.sessions.deleteById(alice.user.id, first.tokenHash)),
        false,
        'a hash is no id',
      );
      assert.equal(await write((tx) => tx.sessions.deleteById(alice.user.id, 'bad\u0000id')), false);

      assert.equal(await write((tx) => tx.sessions.deleteById(alice.user.id, first.id)), true);
      assert.equal(await suite.store.sessions.findWithUser(first.tokenHash), null);
      assert.ok(await suite.store.sessions.findWithUser(second.tokenHash), 'the other session stays');
      assert.equal(await write((tx) => tx.sessions.deleteById(alice.user.id, first.id)), false, 'already ended');
    });

    it('sessions.deleteOthers ends every session of the user but one, and counts them', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      const kept = await sessionFor(alice.user.id, 'kept');
      await sessionFor(alice.user.id, 'other-1');
      await sessionFor(alice.user.id, 'other-2', { expiresAt: at(1) });
      const bobs = await sessionFor(bob.user.id, 'bob');

      assert.equal(await write((tx) => tx.sessions.deleteOthers(alice.user.id, kept.tokenHash, T0)), 2);
      assert.deepEqual(await suite.store.sessions.list(alice.user.id), [kept]);
      assert.ok(await suite.store.sessions.findWithUser(bobs.tokenHash), 'other users keep theirs');
      assert.equal(await write((tx) => tx.sessions.deleteOthers(alice.user.id, kept.tokenHash, T0)), 0);
      assert.equal(
        await write((tx) => tx.sessions.deleteOthers(alice.user.id, bobs.tokenHash, T0)),
        1,
        'a session of someone else keeps nothing of alice’s',
      );
      assert.deepEqual(await suite.store.sessions.list(alice.user.id), []);
      assert.ok(await suite.store.sessions.findWithUser(bobs.tokenHash));
      assert.equal(await write((tx) => tx.sessions.deleteOthers('no-such-user', bobs.tokenHash, T0)), null);
    });

    it('sessions.markAuthenticated moves authenticatedAt only while the credential epoch is still the one verified', async () => {
      const alice = await registered('alice');
      const bob = await registered('bob');
      const session = await sessionFor(alice.user.id, 'alice');
      const bobs = await sessionFor(bob.user.id, 'bob');

      assert.equal(await write((tx) => tx.sessions.markAuthenticated(session.tokenHash, 1, at(5))), false);
      assert.equal(
        await write((tx) => tx.sessions.markAuthenticated('unknown', alice.user.credentialEpoch, at(5))),
        false,
      );
      assert.deepEqual(
        (await suite.store.sessions.findWithUser(session.tokenHash))?.session,
        session,
        'nothing changed',
      );

      assert.equal(
        await write((tx) => tx.sessions.markAuthenticated(session.tokenHash, alice.user.credentialEpoch, at(5))),
        true,
      );
      assert.deepEqual((await suite.store.sessions.findWithUser(session.tokenHash))?.session, {
        ...session,
        authenticatedAt: at(5),
      });
      assert.deepEqual((await suite.store.sessions.findWithUser(bobs.tokenHash))?.session, bobs, 'others untouched');

      assert.ok(await write((tx) => tx.passwords.change(alice.user.id, passwordOf(alice.user), 'new-hash', at(6))));
      assert.equal(
        await write((tx) => tx.sessions.markAuthenticated(session.tokenHash, alice.user.credentialEpoch, at(7))),
        false,
        'the session ended with the old password',
      );
    });

    it('deleteExpired and users.delete end sessions whatever their id', async () => {
      const { user } = await registered('alice');
      await sessionFor(user.id, 'dead', { expiresAt: at(1) });
      const live = await sessionFor(user.id, 'live', { expiresAt: DAY_LATER, lastSeenAt: at(50) });
      assert.equal(await suite.store.deleteExpired({ now: at(2), sessionIdleBefore: at(1) }), 1);
      assert.deepEqual(await suite.store.sessions.list(user.id), [live]);
      assert.equal(await write((tx) => tx.sessions.deleteById(user.id, 'id-of-session-dead')), false);
      // The id of an ended session may name a new one (ids are random in practice; a store must not keep it).
      await sessionFor(user.id, 'reborn', { id: 'id-of-session-dead' });
      assert.equal((await write((tx) => tx.users.delete(user.id, at(60)))).outcome, 'deleted');
      assert.deepEqual(await suite.store.sessions.list(user.id), []);
    });

    const ROUNDS = 5;
    const LOGINS = 8;
    it(`ending sessions by id and all but one, racing ${LOGINS} logins: none throws, and the counts add up`, async () => {
      const { user } = await registered('alice');
      for (let round = 0; round < ROUNDS; round++) {
        const kept = await sessionFor(user.id, `kept-${round}`);
        const target = await sessionFor(user.id, `target-${round}`);
        const logins = Array.from({ length: LOGINS }, (_, i) =>
          sessionRow(user.id, `login-${round}-${i}`, { createdAt: new Date(T0.getTime() + HOUR) }),
        );
        const [byId, ended, ...created] = fulfilled(
          await Promise.allSettled<boolean | number | null>([
            write((tx) => tx.sessions.deleteById(user.id, target.id)),
            write((tx) => tx.sessions.deleteOthers(user.id, kept.tokenHash, T0)),
            ...logins.map((login) => suite.store.transaction((tx) => tx.sessions.create(login), { durable: false })),
          ]),
        );
        assert.ok(
          created.every((result) => result === true),
          'every login created its session',
        );
        assert.ok(await suite.store.sessions.findWithUser(kept.tokenHash), 'the kept session stays');
        assert.equal(await suite.store.sessions.findWithUser(target.tokenHash), null, 'the named session ended');

        const listed = await suite.store.sessions.list(user.id);
        const left = listed.filter((session) => session.tokenHash !== kept.tokenHash);
        for (const session of left) assert.ok(await suite.store.sessions.findWithUser(session.tokenHash));
        const endedLogins = (ended as number) - (byId ? 0 : 1);
        assert.equal(left.length + endedLogins, LOGINS, `round ${round}: each login ended or stayed, once`);
        assert.equal(await write((tx) => tx.sessions.deleteOthers(user.id, kept.tokenHash, T0)), left.length);
        assert.equal(await write((tx) => tx.sessions.delete(kept.tokenHash)), true);
      }
    });
  });
}
