import assert from 'node:assert/strict';
import type { StoredUser } from '../../../services/user-store';
import {
  describe,
  it,
  T0,
  HOUR_LATER,
  DAY_LATER,
  T0_MINUS_1,
  newUser,
  token,
  type ConformanceSuite,
  userFieldsOf,
} from '../support';

export function describeUsers(suite: ConformanceSuite): void {
  const { registered, sessionFor, transaction } = suite;
  describe('users', () => {
    it('users.create stores the user, with updatedAt equal to createdAt, and every finder returns it', async () => {
      const user = newUser('alice', { username: 'Alice', email: 'Alice@Example.com' });
      const verification = token(user.id, 'verify_email', HOUR_LATER, 'verify-alice');
      const result = await transaction((tx) => tx.users.create(user, verification));

      const expected: StoredUser = {
        ...userFieldsOf(user),
        verified: false,
        updatedAt: user.createdAt,
        disabledAt: null,
        credentialEpoch: 0,
      };
      assert.deepEqual(result, { ok: true, user: expected, owner: null });
      assert.deepEqual(await suite.store.users.findById(user.id), expected);
      assert.deepEqual(await suite.store.users.findByUsernameKey(user.usernameKey), expected);
      assert.deepEqual(await suite.store.users.findUnverifiedByEmailKey(user.emailKey, T0_MINUS_1, 10), [expected]);
      assert.equal(
        await suite.store.users.findVerifiedByEmailKey(user.emailKey),
        null,
        'an unverified user owns no address',
      );
    });

    it('keeps text exactly and instants to the millisecond', async () => {
      const { user } = await registered('unicode', {
        username: 'Zoë 🦊 Ω',
        usernameKey: 'zoë 🦊 ω',
        passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g',
        createdAt: new Date(Date.UTC(2031, 4, 6, 7, 8, 9, 123)),
      });
      const found = await suite.store.users.findById(user.id);
      assert.equal(found?.username, 'Zoë 🦊 Ω');
      assert.equal(found?.usernameKey, 'zoë 🦊 ω');
      assert.equal(
        await suite.store.passwords.hashOf(user.id),
        '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g',
      );
      assert.equal(found?.createdAt.getTime(), Date.UTC(2031, 4, 6, 7, 8, 9, 123));
    });

    it('answers null for unknown ids and keys', async () => {
      await registered('alice');
      assert.equal(await suite.store.users.findById('no-such-id'), null);
      assert.equal(await suite.store.users.findByUsernameKey('nobody'), null);
      assert.equal(await suite.store.users.findVerifiedByEmailKey('nobody@example.com'), null);
      assert.deepEqual(await suite.store.users.findUnverifiedByEmailKey('nobody@example.com', T0_MINUS_1, 10), []);
    });

    it('answers null, not an error, for keys as typed that no store could hold (a NUL character)', async () => {
      const { user } = await registered('alice');
      assert.equal(await suite.store.users.findByUsernameKey(`${user.usernameKey}\u0000`), null);
      assert.equal(await suite.store.users.findVerifiedByEmailKey(`\u0000${user.emailKey}`), null);
      assert.deepEqual(await suite.store.users.findUnverifiedByEmailKey(`\u0000${user.emailKey}`, T0_MINUS_1, 10), []);
      assert.equal(await suite.store.users.findById(`${user.id}\u0000`), null);
    });

    it('refuses a taken username key, whatever the display case, and stores nothing of the loser', async () => {
      await registered('alice', { username: 'alice', usernameKey: 'alice' });
      const loser = newUser('alice2', { username: 'ALICE', usernameKey: 'alice' });
      const loserToken = token(loser.id, 'verify_email', HOUR_LATER, 'verify-loser');

      assert.deepEqual(await transaction((tx) => tx.users.create(loser, loserToken)), {
        ok: false,
        conflict: 'username',
      });
      assert.equal(await suite.store.users.findById(loser.id), null);
      assert.deepEqual(await suite.store.users.findUnverifiedByEmailKey(loser.emailKey, T0_MINUS_1, 10), []);
      assert.equal(await transaction((tx) => tx.users.confirmAddress(loserToken.tokenHash, T0)), null);
    });

    it('users.create is all or nothing: when the token cannot be stored, neither is the user', async () => {
      const alice = await registered('alice');
      const bob = newUser('bob');
      const clashing = token(bob.id, 'verify_email', HOUR_LATER, alice.verificationHash);

      await assert.rejects(transaction((tx) => tx.users.create(bob, clashing)));
      assert.equal(await suite.store.users.findById(bob.id), null);
      assert.equal(await suite.store.users.findByUsernameKey(bob.usernameKey), null);
    });

    it('hands out copies: changing a returned or passed-in object changes nothing stored', async () => {
      const input = newUser('alice');
      const verification = token(input.id, 'verify_email', HOUR_LATER, 'verify-alice');
      const result = await transaction((tx) => tx.users.create(input, verification));
      assert.ok(result.ok);
      const createdAt = input.createdAt.getTime();
      const pristine: StoredUser = {
        ...userFieldsOf(input),
        verified: false,
        createdAt: new Date(createdAt),
        updatedAt: new Date(createdAt),
        disabledAt: null,
        credentialEpoch: 0,
      };

      input.username = 'mallory';
      input.createdAt.setTime(0);
      result.user.updatedAt.setTime(0);
      const found = await suite.store.users.findById(pristine.id);
      assert.ok(found);
      found.verified = true;
      found.createdAt.setTime(0);

      assert.deepEqual(await suite.store.users.findById(pristine.id), pristine);
    });

    it('hands out copies of sessions too', async () => {
      const { user } = await registered('alice');
      const session = await sessionFor(user.id, 'a');
      const expected = { ...session, expiresAt: new Date(DAY_LATER), lastSeenAt: new Date(T0) };
      session.expiresAt.setTime(0);
      const first = await suite.store.sessions.findWithUser(session.tokenHash);
      assert.ok(first);
      first.session.lastSeenAt.setTime(0);
      first.user.username = 'mallory';

      const again = await suite.store.sessions.findWithUser(session.tokenHash);
      assert.deepEqual(again?.session, expected);
      assert.equal(again?.user.username, user.username);
    });
  });
}
