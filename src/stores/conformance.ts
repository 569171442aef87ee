import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { carriesLink, SUPERSEDED_ERROR, type OutboxEntry, type OutboxKind } from '../services/outbox-message';
import {
  NewOutboxMessage,
  NewUser,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
  UserStore,
} from '../services/user-store';

// The suite runs under mocha and uses its globals; they are declared here, as far as it uses them, so that the package
// compiles and ships without any test runner's types.
declare function describe(title: string, body: () => void): void;
declare function it(title: string, test: () => Promise<void>): void;
declare function beforeEach(hook: () => Promise<void>): void;
declare function afterEach(hook: () => Promise<void>): void;

/**
 * Declares a mocha `describe` block that checks a `UserStore` against every contract of the interface, races
 * included. Run it once per implementation, from a mocha test file:
 *
 * @example
 * import { describeUserStoreConformance } from 'gatehouse/testing';
 * describeUserStoreConformance('MyStore', async () => MyStore.open(testUrl), async (store) => dropDatabase(store));
 *
 * @param makeStore Returns a fresh, empty, ready store; called before every test.
 * @param cleanup Called after every test, once the suite has closed the store (remove files, drop databases).
 *
 * Uses only mocha's globals and `node:assert`, so it needs no test dependency beyond mocha.
 */
export function describeUserStoreConformance<S extends UserStore>(
  name: string,
  makeStore: () => Promise<S>,
  cleanup?: (store: S) => Promise<void>,
): void {
  describe(`UserStore conformance: ${name}`, () => {
    let store: S;

    beforeEach(async () => {
      store = await makeStore();
    });

    afterEach(async () => {
      await store.close();
      await cleanup?.(store);
    });

    /** Registers a user with its verification token; fails the test if the store refuses. */
    async function registered(label: string, overrides: Partial<NewUser> = {}): Promise<Registered> {
      const user = newUser(label, overrides);
      const verification = token(user.id, 'verify_email', HOUR_LATER, `verify-${label}`);
      const result = await store.createUser(user, verification);
      assert.ok(result.ok, `registering ${label} should succeed`);
      return { user: result.user, verificationHash: verification.tokenHash };
    }

    function sessionRow(userId: string, label: string, overrides: Partial<StoredSession> = {}): StoredSession {
      return {
        tokenHash: `session-${label}`,
        userId,
        createdAt: new Date(T0),
        expiresAt: new Date(DAY_LATER),
        lastSeenAt: new Date(T0),
        ...overrides,
      };
    }

    async function sessionFor(userId: string, label: string, overrides: Partial<StoredSession> = {}) {
      const session = sessionRow(userId, label, overrides);
      const user = await store.findUserById(userId);
      assert.ok(user, `sessionFor(${label}) needs an existing user`);
      assert.equal(await store.createSession(session, user.passwordHash), true);
      return session;
    }

    async function resetTokenFor(userId: string, label: string, expiresAt = HOUR_LATER): Promise<string> {
      const reset = token(userId, 'reset_password', expiresAt, `reset-${label}`);
      await store.replaceToken(reset);
      return reset.tokenHash;
    }

    describe('users', () => {
      it('createUser stores the user, with updatedAt equal to createdAt, and every finder returns it', async () => {
        const user = newUser('alice', { username: 'Alice', email: 'Alice@Example.com' });
        const result = await store.createUser(user, token(user.id, 'verify_email', HOUR_LATER, 'verify-alice'));

        const expected: StoredUser = { ...user, verified: false, updatedAt: user.createdAt };
        assert.deepEqual(result, { ok: true, user: expected, addressOwned: false });
        assert.deepEqual(await store.findUserById(user.id), expected);
        assert.deepEqual(await store.findUserByUsernameKey(user.usernameKey), expected);
        assert.deepEqual(await store.findUnverifiedUsersByEmailKey(user.emailKey, T0_MINUS_1, 10), [expected]);
        assert.equal(await store.findVerifiedUserByEmailKey(user.emailKey), null, 'an unverified user owns no address');
      });

      it('keeps text exactly and instants to the millisecond', async () => {
        const { user } = await registered('unicode', {
          username: 'Zoë 🦊 Ω',
          usernameKey: 'zoë 🦊 ω',
          passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g',
          createdAt: new Date(Date.UTC(2031, 4, 6, 7, 8, 9, 123)),
        });
        const found = await store.findUserById(user.id);
        assert.equal(found?.username, 'Zoë 🦊 Ω');
        assert.equal(found?.usernameKey, 'zoë 🦊 ω');
        assert.equal(found?.passwordHash, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g');
        assert.equal(found?.createdAt.getTime(), Date.UTC(2031, 4, 6, 7, 8, 9, 123));
      });

      it('answers null for unknown ids and keys', async () => {
        await registered('alice');
        assert.equal(await store.findUserById('no-such-id'), null);
        assert.equal(await store.findUserByUsernameKey('nobody'), null);
        assert.equal(await store.findVerifiedUserByEmailKey('nobody@example.com'), null);
        assert.deepEqual(await store.findUnverifiedUsersByEmailKey('nobody@example.com', T0_MINUS_1, 10), []);
      });

      it('answers null, not an error, for keys as typed that no store could hold (a NUL character)', async () => {
        const { user } = await registered('alice');
        assert.equal(await store.findUserByUsernameKey(`${user.usernameKey}\u0000`), null);
        assert.equal(await store.findVerifiedUserByEmailKey(`\u0000${user.emailKey}`), null);
        assert.deepEqual(await store.findUnverifiedUsersByEmailKey(`\u0000${user.emailKey}`, T0_MINUS_1, 10), []);
        assert.equal(await store.findUserById(`${user.id}\u0000`), null);
      });

      it('refuses a taken username key, whatever the display case, and stores nothing of the loser', async () => {
        await registered('alice', { username: 'alice', usernameKey: 'alice' });
        const loser = newUser('alice2', { username: 'ALICE', usernameKey: 'alice' });
        const loserToken = token(loser.id, 'verify_email', HOUR_LATER, 'verify-loser');

        assert.deepEqual(await store.createUser(loser, loserToken), { ok: false, conflict: 'username' });
        assert.equal(await store.findUserById(loser.id), null);
        assert.deepEqual(await store.findUnverifiedUsersByEmailKey(loser.emailKey, T0_MINUS_1, 10), []);
        assert.equal(await store.verifyEmail(loserToken.tokenHash, T0), null);
      });

      it('createUser is all or nothing: when the token cannot be stored, neither is the user', async () => {
        const alice = await registered('alice');
        const bob = newUser('bob');
        const clashing = token(bob.id, 'verify_email', HOUR_LATER, alice.verificationHash);

        await assert.rejects(store.createUser(bob, clashing));
        assert.equal(await store.findUserById(bob.id), null);
        assert.equal(await store.findUserByUsernameKey(bob.usernameKey), null);
      });

      it('hands out copies: changing a returned or passed-in object changes nothing stored', async () => {
        const input = newUser('alice');
        const result = await store.createUser(input, token(input.id, 'verify_email', HOUR_LATER, 'verify-alice'));
        assert.ok(result.ok);
        const createdAt = input.createdAt.getTime();
        const pristine: StoredUser = {
          ...input,
          verified: false,
          createdAt: new Date(createdAt),
          updatedAt: new Date(createdAt),
        };

        input.username = 'mallory';
        input.createdAt.setTime(0);
        result.user.passwordHash = 'tampered';
        result.user.updatedAt.setTime(0);
        const found = await store.findUserById(pristine.id);
        assert.ok(found);
        found.verified = true;
        found.createdAt.setTime(0);

        assert.deepEqual(await store.findUserById(pristine.id), pristine);
      });

      it('hands out copies of sessions too', async () => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 'a');
        const expected = { ...session, expiresAt: new Date(DAY_LATER), lastSeenAt: new Date(T0) };
        session.expiresAt.setTime(0);
        const first = await store.getSessionAndUser(session.tokenHash);
        assert.ok(first);
        first.session.lastSeenAt.setTime(0);
        first.user.username = 'mallory';

        const again = await store.getSessionAndUser(session.tokenHash);
        assert.deepEqual(again?.session, expected);
        assert.equal(again?.user.username, user.username);
      });
    });

    describe('single-use tokens', () => {
      it('findUserByToken finds the owner of a live token of that purpose without consuming it', async () => {
        const { user, verificationHash } = await registered('alice');
        const resetHash = await resetTokenFor(user.id, 'alice');

        assert.equal((await store.findUserByToken(verificationHash, 'verify_email', T0))?.id, user.id);
        assert.equal((await store.findUserByToken(resetHash, 'reset_password', T0))?.id, user.id);
        assert.equal((await store.findUserByToken(resetHash, 'reset_password', T0))?.id, user.id, 'still there');
        assert.equal(await store.findUserByToken(resetHash, 'verify_email', T0), null, 'wrong purpose');
        assert.equal(await store.findUserByToken(resetHash, 'reset_password', HOUR_LATER), null, 'expired');
        assert.equal(await store.findUserByToken('unknown', 'reset_password', T0), null);
        assert.ok(await store.resetPassword(resetHash, 'new-hash', T0), 'finding did not consume it');
      });

      it('verifyEmail marks the user verified, sets updatedAt, and works once', async () => {
        const { user, verificationHash } = await registered('alice');
        const now = new Date(T0.getTime() + 60_000);

        const verified = await store.verifyEmail(verificationHash, now);
        assert.deepEqual(verified, { ...user, verified: true, updatedAt: now });
        assert.deepEqual(await store.findUserById(user.id), verified);
        assert.equal(await store.verifyEmail(verificationHash, now), null, 'second use');
      });

      it('verifyEmail refuses an unknown token, a token of another purpose, and an expired token', async () => {
        const { user, verificationHash } = await registered('alice');
        const resetHash = await resetTokenFor(user.id, 'alice');

        assert.equal(await store.verifyEmail('unknown', T0), null);
        assert.equal(await store.verifyEmail(resetHash, T0), null, 'reset token used to verify');
        assert.equal(await store.verifyEmail(verificationHash, HOUR_LATER), null, 'at the expiry instant');
        assert.equal(await store.verifyEmail(verificationHash, DAY_LATER), null, 'after expiry');
        assert.equal((await store.findUserById(user.id))?.verified, false);
        assert.ok(await store.resetPassword(resetHash, 'new-hash', T0), 'the wrong-purpose attempt did not burn it');
        assert.ok(await store.verifyEmail(verificationHash, T0), 'the expired attempts did not burn it either');
      });

      it('replaceToken supersedes older tokens of the same user and purpose, and only those', async () => {
        const alice = await registered('alice');
        const bob = await registered('bob');
        const first = await resetTokenFor(alice.user.id, 'alice-1');
        const bobs = await resetTokenFor(bob.user.id, 'bob');
        const second = await resetTokenFor(alice.user.id, 'alice-2');

        assert.equal(await store.resetPassword(first, 'hash-1', T0), null, 'superseded');
        assert.ok(await store.resetPassword(second, 'hash-2', T0));
        assert.ok(await store.resetPassword(bobs, 'hash-3', T0), "another user's token stays");
        assert.ok(await store.verifyEmail(alice.verificationHash, T0), 'a token of another purpose stays');
      });

      it('replaceToken works for verification tokens too (resend)', async () => {
        const { user, verificationHash } = await registered('alice');
        const resent = token(user.id, 'verify_email', HOUR_LATER, 'verify-alice-again');
        await store.replaceToken(resent);

        assert.equal(await store.verifyEmail(verificationHash, T0), null);
        assert.ok(await store.verifyEmail(resent.tokenHash, T0));
      });

      it('resetPassword replaces the hash, ends every session and reset token, keeps verification tokens', async () => {
        const alice = await registered('alice');
        const bob = await registered('bob');
        await sessionFor(alice.user.id, 'alice-1');
        await sessionFor(alice.user.id, 'alice-2');
        const bobSession = await sessionFor(bob.user.id, 'bob');
        const resetHash = await resetTokenFor(alice.user.id, 'alice');
        const now = new Date(T0.getTime() + 1000);

        const updated = await store.resetPassword(resetHash, 'new-hash', now);
        assert.deepEqual(updated, { ...alice.user, passwordHash: 'new-hash', updatedAt: now });
        assert.equal((await store.findUserById(alice.user.id))?.passwordHash, 'new-hash');
        assert.equal(await store.getSessionAndUser('session-alice-1'), null);
        assert.equal(await store.getSessionAndUser('session-alice-2'), null);
        assert.equal(await store.resetPassword(resetHash, 'other-hash', now), null, 'single use');
        assert.ok(await store.getSessionAndUser(bobSession.tokenHash), "another user's session stays");
        assert.ok(await store.verifyEmail(alice.verificationHash, now), 'the verification token stays');
      });

      it('resetPassword refuses a verification token, an expired token, and changes nothing then', async () => {
        const { user, verificationHash } = await registered('alice');
        await sessionFor(user.id, 'alice');
        const resetHash = await resetTokenFor(user.id, 'alice');

        assert.equal(await store.resetPassword(verificationHash, 'new-hash', T0), null);
        assert.equal(await store.resetPassword(resetHash, 'new-hash', HOUR_LATER), null);
        assert.equal(await store.resetPassword('unknown', 'new-hash', T0), null);
        assert.equal((await store.findUserById(user.id))?.passwordHash, user.passwordHash);
        assert.ok(await store.getSessionAndUser('session-alice'));
      });
    });

    describe('addresses: owned by the registration that proves them', () => {
      const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

      it('createUser stores the registration whoever holds the address, and queues the link or the owner notice', async () => {
        const first = newUser('first', { emailKey: 'shared@example.com' });
        const firstLink = message('verification');
        const stored = await store.createUser(first, token(first.id, 'verify_email', HOUR_LATER, 'verify-first'), {
          link: firstLink,
          ownerNotice: message('registrationAttempt'),
        });
        assert.deepEqual(stored, { ok: true, user: { ...first, verified: false, updatedAt: T0 }, addressOwned: false });

        const second = newUser('second', { emailKey: 'shared@example.com', createdAt: at(1) });
        const secondLink = message('verification');
        const claimed = await store.createUser(second, token(second.id, 'verify_email', HOUR_LATER, 'verify-second'), {
          link: secondLink,
        });
        assert.ok(claimed.ok && !claimed.addressOwned, 'an address held only by unverified registrations is not owned');
        assert.deepEqual(
          (await store.listMessages()).map((entry) => [entry.id, entry.userId]).sort(),
          [
            [firstLink.id, first.id],
            [secondLink.id, second.id],
          ].sort(),
        );

        assert.ok(await store.verifyEmail('verify-first', T0));
        const late = newUser('late', { emailKey: 'shared@example.com', createdAt: at(2) });
        const notice = message('registrationAttempt');
        const lateLink = message('verification');
        const owned = await store.createUser(late, token(late.id, 'verify_email', HOUR_LATER, 'verify-late'), {
          link: lateLink,
          ownerNotice: notice,
        });
        assert.ok(owned.ok && owned.addressOwned);
        assert.equal((await store.findUserById(late.id))?.verified, false, 'stored all the same, unverified');
        const messages = await store.listMessages();
        assert.equal(messages.find((entry) => entry.id === notice.id)?.userId, first.id, 'the owner is told');
        assert.equal(
          messages.find((entry) => entry.id === lateLink.id),
          undefined,
          'no link to an owned address',
        );
        assert.equal(
          await store.verifyEmail('verify-late', T0),
          null,
          'a registration of an owned address never owns it',
        );
        assert.equal((await store.findUserById(late.id))?.verified, false);
        assert.equal((await store.findVerifiedUserByEmailKey('shared@example.com'))?.id, first.id);
      });

      it('findUnverifiedUsersByEmailKey lists the live registrations of an address, newest first, at most `limit`', async () => {
        const users = [0, 1, 2, 3].map((i) =>
          newUser(`claim-${i}`, { emailKey: 'shared@example.com', createdAt: at(i) }),
        );
        for (const user of users)
          await store.createUser(user, token(user.id, 'verify_email', HOUR_LATER, `v-${user.id}`));
        await registered('other');

        const ids = async (after: Date, limit: number) =>
          (await store.findUnverifiedUsersByEmailKey('shared@example.com', after, limit)).map((user) => user.id);
        assert.deepEqual(
          await ids(T0_MINUS_1, 10),
          [3, 2, 1, 0].map((i) => users[i].id),
        );
        assert.deepEqual(await ids(T0_MINUS_1, 2), [users[3].id, users[2].id]);
        assert.deepEqual(await ids(at(1), 10), [users[3].id, users[2].id], 'created at or before the cut-off: expired');
        assert.deepEqual(await ids(T0_MINUS_1, 0), []);
      });

      it('verifyEmail makes its registration the owner and ends every other registration of the address', async () => {
        const owner = newUser('owner', { emailKey: 'shared@example.com', createdAt: at(1) });
        const rival = newUser('rival', { emailKey: 'shared@example.com' });
        const elsewhere = await registered('elsewhere');
        const rivalLink = message('verification');
        await store.createUser(rival, token(rival.id, 'verify_email', HOUR_LATER, 'verify-rival'), { link: rivalLink });
        await store.createUser(owner, token(owner.id, 'verify_email', HOUR_LATER, 'verify-owner'));
        await store.replaceToken(token(rival.id, 'reset_password', HOUR_LATER, 'reset-rival'));

        const verified = await store.verifyEmail('verify-owner', at(2));
        assert.deepEqual(verified, { ...owner, verified: true, updatedAt: at(2) });
        assert.equal((await store.findVerifiedUserByEmailKey('shared@example.com'))?.id, owner.id);
        assert.equal(await store.findUserById(rival.id), null, 'the other registration ended');
        assert.equal(await store.findUserByUsernameKey(rival.usernameKey), null, 'and its username is free');
        assert.equal(await store.verifyEmail('verify-rival', at(2)), null, 'its link died with it');
        assert.equal(await store.findUserByToken('reset-rival', 'reset_password', T0), null, 'every token of it');
        const dead = (await store.listMessages()).find((entry) => entry.id === rivalLink.id);
        assert.deepEqual([dead?.status, dead?.hasToken, dead?.lastError], ['failed', false, SUPERSEDED_ERROR]);
        assert.ok(await store.findUserById(elsewhere.user.id), 'registrations of other addresses stay');
        const again = newUser('again', { usernameKey: rival.usernameKey });
        assert.ok((await store.createUser(again, token(again.id, 'verify_email', HOUR_LATER, 'verify-again'))).ok);
      });

      it('createUser frees a username held by an expired registration, and by nothing else', async () => {
        const expired = newUser('taken', { usernameKey: 'taken-expired' });
        const live = newUser('live', { usernameKey: 'taken-live', createdAt: at(10) });
        await store.createUser(expired, token(expired.id, 'verify_email', HOUR_LATER, 'verify-expired'));
        await store.createUser(live, token(live.id, 'verify_email', HOUR_LATER, 'verify-live'));
        const verified = await registered('verified', { usernameKey: 'taken-verified' });
        assert.ok(await store.verifyEmail(verified.verificationHash, T0));
        const cutoff = { expiredUnverifiedBefore: at(5) };

        const claim = (key: string) => {
          const user = newUser(`new-${key}`, { usernameKey: key, createdAt: at(20) });
          return store.createUser(user, token(user.id, 'verify_email', DAY_LATER, `verify-new-${key}`), cutoff);
        };
        assert.ok((await claim('taken-expired')).ok, 'an expired registration gives way');
        assert.equal(await store.findUserById(expired.id), null);
        assert.equal(await store.findUserByToken('verify-expired', 'verify_email', T0), null, 'with its tokens');
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
        assert.ok(await store.verifyEmail(verified.verificationHash, T0));
        await sessionFor(old.user.id, 'old');
        const cutoffs = { now: T0, sessionIdleBefore: new Date(0), unverifiedCreatedBefore: at(10) };

        assert.equal(await store.deleteExpired(cutoffs), 1);
        assert.equal(await store.findUserById(old.user.id), null);
        assert.equal(await store.getSessionAndUser('session-old'), null);
        assert.equal(await store.findUserByToken(old.verificationHash, 'verify_email', T0), null);
        assert.ok(await store.findUserById(fresh.user.id));
        assert.ok(await store.findUserById(verified.user.id));
        assert.equal(await store.deleteExpired(cutoffs), 0);
      });
    });

    describe('passwords', () => {
      it('changePassword with a session hash changes only while that session of the user exists', async () => {
        const { user } = await registered('alice');
        const other = await registered('bob');
        await sessionFor(other.user.id, 'bob');
        assert.equal(await store.changePassword(user.id, user.passwordHash, 'h2', T0, undefined, 'session-bob'), false);
        assert.equal(await store.changePassword(user.id, user.passwordHash, 'h2', T0, undefined, 'unknown'), false);
        await sessionFor(user.id, 'alice');
        await store.deleteUserSessions(user.id); // a logout-all that committed while the new password was hashed
        assert.equal(
          await store.changePassword(user.id, user.passwordHash, 'h2', T0, undefined, 'session-alice'),
          false,
        );
        assert.equal((await store.findUserById(user.id))?.passwordHash, user.passwordHash, 'nothing changed');

        await sessionFor(user.id, 'alice');
        assert.equal(
          await store.changePassword(user.id, user.passwordHash, 'h2', T0, undefined, 'session-alice'),
          true,
        );
        assert.equal((await store.findUserById(user.id))?.passwordHash, 'h2');
        assert.equal(await store.getSessionAndUser('session-alice'), null, 'and it ended the session with the rest');
      });

      it('changePassword replaces the hash, ends sessions and reset tokens, keeps verification tokens', async () => {
        const alice = await registered('alice');
        const bob = await registered('bob');
        await sessionFor(alice.user.id, 'alice-1');
        await sessionFor(alice.user.id, 'alice-2');
        await sessionFor(bob.user.id, 'bob');
        const resetHash = await resetTokenFor(alice.user.id, 'alice');
        const now = new Date(T0.getTime() + 1000);

        assert.equal(await store.changePassword(alice.user.id, alice.user.passwordHash, 'new-hash', now), true);
        assert.deepEqual(await store.findUserById(alice.user.id), {
          ...alice.user,
          passwordHash: 'new-hash',
          updatedAt: now,
        });
        assert.equal(await store.getSessionAndUser('session-alice-1'), null);
        assert.equal(await store.getSessionAndUser('session-alice-2'), null);
        assert.equal(await store.resetPassword(resetHash, 'other-hash', now), null, 'outstanding reset ended');
        assert.ok(await store.getSessionAndUser('session-bob'));
        assert.ok(await store.verifyEmail(alice.verificationHash, now));
      });

      it('changePassword with a stale expected hash returns false and changes nothing', async () => {
        const { user } = await registered('alice');
        await sessionFor(user.id, 'alice');
        const resetHash = await resetTokenFor(user.id, 'alice');

        assert.equal(await store.changePassword(user.id, 'stale-hash', 'new-hash', DAY_LATER), false);
        assert.deepEqual(await store.findUserById(user.id), user);
        assert.ok(await store.getSessionAndUser('session-alice'));
        assert.ok(await store.findUserByToken(resetHash, 'reset_password', T0));
      });

      it('changePassword and rehashPassword return false for an unknown user', async () => {
        assert.equal(await store.changePassword('no-such-id', 'hash', 'new-hash', T0), false);
        assert.equal(await store.rehashPassword('no-such-id', 'hash', 'new-hash', T0), false);
      });

      it('rehashPassword replaces an unchanged hash and leaves sessions and tokens alone', async () => {
        const { user } = await registered('alice');
        await sessionFor(user.id, 'alice');
        const resetHash = await resetTokenFor(user.id, 'alice');
        const now = new Date(T0.getTime() + 1000);

        assert.equal(await store.rehashPassword(user.id, user.passwordHash, 'stronger-hash', now), true);
        assert.deepEqual(await store.findUserById(user.id), { ...user, passwordHash: 'stronger-hash', updatedAt: now });
        assert.ok(await store.getSessionAndUser('session-alice'));
        assert.ok(await store.findUserByToken(resetHash, 'reset_password', T0));
      });

      it('createSession refuses a stale password hash and a deleted user, inserting nothing', async () => {
        const { user } = await registered('alice');
        assert.equal(await store.createSession(sessionRow(user.id, 'stale'), 'not-the-hash'), false);
        assert.equal(await store.getSessionAndUser('session-stale'), null);
        assert.equal(await store.deleteUser(user.id), true);
        assert.equal(await store.createSession(sessionRow(user.id, 'gone'), user.passwordHash), false);
        assert.equal(await store.getSessionAndUser('session-gone'), null);
      });

      it('rehashPassword with a stale expected hash returns false and changes nothing', async () => {
        const { user } = await registered('alice');
        assert.equal(await store.rehashPassword(user.id, 'stale-hash', 'stronger-hash', DAY_LATER), false);
        assert.deepEqual(await store.findUserById(user.id), user);
      });

      it('after a password replacement resolves, no session of the user is left (reset and change alike)', async () => {
        // Sessions created up to the call, including ones started concurrently with it, must not outlive it.
        const { user } = await registered('alice');
        const resetHash = await resetTokenFor(user.id, 'alice');
        // Started with the old hash: each lands before the reset (and is ended by it) or is refused.
        const before = Array.from({ length: 5 }, (_, i) =>
          store.createSession(sessionRow(user.id, `before-${i}`), user.passwordHash),
        );
        const reset = store.resetPassword(resetHash, 'hash-2', T0);
        await Promise.all(before);
        assert.ok(await reset);
        for (let i = 0; i < 5; i++) assert.equal(await store.getSessionAndUser(`session-before-${i}`), null);

        await Promise.all(Array.from({ length: 5 }, (_, i) => sessionFor(user.id, `again-${i}`)));
        assert.equal(await store.changePassword(user.id, 'hash-2', 'hash-3', T0), true);
        for (let i = 0; i < 5; i++) assert.equal(await store.getSessionAndUser(`session-again-${i}`), null);
        assert.equal((await store.findUserById(user.id))?.passwordHash, 'hash-3');
      });
    });

    describe('deleteUser', () => {
      it('with an authorisation, deletes only while its session exists and its password hash is current', async () => {
        const { user } = await registered('alice');
        const other = await registered('bob');
        await sessionFor(user.id, 'alice');
        await sessionFor(other.user.id, 'bob');
        const holds = { sessionTokenHash: 'session-alice', passwordHash: user.passwordHash };
        const notice = message('accountDeleted');

        assert.equal(
          await store.deleteUser(user.id, notice, { ...holds, passwordHash: 'replaced' }),
          false,
          'hash changed',
        );
        assert.equal(
          await store.deleteUser(user.id, notice, { ...holds, sessionTokenHash: 'session-bob' }),
          false,
          'not her session',
        );
        assert.equal(
          await store.deleteUser(user.id, notice, { ...holds, sessionTokenHash: 'unknown' }),
          false,
          'no such session',
        );
        await store.deleteSession('session-alice');
        assert.equal(await store.deleteUser(user.id, notice, holds), false, 'her session ended');
        assert.ok(await store.findUserById(user.id), 'a refused deletion deletes nothing');
        assert.deepEqual(await store.listMessages(), [], 'and queues nothing');

        await sessionFor(user.id, 'alice');
        assert.equal(await store.deleteUser(user.id, notice, holds), true);
        assert.equal(await store.findUserById(user.id), null);
      });

      it('with an authorisation, loses to a reset, a change and a logout-all that came first', async () => {
        const racers = async (label: string) => {
          const { user } = await registered(label);
          await sessionFor(user.id, label);
          return { user, holds: { sessionTokenHash: `session-${label}`, passwordHash: user.passwordHash } };
        };
        const reset = await racers('reset');
        assert.ok(await store.resetPassword(await resetTokenFor(reset.user.id, 'reset'), 'new-hash', T0));
        const changed = await racers('changed');
        assert.ok(await store.changePassword(changed.user.id, changed.user.passwordHash, 'new-hash', T0));
        const loggedOut = await racers('logged-out');
        await store.deleteUserSessions(loggedOut.user.id);
        for (const { user, holds } of [reset, changed, loggedOut]) {
          assert.equal(await store.deleteUser(user.id, undefined, holds), false, user.username);
          assert.ok(await store.findUserById(user.id), user.username);
        }
      });

      it('removes the user with every session, token and grant; then everything about them is absent', async () => {
        const alice = await registered('alice');
        const bob = await registered('bob');
        await sessionFor(alice.user.id, 'alice');
        await sessionFor(bob.user.id, 'bob');
        const resetHash = await resetTokenFor(alice.user.id, 'alice');
        await store.createRole('admin');
        await store.createPermission('posts:write');
        await store.grantPermission('admin', 'posts:write');
        await store.grantRole(alice.user.id, 'admin');
        await store.grantRole(bob.user.id, 'admin');

        assert.equal(await store.deleteUser(alice.user.id), true);

        const id = alice.user.id;
        assert.equal(await store.findUserById(id), null);
        assert.equal(await store.findUserByUsernameKey(alice.user.usernameKey), null);
        assert.deepEqual(await store.findUnverifiedUsersByEmailKey(alice.user.emailKey, T0_MINUS_1, 10), []);
        assert.equal(await store.getSessionAndUser('session-alice'), null);
        assert.equal(await store.findUserByToken(resetHash, 'reset_password', T0), null);
        assert.equal(await store.verifyEmail(alice.verificationHash, T0), null);
        assert.equal(await store.resetPassword(resetHash, 'new-hash', T0), null);
        assert.equal(await store.changePassword(id, alice.user.passwordHash, 'new-hash', T0), false);
        assert.equal(await store.rehashPassword(id, alice.user.passwordHash, 'new-hash', T0), false);
        assert.equal(await store.checkRole(id, 'admin'), 'denied');
        assert.equal(await store.checkPermission(id, 'posts:write'), 'denied');
        assert.deepEqual(await store.listUserRoles(id), []);
        assert.equal(await store.grantRole(id, 'admin'), 'unknown_user');
        assert.equal(await store.deleteUser(id), false, 'already gone');

        assert.ok(await store.getSessionAndUser('session-bob'), 'other users are untouched');
        assert.equal(await store.checkPermission(bob.user.id, 'posts:write'), 'granted');
        assert.deepEqual(await store.listRoles(), [{ name: 'admin', permissions: ['posts:write'] }]);
      });

      it('frees the username and email keys for a new registration', async () => {
        const alice = await registered('alice');
        await store.deleteUser(alice.user.id);
        const again = await registered('alice-again', {
          usernameKey: alice.user.usernameKey,
          emailKey: alice.user.emailKey,
        });
        assert.equal((await store.findUserByUsernameKey(alice.user.usernameKey))?.id, again.user.id);
      });

      it('answers false for an unknown user', async () => {
        assert.equal(await store.deleteUser('no-such-id'), false);
      });
    });

    describe('sessions', () => {
      it('getSessionAndUser returns the session with its user, or null', async () => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 'alice', { lastSeenAt: new Date(T0.getTime() + 5) });

        assert.deepEqual(await store.getSessionAndUser(session.tokenHash), { session, user });
        assert.equal(await store.getSessionAndUser('unknown'), null);
      });

      it('getSessionAndUser returns expired sessions too: expiry is judged by the caller', async () => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 'old', { expiresAt: new Date(T0.getTime() - 1) });
        assert.deepEqual((await store.getSessionAndUser(session.tokenHash))?.session, session);
      });

      it('touchSession moves lastSeenAt only, and ignores an unknown session', async () => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 'alice');
        const later = new Date(T0.getTime() + 3_600_000);

        await store.touchSession(session.tokenHash, later);
        await store.touchSession('unknown', later);
        const touched = await store.getSessionAndUser(session.tokenHash);
        assert.deepEqual(touched?.session, { ...session, lastSeenAt: later });
      });

      it('deleteSession removes one session; deleteUserSessions every session of one user only', async () => {
        const alice = await registered('alice');
        const bob = await registered('bob');
        await sessionFor(alice.user.id, 'alice-1');
        await sessionFor(alice.user.id, 'alice-2');
        await sessionFor(alice.user.id, 'alice-3');
        await sessionFor(bob.user.id, 'bob');

        await store.deleteSession('session-alice-1');
        await store.deleteSession('unknown');
        assert.equal(await store.getSessionAndUser('session-alice-1'), null);
        assert.ok(await store.getSessionAndUser('session-alice-2'));

        await store.deleteUserSessions(alice.user.id);
        assert.equal(await store.getSessionAndUser('session-alice-2'), null);
        assert.equal(await store.getSessionAndUser('session-alice-3'), null);
        assert.ok(await store.getSessionAndUser('session-bob'));
        assert.ok(await store.findUserById(alice.user.id), 'the user stays');
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
        await store.replaceToken(token(user.id, 'reset_password', new Date(now.getTime() + 1), 'reset-live'));
        const bob = await registered('bob'); // its verification token expires an hour after T0, long before `now`

        assert.equal(await store.deleteExpired({ now, sessionIdleBefore: idleCutoff }), 4);
        assert.equal(await store.getSessionAndUser('session-absolute'), null);
        assert.equal(await store.getSessionAndUser('session-idle'), null);
        assert.ok(await store.getSessionAndUser('session-live'));
        assert.equal(await store.findUserByToken(verificationHash, 'verify_email', T0), null, 'expired token removed');
        assert.equal(await store.findUserByToken(bob.verificationHash, 'verify_email', T0), null);
        assert.ok(await store.findUserByToken('reset-live', 'reset_password', now));
        assert.equal(await store.deleteExpired({ now, sessionIdleBefore: idleCutoff }), 0);
      });
    });

    describe('roles and permissions', () => {
      it('createRole and createPermission create once and then answer false', async () => {
        assert.equal(await store.createRole('admin'), true);
        assert.equal(await store.createRole('admin'), false);
        assert.equal(await store.createPermission('posts:write'), true);
        assert.equal(await store.createPermission('posts:write'), false);
        assert.equal(await store.createPermission('admin'), true, 'roles and permissions are separate namespaces');
        assert.deepEqual(await store.listRoles(), [{ name: 'admin', permissions: [] }]);
        assert.deepEqual(await store.listPermissions(), ['admin', 'posts:write']);
      });

      it('grantPermission and revokePermission report unknown roles and permissions, in argument order', async () => {
        await store.createRole('admin');
        await store.createPermission('posts:write');

        assert.equal(await store.grantPermission('ghost', 'posts:write'), 'unknown_role');
        assert.equal(await store.grantPermission('admin', 'ghost'), 'unknown_permission');
        assert.equal(await store.grantPermission('ghost', 'ghost'), 'unknown_role');
        assert.equal(await store.revokePermission('ghost', 'posts:write'), 'unknown_role');
        assert.equal(await store.revokePermission('admin', 'ghost'), 'unknown_permission');
        assert.deepEqual(await store.listRoles(), [{ name: 'admin', permissions: [] }]);
      });

      it('grantRole and revokeRole report unknown users and roles, in argument order', async () => {
        const { user } = await registered('alice');
        await store.createRole('admin');

        assert.equal(await store.grantRole('no-such-id', 'admin'), 'unknown_user');
        assert.equal(await store.grantRole(user.id, 'ghost'), 'unknown_role');
        assert.equal(await store.grantRole('no-such-id', 'ghost'), 'unknown_user');
        assert.equal(await store.revokeRole('no-such-id', 'admin'), 'unknown_user');
        assert.equal(await store.revokeRole(user.id, 'ghost'), 'unknown_role');
        assert.deepEqual(await store.listUserRoles(user.id), []);
      });

      it('grants are idempotent, and revoking a grant that is not there is ok', async () => {
        const { user } = await registered('alice');
        await store.createRole('admin');
        await store.createPermission('posts:write');

        assert.equal(await store.grantPermission('admin', 'posts:write'), 'ok');
        assert.equal(await store.grantPermission('admin', 'posts:write'), 'ok');
        assert.equal(await store.grantRole(user.id, 'admin'), 'ok');
        assert.equal(await store.grantRole(user.id, 'admin'), 'ok');
        assert.deepEqual(await store.listRoles(), [{ name: 'admin', permissions: ['posts:write'] }]);
        assert.deepEqual(await store.listUserRoles(user.id), ['admin']);

        assert.equal(await store.revokeRole(user.id, 'admin'), 'ok');
        assert.equal(await store.revokeRole(user.id, 'admin'), 'ok');
        assert.equal(await store.revokePermission('admin', 'posts:write'), 'ok');
        assert.equal(await store.revokePermission('admin', 'posts:write'), 'ok');
      });

      it('checkRole answers granted, denied, or unknown when the role does not exist', async () => {
        const alice = await registered('alice');
        const bob = await registered('bob');
        await store.createRole('admin');
        await store.grantRole(alice.user.id, 'admin');

        assert.equal(await store.checkRole(alice.user.id, 'admin'), 'granted');
        assert.equal(await store.checkRole(bob.user.id, 'admin'), 'denied');
        assert.equal(await store.checkRole('no-such-id', 'admin'), 'denied');
        assert.equal(await store.checkRole(alice.user.id, 'ghost'), 'unknown');

        assert.equal(await store.revokeRole(alice.user.id, 'admin'), 'ok');
        assert.equal(await store.checkRole(alice.user.id, 'admin'), 'denied');
      });

      it('checkPermission follows every role of the user, and answers unknown for a missing permission', async () => {
        const alice = await registered('alice');
        const bob = await registered('bob');
        await store.createRole('editor');
        await store.createRole('moderator');
        await store.createRole('reader');
        await store.createPermission('posts:write');
        await store.createPermission('posts:read');
        await store.grantPermission('editor', 'posts:write');
        await store.grantPermission('moderator', 'posts:write');
        await store.grantPermission('reader', 'posts:read');
        await store.grantRole(alice.user.id, 'editor');
        await store.grantRole(alice.user.id, 'moderator');
        await store.grantRole(bob.user.id, 'reader');

        assert.equal(await store.checkPermission(alice.user.id, 'posts:write'), 'granted');
        assert.equal(await store.checkPermission(alice.user.id, 'posts:read'), 'denied');
        assert.equal(await store.checkPermission(bob.user.id, 'posts:write'), 'denied');
        assert.equal(await store.checkPermission('no-such-id', 'posts:write'), 'denied');
        assert.equal(await store.checkPermission(alice.user.id, 'ghost'), 'unknown');
        assert.equal(await store.checkPermission(alice.user.id, 'editor'), 'unknown', 'a role is not a permission');

        await store.revokeRole(alice.user.id, 'editor');
        assert.equal(await store.checkPermission(alice.user.id, 'posts:write'), 'granted', 'still via moderator');
        await store.revokePermission('moderator', 'posts:write');
        assert.equal(await store.checkPermission(alice.user.id, 'posts:write'), 'denied');
      });

      it('lists roles by name with their permissions sorted, permissions sorted, and user roles sorted', async () => {
        const { user } = await registered('alice');
        for (const role of ['moderator', 'admin', 'editor']) await store.createRole(role);
        for (const permission of ['posts:write', 'comments:delete', 'posts:read']) {
          await store.createPermission(permission);
        }
        await store.grantPermission('editor', 'posts:write');
        await store.grantPermission('editor', 'posts:read');
        await store.grantPermission('moderator', 'posts:read');
        await store.grantPermission('moderator', 'comments:delete');
        await store.grantRole(user.id, 'moderator');
        await store.grantRole(user.id, 'admin');

        assert.deepEqual(await store.listRoles(), [
          { name: 'admin', permissions: [] },
          { name: 'editor', permissions: ['posts:read', 'posts:write'] },
          { name: 'moderator', permissions: ['comments:delete', 'posts:read'] },
        ]);
        assert.deepEqual(await store.listPermissions(), ['comments:delete', 'posts:read', 'posts:write']);
        assert.deepEqual(await store.listUserRoles(user.id), ['admin', 'moderator']);
        assert.deepEqual(await store.listUserRoles('no-such-id'), []);
      });

      it('lists nothing on an empty store', async () => {
        assert.deepEqual(await store.listRoles(), []);
        assert.deepEqual(await store.listPermissions(), []);
      });
    });

    describe('outbox', () => {
      /** The one message of this kind in the store; fails the test unless there is exactly one. */
      async function onlyMessage(kind: OutboxKind): Promise<OutboxEntry> {
        const found = (await store.listMessages()).filter((entry) => entry.kind === kind);
        assert.equal(found.length, 1, `one ${kind} message`);
        return found[0];
      }

      it('each account change queues its message in its transaction, addressed from the user row', async () => {
        const alice = newUser('alice', { username: 'Alice', email: 'Alice@Example.com' });
        const welcome = message('verification');
        await store.createUser(alice, token(alice.id, 'verify_email', HOUR_LATER, 'verify-alice'), { link: welcome });
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

        // The core does not know whose token it is: the store addresses the message.
        assert.ok(await store.verifyEmail('verify-alice', T0, message('emailVerified')));
        assert.equal((await onlyMessage('emailVerified')).userId, alice.id);

        const reset = token(alice.id, 'reset_password', HOUR_LATER, 'reset-alice');
        await store.replaceToken(reset, message('passwordReset'));
        assert.equal((await onlyMessage('passwordReset')).email, 'Alice@Example.com');
        assert.ok(await store.resetPassword('reset-alice', 'hash-2', T0, message('passwordChanged')));
        assert.ok(await store.changePassword(alice.id, 'hash-2', 'hash-3', T0, message('passwordChanged')));
        assert.equal((await store.listMessages()).filter((entry) => entry.kind === 'passwordChanged').length, 2);
        assert.equal(await store.enqueueMessage(alice.id, message('registrationAttempt')), true);
        assert.equal(await store.enqueueMessage('no-such-id', message('registrationAttempt')), false);

        // The deletion notice is addressed from the row before it goes, and outlives it with every other message.
        assert.equal(await store.deleteUser(alice.id, message('accountDeleted')), true);
        const farewell = await onlyMessage('accountDeleted');
        assert.deepEqual(
          [farewell.userId, farewell.username, farewell.email],
          [alice.id, 'Alice', 'Alice@Example.com'],
        );
        assert.equal((await store.listMessages()).length, 7);
        assert.ok((await store.listMessages()).every((entry) => entry.userId === alice.id));
      });

      it('no change, no message', async () => {
        const alice = await registered('alice');
        const clash = newUser('mallory', { usernameKey: alice.user.usernameKey });
        const refused = await store.createUser(clash, token(clash.id, 'verify_email', HOUR_LATER, 'v'), {
          link: message('verification'),
          ownerNotice: message('registrationAttempt'),
        });
        assert.deepEqual(refused, { ok: false, conflict: 'username' });
        assert.equal(await store.verifyEmail('unknown', T0, message('emailVerified')), null);
        assert.equal(await store.resetPassword('unknown', 'hash', T0, message('passwordChanged')), null);
        assert.equal(await store.changePassword(alice.user.id, 'stale', 'hash', T0, message('passwordChanged')), false);
        assert.equal(await store.deleteUser('no-such-id', message('accountDeleted')), false);
        assert.deepEqual(await store.listMessages(), []);
      });

      it('a message that cannot be stored undoes its account change, whichever the change', async () => {
        // Would fail for a store that committed the change and then inserted the message as a second step.
        const { user, verificationHash } = await registered('alice');
        await sessionFor(user.id, 'alice');
        const resetHash = await resetTokenFor(user.id, 'alice');
        const taken = message('registrationAttempt');
        assert.ok(await store.enqueueMessage(user.id, taken));
        const clashing = (kind: OutboxKind) => ({ ...message(kind), id: taken.id });

        const bob = newUser('bob');
        await assert.rejects(
          store.createUser(bob, token(bob.id, 'verify_email', HOUR_LATER, 'verify-bob'), {
            link: clashing('verification'),
          }),
        );
        assert.equal(await store.findUserById(bob.id), null, 'createUser undone');
        await assert.rejects(
          store.replaceToken(token(user.id, 'reset_password', HOUR_LATER, 'reset-2'), clashing('passwordReset')),
        );
        assert.equal(await store.findUserByToken('reset-2', 'reset_password', T0), null, 'replaceToken undone');
        assert.ok(await store.findUserByToken(resetHash, 'reset_password', T0), 'the older token was not superseded');
        await assert.rejects(store.verifyEmail(verificationHash, T0, clashing('emailVerified')));
        assert.equal((await store.findUserById(user.id))?.verified, false, 'verifyEmail undone');
        await assert.rejects(store.resetPassword(resetHash, 'hash-2', T0, clashing('passwordChanged')));
        await assert.rejects(
          store.changePassword(user.id, user.passwordHash, 'hash-3', T0, clashing('passwordChanged')),
        );
        await assert.rejects(store.deleteUser(user.id, clashing('accountDeleted')));

        assert.deepEqual(await store.findUserById(user.id), user, 'the user is as it was');
        assert.ok(await store.getSessionAndUser('session-alice'), 'the session survived');
        assert.ok(await store.findUserByToken(resetHash, 'reset_password', T0), 'the reset token was not spent');
        assert.deepEqual(
          (await store.listMessages()).map((entry) => entry.id),
          [taken.id],
        );
      });

      it('claims due messages oldest first, under a lease, counting the attempt', async () => {
        const { user } = await registered('alice');
        const first = message('verification', {
          createdAt: new Date(T0.getTime() - 2000),
          sealedToken: 'sealed-first',
        });
        const second = message('emailVerified', { createdAt: new Date(T0.getTime() - 1000) });
        const later = message('passwordChanged', { createdAt: new Date(T0.getTime() + 1000) });
        for (const queued of [later, second, first]) assert.ok(await store.enqueueMessage(user.id, queued));

        const lease = new Date(T0.getTime() + 60_000);
        const claimed = await store.claimDueMessages(T0, lease, 10);
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
        const listed = (await store.listMessages()).find((entry) => entry.id === first.id);
        assert.deepEqual([listed?.claimed, listed?.nextAttemptAt, listed?.attempts], [true, lease, 1]);

        const at = (ms: number) => new Date(T0.getTime() + ms);
        assert.deepEqual(
          await store.claimDueMessages(at(999), lease, 10),
          [],
          'held ones are not due; the later one not yet',
        );
        const afterLater = await store.claimDueMessages(at(1000), lease, 10);
        assert.deepEqual(
          afterLater.map((entry) => entry.id),
          [later.id],
          'the later message, once due',
        );
        assert.deepEqual(
          await store.claimDueMessages(new Date(lease.getTime() - 1), lease, 10),
          [],
          'nothing while leased',
        );

        // A worker that died holding its claim: once the lease runs out, the message is claimed again.
        const again = await store.claimDueMessages(lease, new Date(lease.getTime() + 60_000), 1);
        assert.deepEqual(
          again.map((entry) => [entry.id, entry.attempts]),
          [[first.id, 2]],
        );
        assert.notEqual(again[0].claimId, claimed[0].claimId);
        assert.equal(
          await store.markMessageRetry(first.id, claimed[0].claimId, DAY_LATER, 'Error', lease),
          false,
          'stale claim',
        );
        assert.equal(await store.markMessageFailed(first.id, claimed[0].claimId, 'Error', lease), false, 'stale claim');
        assert.equal(await store.markMessageRetry(first.id, again[0].claimId, DAY_LATER, 'Error:ESOCKET', lease), true);
      });

      it('records outcomes: sent and failed erase the sealed token; a retry waits, unclaimed, with the code', async () => {
        const { user } = await registered('alice');
        const [toSend, toRetry, toFail] = [message('verification'), message('passwordReset'), message('verification')];
        for (const queued of [toSend, toRetry, toFail]) await store.enqueueMessage(user.id, queued);
        const claims = new Map((await store.claimDueMessages(T0, HOUR_LATER, 10)).map((c) => [c.id, c.claimId]));
        const later = new Date(T0.getTime() + 5000);

        assert.equal(await store.markMessageSent(toSend.id, later), true);
        assert.equal(await store.markMessageSent(toSend.id, later), false, 'not pending any more');
        assert.equal(
          await store.markMessageRetry(toRetry.id, claims.get(toRetry.id)!, HOUR_LATER, 'Error:ETIMEDOUT', later),
          true,
        );
        assert.equal(
          await store.markMessageFailed(toFail.id, claims.get(toFail.id)!, 'EmailDeliveryError:EENVELOPE:550', later),
          true,
        );
        assert.equal(await store.markMessageFailed(toFail.id, claims.get(toFail.id)!, 'again', later), false);

        const byId = new Map((await store.listMessages()).map((entry) => [entry.id, entry]));
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
        const retried = await store.claimDueMessages(HOUR_LATER, DAY_LATER, 10);
        assert.deepEqual(
          retried.map((entry) => [entry.id, entry.attempts, entry.sealedToken]),
          [[toRetry.id, 2, toRetry.sealedToken]],
        );
      });

      it('records a send whoever holds the claim: a delivery is a fact', async () => {
        const { user } = await registered('alice');
        const queued = message('emailVerified');
        await store.enqueueMessage(user.id, queued);
        const [first] = await store.claimDueMessages(T0, HOUR_LATER, 1);
        const [second] = await store.claimDueMessages(HOUR_LATER, DAY_LATER, 1);
        assert.equal(await store.markMessageSent(queued.id, HOUR_LATER), true);
        assert.equal(await store.markMessageRetry(queued.id, second.claimId, DAY_LATER, 'Error', HOUR_LATER), false);
        assert.equal((await store.listMessages())[0].status, 'sent');
        assert.ok(first.claimId !== second.claimId);
      });

      it('lists newest first, by status, up to a limit', async () => {
        const { user } = await registered('alice');
        const messages = [0, 1, 2, 3].map((i) =>
          message('emailVerified', { createdAt: new Date(T0.getTime() + i * 1000) }),
        );
        for (const queued of messages) await store.enqueueMessage(user.id, queued);
        await store.markMessageSent(messages[1].id, T0);
        assert.deepEqual(
          (await store.listMessages()).map((entry) => entry.id),
          messages.map((m) => m.id).reverse(),
        );
        assert.deepEqual(
          (await store.listMessages({ status: 'sent' })).map((entry) => entry.id),
          [messages[1].id],
        );
        assert.deepEqual(
          (await store.listMessages({ status: 'pending', limit: 2 })).map((entry) => entry.id),
          [messages[3].id, messages[2].id],
        );
        assert.deepEqual(await store.listMessages({ status: 'failed' }), []);
      });

      it('retries a failed notice, never a failed link, and hurries a waiting pending message', async () => {
        const { user } = await registered('alice');
        const [notice, link, other, waiting] = [
          message('passwordChanged'),
          message('passwordReset'),
          message('accountDeleted'),
          message('emailVerified'),
        ];
        for (const queued of [notice, link, other]) await store.enqueueMessage(user.id, queued);
        for (const claim of await store.claimDueMessages(T0, HOUR_LATER, 10)) {
          await store.markMessageFailed(claim.id, claim.claimId, 'Error', T0);
        }
        await store.enqueueMessage(user.id, waiting);
        const [held] = await store.claimDueMessages(T0, HOUR_LATER, 1);
        await store.markMessageRetry(held.id, held.claimId, DAY_LATER, 'Error', T0);
        const now = new Date(T0.getTime() + 1000);
        const giveUp = new Date(now.getTime() + HOUR);

        assert.equal(await store.retryMessages({ id: link.id }, now, giveUp), 0, 'its token is gone');
        assert.equal(await store.retryMessages({ id: notice.id }, now, giveUp), 1);
        assert.equal(await store.retryMessages({ status: 'failed' }, now, giveUp), 1, 'the other notice only');
        assert.equal(await store.retryMessages({ id: waiting.id }, now, giveUp), 1);
        assert.equal(await store.retryMessages({ id: 'no-such-id' }, now, giveUp), 0);

        const byId = new Map((await store.listMessages()).map((entry) => [entry.id, entry]));
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
        const [claimed] = await store.claimDueMessages(now, HOUR_LATER, 1);
        assert.equal(await store.retryMessages({ id: claimed.id }, now, giveUp), 0);
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
        await store.replaceToken(token(alice.user.id, 'reset_password', HOUR_LATER, 'reset-1'), held);
        const [claim] = await store.claimDueMessages(T0, HOUR_LATER, 1);
        assert.equal(claim.id, held.id);
        await store.replaceToken(token(alice.user.id, 'reset_password', HOUR_LATER, 'reset-2'), waiting);
        await store.enqueueMessage(alice.user.id, notice);
        await store.replaceToken(token(bob.user.id, 'reset_password', HOUR_LATER, 'reset-bob'), bobs);
        const newest = message('passwordReset', { createdAt: new Date(T0.getTime() + 1000) });
        await store.replaceToken(token(alice.user.id, 'reset_password', HOUR_LATER, 'reset-3'), newest);

        const byId = new Map((await store.listMessages()).map((entry) => [entry.id, entry]));
        assert.deepEqual(
          [byId.get(waiting.id)!.status, byId.get(waiting.id)!.lastError, byId.get(waiting.id)!.hasToken],
          ['failed', 'SUPERSEDED', false],
        );
        for (const untouched of [held, notice, bobs, newest]) assert.equal(byId.get(untouched.id)!.status, 'pending');
      });

      it('deleteExpired removes sent and failed messages last changed by the cutoff, never pending ones', async () => {
        const { user } = await registered('alice');
        const [oldSent, oldFailed, recentSent, pending] = [0, 1, 2, 3].map(() => message('emailVerified'));
        for (const queued of [oldSent, oldFailed, recentSent, pending]) await store.enqueueMessage(user.id, queued);
        const claims = new Map((await store.claimDueMessages(T0, T0, 10)).map((c) => [c.id, c.claimId]));
        await store.markMessageSent(oldSent.id, T0);
        await store.markMessageFailed(oldFailed.id, claims.get(oldFailed.id)!, 'Error', T0);
        await store.markMessageSent(recentSent.id, HOUR_LATER);

        const cutoffs = { now: T0, sessionIdleBefore: T0 };
        assert.equal(await store.deleteExpired(cutoffs), 0, 'without a cutoff the outbox is left alone');
        assert.equal(await store.deleteExpired({ ...cutoffs, outboxChangedBefore: T0 }), 2);
        assert.deepEqual(
          (await store.listMessages()).map((entry) => entry.id).sort(),
          [recentSent.id, pending.id].sort(),
        );
        assert.equal(
          await store.deleteExpired({ ...cutoffs, outboxChangedBefore: DAY_LATER }),
          1,
          'pending messages stay',
        );
      });

      it('concurrent claims never hand out one message twice', async () => {
        const { user } = await registered('alice');
        const queued = Array.from({ length: 24 }, () => message('emailVerified'));
        for (const m of queued) await store.enqueueMessage(user.id, m);
        const batches = fulfilled(
          await Promise.allSettled(Array.from({ length: 8 }, () => store.claimDueMessages(T0, HOUR_LATER, 5))),
        );
        const claimed = batches.flat().map((entry) => entry.id);
        assert.equal(new Set(claimed).size, claimed.length, 'a message was claimed twice');
        const rest = await store.claimDueMessages(T0, HOUR_LATER, 100);
        assert.deepEqual([...claimed, ...rest.map((entry) => entry.id)].sort(), queued.map((m) => m.id).sort());
      });
    });

    describe('atomic couplings, as concurrent readers see them', () => {
      // Readers poll while the operation runs, each read one indexed query. Were the operation two separate steps,
      // some read would land between them and see the forbidden state; done atomically, none ever can.
      const ROUNDS = 10;
      const READERS = 4;

      /** Polls `forbidden` from several readers until `operation` settles; returns how many reads saw it hold. */
      async function watch(operation: () => Promise<unknown>, forbidden: () => Promise<boolean>): Promise<number> {
        let settled = false;
        let seen = 0;
        const readers = Array.from({ length: READERS }, async () => {
          do {
            if (await forbidden()) seen++;
          } while (!settled);
        });
        try {
          await operation();
        } finally {
          settled = true;
          await Promise.all(readers);
        }
        return seen;
      }

      it('a password change and the end of the sessions land together: never a new hash beside a session', async () => {
        const { user } = await registered('alice');
        let current = user.passwordHash;
        for (let round = 0; round < ROUNDS; round++) {
          await sessionFor(user.id, `round-${round}`);
          const next = `hash-${round}`;
          const seen = await watch(
            async () => assert.equal(await store.changePassword(user.id, current, next, T0), true),
            async () => (await store.getSessionAndUser(`session-round-${round}`))?.user.passwordHash === next,
          );
          assert.equal(seen, 0, `round ${round}: a session outlived the password change`);
          current = next;
        }
      });

      it('a reset and the end of the sessions land together: never a new hash beside a session', async () => {
        const { user } = await registered('alice');
        for (let round = 0; round < ROUNDS; round++) {
          await sessionFor(user.id, `round-${round}`);
          const resetHash = await resetTokenFor(user.id, `round-${round}`);
          const next = `hash-${round}`;
          const seen = await watch(
            async () => assert.ok(await store.resetPassword(resetHash, next, T0)),
            async () => (await store.getSessionAndUser(`session-round-${round}`))?.user.passwordHash === next,
          );
          assert.equal(seen, 0, `round ${round}: a session outlived the reset`);
        }
      });

      it('a verification and its notice land together: never one without the other', async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const { user, verificationHash } = await registered(`user-${round}`);
          const notice = message('emailVerified');
          const queued = async () =>
            (await store.listMessages({ status: 'pending' })).some((entry) => entry.id === notice.id);
          const verified = async () => (await store.findUserById(user.id))?.verified === true;
          const seen = await watch(
            async () => assert.ok(await store.verifyEmail(verificationHash, T0, notice)),
            async () => ((await verified()) && !(await queued())) || ((await queued()) && !(await verified())),
          );
          assert.equal(seen, 0, `round ${round}: the verification and its notice were committed separately`);
        }
      });

      it('a deletion and its notice land together: never one without the other', async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const { user } = await registered(`user-${round}`);
          const notice = message('accountDeleted');
          const queued = async () =>
            (await store.listMessages({ status: 'pending' })).some((entry) => entry.id === notice.id);
          const gone = async () => (await store.findUserById(user.id)) === null;
          const seen = await watch(
            async () => assert.equal(await store.deleteUser(user.id, notice), true),
            async () => ((await gone()) && !(await queued())) || ((await queued()) && !(await gone())),
          );
          assert.equal(seen, 0, `round ${round}: the deletion and its notice were committed separately`);
        }
      });

      it('a deletion and the end of the grants land together: never one without the other', async () => {
        await store.createRole('admin');
        for (let round = 0; round < ROUNDS; round++) {
          const { user } = await registered(`user-${round}`);
          await store.grantRole(user.id, 'admin');
          const seen = await watch(
            async () => assert.equal(await store.deleteUser(user.id), true),
            async () => {
              // Read in both orders: once the user is gone the grants must be too, and while the grants are there, so
              // is the user. (The deletion lands between two reads at most once, and then in the allowed direction.)
              const userGone = (await store.findUserById(user.id)) === null;
              const grantsLeft = (await store.listUserRoles(user.id)).length > 0;
              const grantsGone = (await store.listUserRoles(user.id)).length === 0;
              const userThere = (await store.findUserById(user.id)) !== null;
              return (userGone && grantsLeft) || (grantsGone && userThere);
            },
          );
          assert.equal(seen, 0, `round ${round}: the user and their grants were deleted separately`);
        }
      });
    });

    describe('races', () => {
      const RACERS = 20;

      it(`${RACERS} concurrent registrations of one username: one wins, the others conflict, none throws`, async () => {
        const racers = Array.from({ length: RACERS }, (_, i) =>
          newUser(`racer-${i}`, { username: i % 2 ? 'Racer' : 'RACER', usernameKey: 'racer' }),
        );
        const settled = await Promise.allSettled(
          racers.map((user) => store.createUser(user, token(user.id, 'verify_email', HOUR_LATER, `verify-${user.id}`))),
        );

        const results = fulfilled(settled);
        const winners = results.filter((result) => result.ok);
        assert.equal(winners.length, 1);
        assert.deepEqual(
          results.filter((result) => !result.ok),
          Array.from({ length: RACERS - 1 }, () => ({ ok: false, conflict: 'username' })),
        );
        const winner = winners[0] as { ok: true; user: StoredUser };
        assert.equal((await store.findUserByUsernameKey('racer'))?.id, winner.user.id);
        const losers = racers.filter((user) => user.id !== winner.user.id);
        for (const loser of losers) assert.equal(await store.findUserById(loser.id), null);
      });

      it(`${RACERS} registrations of one address all stand; confirming them all at once leaves exactly one owner`, async () => {
        const racers = Array.from({ length: RACERS }, (_, i) =>
          newUser(`racer-${i}`, {
            email: i % 2 ? 'Same@Example.com' : 'same@EXAMPLE.com',
            emailKey: 'same@example.com',
          }),
        );
        const created = fulfilled(
          await Promise.allSettled(
            racers.map((user) =>
              store.createUser(user, token(user.id, 'verify_email', HOUR_LATER, `verify-${user.id}`)),
            ),
          ),
        );
        assert.ok(created.every((result) => result.ok && !result.addressOwned));

        const confirmed = fulfilled(
          await Promise.allSettled(racers.map((user) => store.verifyEmail(`verify-${user.id}`, T0))),
        );
        const owners = confirmed.filter((user): user is StoredUser => user !== null);
        assert.equal(owners.length, 1, 'exactly one confirmation wins');
        assert.equal((await store.findVerifiedUserByEmailKey('same@example.com'))?.id, owners[0].id);
        assert.deepEqual(await store.findUnverifiedUsersByEmailKey('same@example.com', T0_MINUS_1, 100), []);
        for (const loser of racers.filter((user) => user.id !== owners[0].id)) {
          assert.equal(await store.findUserById(loser.id), null);
        }
      });

      it(`${RACERS} concurrent verifyEmail calls with one token: exactly one succeeds`, async () => {
        const { verificationHash } = await registered('alice');
        const results = fulfilled(
          await Promise.allSettled(Array.from({ length: RACERS }, () => store.verifyEmail(verificationHash, T0))),
        );
        assert.equal(results.filter((user) => user !== null).length, 1);
      });

      it(`${RACERS} concurrent resetPassword calls with one token: one succeeds, and its hash is stored`, async () => {
        const { user } = await registered('alice');
        const resetHash = await resetTokenFor(user.id, 'alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, (_, i) => store.resetPassword(resetHash, `hash-from-${i}`, T0)),
          ),
        );

        const winners = results.filter((result): result is StoredUser => result !== null);
        assert.equal(winners.length, 1);
        assert.equal((await store.findUserById(user.id))?.passwordHash, winners[0].passwordHash);
      });

      it(`${RACERS} concurrent changePassword calls from one expected hash: exactly one succeeds`, async () => {
        const { user } = await registered('alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: RACERS }, (_, i) =>
              store.changePassword(user.id, user.passwordHash, `hash-from-${i}`, T0),
            ),
          ),
        );

        assert.equal(results.filter(Boolean).length, 1);
        const winner = results.indexOf(true);
        assert.equal((await store.findUserById(user.id))?.passwordHash, `hash-from-${winner}`);
      });

      it('concurrent role and permission creation and grants of one name: one creation, no throw', async () => {
        const { user } = await registered('alice');
        const created = fulfilled(
          await Promise.allSettled(Array.from({ length: RACERS }, () => store.createRole('admin'))),
        );
        assert.equal(created.filter(Boolean).length, 1);
        const granted = fulfilled(
          await Promise.allSettled(Array.from({ length: RACERS }, () => store.grantRole(user.id, 'admin'))),
        );
        assert.ok(granted.every((result) => result === 'ok'));
        assert.deepEqual(await store.listUserRoles(user.id), ['admin']);
      });
    });
  });
}

interface Registered {
  user: StoredUser;
  verificationHash: string;
}

const HOUR = 3_600_000;
const T0 = new Date('2030-01-01T00:00:00.000Z');
const HOUR_LATER = new Date(T0.getTime() + HOUR);
const DAY_LATER = new Date(T0.getTime() + 24 * HOUR);
/** "Created after" this includes every user created at T0. */
const T0_MINUS_1 = new Date(T0.getTime() - 1);

function newUser(label: string, overrides: Partial<NewUser> = {}): NewUser {
  return {
    id: randomUUID(),
    username: label,
    usernameKey: label.toLowerCase(),
    email: `${label}@example.com`,
    emailKey: `${label.toLowerCase()}@example.com`,
    passwordHash: `$argon2id$fake$${label}`,
    createdAt: new Date(T0),
    ...overrides,
  };
}

/** A message as the core would queue it, created at T0 and given up a day later; link kinds carry a sealed token. */
function message(kind: OutboxKind, overrides: Partial<NewOutboxMessage> = {}): NewOutboxMessage {
  const id = randomUUID();
  return {
    id,
    kind,
    sealedToken: carriesLink(kind) ? `v1.sealed-${id}` : null,
    createdAt: new Date(T0),
    giveUpAt: new Date(DAY_LATER),
    ...overrides,
  };
}

/** The fields an outcome changes: status, hasToken, claimed, sentAt, lastError, and nextAttemptAt while pending. */
function pick(entry: OutboxEntry): unknown[] {
  return [
    entry.status,
    entry.hasToken,
    entry.claimed,
    entry.sentAt,
    entry.lastError,
    entry.status === 'pending' ? entry.nextAttemptAt : null,
  ];
}

function token(userId: string, purpose: TokenPurpose, expiresAt: Date, tokenHash: string): StoredToken {
  return { tokenHash, userId, purpose, expiresAt: new Date(expiresAt) };
}

/** The values of settled promises; fails the test, with the first reason, if any of them rejected. */
function fulfilled<T>(settled: PromiseSettledResult<T>[]): T[] {
  const rejected = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (rejected) assert.fail(`a concurrent call threw: ${String(rejected.reason)}`);
  return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
}
