import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { StoredUser, UserListQuery } from '../../../services/user-store';
import {
  describe,
  it,
  fulfilled,
  message,
  newUser,
  token,
  T0,
  HOUR,
  HOUR_LATER,
  type ConformanceSuite,
} from '../support';

const ADMIN = 'gatehouse-admin';

export function describeAdministration(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor } = suite;
  const store = () => suite.store;
  const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
  const RACERS = 20;

  /** Users created at the given minutes after T0 (several may share one), named `<label>-<index>`. */
  const createdAt = async (label: string, minutes: number[]): Promise<StoredUser[]> => {
    const users: StoredUser[] = [];
    for (const [i, minute] of minutes.entries()) {
      users.push((await registered(`${label}-${i}`, { createdAt: at(minute) })).user);
    }
    return users;
  };
  const newestFirst = (users: StoredUser[]) =>
    [...users].sort(
      (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
    );
  const idsOf = (users: StoredUser[]) => users.map((user) => user.id);
  const list = async (query: Partial<UserListQuery>) => idsOf(await store().listUsers({ limit: 100, ...query }));
  const admins = async (...labels: string[]): Promise<StoredUser[]> => {
    await store().createRole(ADMIN);
    const users: StoredUser[] = [];
    for (const label of labels) {
      const { user } = await registered(label);
      assert.equal(await store().grantRole(user.id, ADMIN), 'ok');
      users.push(user);
    }
    return users;
  };

  describe('administration', () => {
    describe('disabled accounts', () => {
      it('a new user is enabled; disableUser sets disabledAt and ends every session, token, change and challenge', async () => {
        const { user, verificationHash } = await registered('alice');
        assert.equal((await store().findUserById(user.id))?.disabledAt, null);
        const session = await sessionFor(user.id, 's1');
        await sessionFor(user.id, 's2');
        const reset = await resetTokenFor(user.id, 'alice');
        await store().requestEmailChange(
          {
            tokenHash: 'change-1',
            userId: user.id,
            newEmail: 'new@example.com',
            newEmailKey: 'new@example.com',
            createdAt: new Date(T0),
            expiresAt: new Date(HOUR_LATER),
            endOtherSessions: false,
            keepSessionId: null,
          },
          {},
          session.tokenHash,
        );
        await store().createLoginChallenge({
          tokenHash: 'challenge-1',
          userId: user.id,
          passwordBinding: 'b',
          attempts: 0,
          createdAt: new Date(T0),
          expiresAt: new Date(HOUR_LATER),
          ip: null,
          userAgent: null,
        });
        const bob = await registered('bob');
        await sessionFor(bob.user.id, 'bob');

        assert.equal(await store().disableUser(user.id, at(5)), 'ok');

        const disabled = await store().findUserById(user.id);
        assert.deepEqual(disabled?.disabledAt, at(5));
        assert.deepEqual(disabled?.updatedAt, at(5));
        assert.deepEqual(await store().listSessions(user.id), []);
        assert.equal(await store().getSessionAndUser(session.tokenHash), null);
        assert.equal(await store().findUserByToken(verificationHash, 'verify_email', T0), null);
        assert.equal(await store().findUserByToken(reset, 'reset_password', T0), null);
        assert.equal(await store().findEmailChange('change-1', T0), null);
        assert.equal(await store().takeLoginChallengeAttempt('challenge-1', T0, 5), null);
        assert.ok(await store().getSessionAndUser('session-bob'), 'other users keep theirs');
      });

      it('a disabled user gets no session and no token; enableUser lets it sign in again', async () => {
        const { user } = await registered('alice');
        assert.equal(await store().disableUser(user.id, at(1)), 'ok');
        assert.equal(await store().createSession(suite.sessionRow(user.id, 'late'), user.passwordHash), false);
        await store().replaceToken(
          token(user.id, 'reset_password', HOUR_LATER, 'reset-late'),
          message('passwordReset'),
        );
        assert.equal(await store().findUserByToken('reset-late', 'reset_password', T0), null);
        assert.deepEqual(await store().listMessages(), [], 'and no link for a token it did not get');

        assert.equal(await store().enableUser(user.id, at(2)), 'ok');
        const enabled = await store().findUserById(user.id);
        assert.equal(enabled?.disabledAt, null);
        assert.deepEqual(enabled?.updatedAt, at(2));
        assert.equal(await store().createSession(suite.sessionRow(user.id, 'again'), user.passwordHash), true);
        assert.equal(await store().enableUser(user.id, at(3)), 'ok', 'enabling an enabled user is ok');
        assert.deepEqual((await store().findUserById(user.id))?.updatedAt, at(2), 'and changes nothing');
      });

      it('disabling a disabled user is ok and keeps the first instant; unknown users are unknown_user', async () => {
        const { user } = await registered('alice');
        assert.equal(await store().disableUser(user.id, at(1)), 'ok');
        assert.equal(await store().disableUser(user.id, at(9)), 'ok');
        assert.deepEqual((await store().findUserById(user.id))?.disabledAt, at(1));
        assert.equal(await store().disableUser(randomUUID(), at(1)), 'unknown_user');
        assert.equal(await store().enableUser(randomUUID(), at(1)), 'unknown_user');
      });

      it('the request path reads disabledAt (getSessionAndUser and every finder)', async () => {
        const { user } = await registered('alice');
        await store().disableUser(user.id, at(1));
        assert.deepEqual((await store().findUserByUsernameKey('alice'))?.disabledAt, at(1));
        assert.deepEqual((await store().listUsers({ limit: 1 }))[0].disabledAt, at(1));
      });

      it(`a disable racing ${RACERS} logins leaves no session, and no login succeeds after it`, async () => {
        for (let round = 0; round < 3; round++) {
          const { user } = await registered(`alice-${round}`);
          const login = (i: number) =>
            store().createSession(suite.sessionRow(user.id, `${round}-${i}`), user.passwordHash);
          const settled = await Promise.allSettled([
            ...Array.from({ length: RACERS / 2 }, (_, i) => login(i)),
            store().disableUser(user.id, at(1)),
            ...Array.from({ length: RACERS / 2 }, (_, i) => login(RACERS / 2 + i)),
          ]);
          const results = fulfilled(settled);
          assert.equal(results[RACERS / 2], 'ok');
          assert.deepEqual(await store().listSessions(user.id), [], 'no session survives the disable');
          assert.equal(
            await store().createSession(suite.sessionRow(user.id, `${round}-after`), user.passwordHash),
            false,
          );
        }
      });
    });

    describe('ids no store could hold', () => {
      it('an id with a NUL character is an unknown user to every admin method, never an error (PostgreSQL text holds no NUL)', async () => {
        const { user } = await registered('alice');
        await store().createRole('editor');
        const odd = `${user.id}\u0000`;
        assert.equal(await store().grantRole(odd, 'editor'), 'unknown_user');
        assert.equal(await store().revokeRole(odd, 'editor'), 'unknown_user');
        assert.equal(await store().disableUser(odd, at(1)), 'unknown_user');
        assert.equal(await store().enableUser(odd, at(1)), 'unknown_user');
        assert.equal(await store().markUserVerified(odd, at(1)), 'unknown_user');
        assert.equal(await store().deleteUserAsAdmin(odd), 'unknown_user');
        assert.equal(await store().deleteUserSessions(odd), 0);
        assert.equal(await store().getUserDetails(odd, T0, T0), null);
        assert.deepEqual(await list({ prefix: 'ali\u0000' }), []);
        assert.deepEqual(await list({ role: 'editor\u0000' }), []);
        // Nothing of alice changed.
        assert.equal((await store().findUserById(user.id))?.disabledAt, null);
      });
    });

    describe('user details', () => {
      it('getUserDetails gathers the account, its last sign-in, roles, permissions, second factor and live sessions', async () => {
        const { user } = await registered('alice');
        const empty = await store().getUserDetails(user.id, T0, new Date(T0.getTime() - HOUR));
        assert.deepEqual(empty, {
          user,
          lastSignInAt: null,
          roles: [],
          permissions: [],
          secondFactor: false,
          liveSessions: 0,
        });

        for (const role of ['moderator', 'editor']) await store().createRole(role);
        for (const permission of ['posts:write', 'comments:delete', 'posts:read']) {
          await store().createPermission(permission);
        }
        await store().grantPermission('editor', 'posts:write');
        await store().grantPermission('editor', 'posts:read');
        await store().grantPermission('moderator', 'posts:read');
        await store().grantPermission('moderator', 'comments:delete');
        await store().grantRole(user.id, 'moderator');
        await store().grantRole(user.id, 'editor');
        await sessionFor(user.id, 'live', { createdAt: at(1), lastSeenAt: at(30) });
        await sessionFor(user.id, 'latest', { createdAt: at(2), lastSeenAt: at(30) });
        await sessionFor(user.id, 'idle', { createdAt: at(0), lastSeenAt: at(0) });
        await sessionFor(user.id, 'expired', { createdAt: at(0), lastSeenAt: at(30), expiresAt: at(40) });
        await store().startSecondFactor({
          userId: user.id,
          sealedSecret: 'v1.s',
          enabled: false,
          createdAt: new Date(T0),
          enabledAt: null,
          lastUsedStep: null,
        });

        const waiting = await store().getUserDetails(user.id, at(40), at(10));
        assert.deepEqual(waiting, {
          user,
          // The last session made, whatever the order of the calls: here the 'expired' one was made last.
          lastSignInAt: at(0),
          roles: ['editor', 'moderator'],
          permissions: ['comments:delete', 'posts:read', 'posts:write'],
          secondFactor: false,
          liveSessions: 2,
        });
        await store().enableSecondFactor({
          userId: user.id,
          sealedSecret: 'v1.s',
          step: 1,
          recoveryCodeHashes: [],
          now: T0,
        });
        assert.equal((await store().getUserDetails(user.id, at(40), at(10)))?.secondFactor, true);
        assert.equal(await store().getUserDetails(randomUUID(), T0, T0), null);
      });
    });

    describe('the user list', () => {
      it('lists newest first (createdAt, then id, descending), at most limit', async () => {
        const users = await createdAt('user', [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]);
        assert.deepEqual(await list({}), idsOf(newestFirst(users)));
        assert.deepEqual(await list({ limit: 3 }), idsOf(newestFirst(users)).slice(0, 3));
        assert.deepEqual(await list({ limit: 0 }), []);
      });

      it('pages after a cursor with no duplicate and no skip while users are registered concurrently', async () => {
        const existing = await createdAt('old', [
          ...Array.from({ length: 40 }, (_, i) => i % 13),
          ...Array.from({ length: 10 }, () => 7),
        ]);
        const seen: string[] = [];
        const page = async () => {
          let after: UserListQuery['after'];
          for (;;) {
            const rows = await store().listUsers({ limit: 6, after });
            if (rows.length === 0) return;
            seen.push(...idsOf(rows));
            const last = rows[rows.length - 1];
            after = { createdAt: last.createdAt, id: last.id };
          }
        };
        // New registrations at every instant, newer, older and within the range being paged, while it is paged.
        const register = async () => {
          for (let i = 0; i < 30; i++) {
            const user = newUser(`new-${i}`, { createdAt: at((i * 7) % 20) });
            await store().createUser(user, token(user.id, 'verify_email', HOUR_LATER, `verify-new-${i}`));
          }
        };
        await Promise.all([page(), register()]);

        assert.equal(new Set(seen).size, seen.length, 'no user is listed twice');
        for (const user of existing) assert.ok(seen.includes(user.id), 'every user that existed is listed');
        const all = newestFirst(await store().listUsers({ limit: 1000 }));
        const order = new Map(idsOf(all).map((id, index) => [id, index]));
        for (let i = 1; i < seen.length; i++) {
          assert.ok(order.get(seen[i - 1])! < order.get(seen[i])!, 'the pages follow one order');
        }
      });

      it('filters by prefix of the username or email key, verified, disabled, role and creation range', async () => {
        const ann = (await registered('ann', { createdAt: at(1) })).user;
        const anna = (await registered('anna', { createdAt: at(2), emailKey: 'a.b@example.org' })).user;
        const bob = (await registered('bob', { createdAt: at(3), emailKey: 'anne%_@example.com' })).user;
        const carl = (await registered('carl', { createdAt: at(4) })).user;
        await store().verifyEmail('verify-anna', T0);
        await store().verifyEmail('verify-carl', T0);
        await store().disableUser(bob.id, T0);
        await store().createRole('editor');
        await store().grantRole(ann.id, 'editor');
        await store().grantRole(carl.id, 'editor');

        assert.deepEqual(await list({ prefix: 'ann' }), [bob.id, anna.id, ann.id], 'bob by his email key');
        assert.deepEqual(await list({ prefix: 'anna' }), [anna.id]);
        assert.deepEqual(await list({ prefix: 'a.' }), [anna.id]);
        assert.deepEqual(await list({ prefix: 'anne%' }), [bob.id], 'LIKE wildcards are plain characters');
        assert.deepEqual(await list({ prefix: 'an_' }), []);
        assert.deepEqual(await list({ prefix: 'ANN' }), [], 'the prefix is compared as given (keys are canonical)');
        assert.deepEqual(await list({ verified: true }), [carl.id, anna.id]);
        assert.deepEqual(await list({ verified: false }), [bob.id, ann.id]);
        assert.deepEqual(await list({ disabled: true }), [bob.id]);
        assert.deepEqual(await list({ disabled: false }), [carl.id, anna.id, ann.id]);
        assert.deepEqual(await list({ role: 'editor' }), [carl.id, ann.id]);
        assert.deepEqual(await list({ role: 'ghost' }), []);
        assert.deepEqual(await list({ createdFrom: at(2) }), [carl.id, bob.id, anna.id], 'from is inclusive');
        assert.deepEqual(await list({ createdBefore: at(3) }), [anna.id, ann.id], 'before is exclusive');
        assert.deepEqual(await list({ prefix: 'a', verified: false, createdBefore: at(4), role: 'editor' }), [ann.id]);
      });
    });

    describe('markUserVerified', () => {
      it('verifies the user as its link would: it owns the address, other registrations of it end, its links die', async () => {
        const alice = await registered('alice', { emailKey: 'shared@example.com' });
        const other = await registered('other', { emailKey: 'shared@example.com' });
        await store().replaceToken(
          token(alice.user.id, 'verify_email', HOUR_LATER, 'verify-alice-2'),
          message('verification'),
        );

        assert.equal(await store().markUserVerified(alice.user.id, at(3)), 'verified');
        const verified = await store().findUserById(alice.user.id);
        assert.equal(verified?.verified, true);
        assert.deepEqual(verified?.updatedAt, at(3));
        assert.equal((await store().findVerifiedUserByEmailKey('shared@example.com'))?.id, alice.user.id);
        assert.equal(await store().findUserById(other.user.id), null);
        assert.equal(await store().findUserByToken('verify-alice-2', 'verify_email', T0), null);
        assert.deepEqual(
          (await store().listMessages()).map((entry) => [entry.status, entry.hasToken]),
          [['failed', false]],
        );

        assert.equal(await store().markUserVerified(alice.user.id, at(4)), 'already_verified');
        assert.equal(await store().markUserVerified(randomUUID(), at(4)), 'unknown_user');
        const late = await registered('late', { emailKey: 'shared@example.com' });
        assert.equal(await store().markUserVerified(late.user.id, at(4)), 'address_owned');
        assert.equal((await store().findUserById(late.user.id))?.verified, false);
      });
    });

    describe('deleteUserAsAdmin', () => {
      it('deletes the user with everything of theirs and queues the message; unknown_user for a missing one', async () => {
        const { user } = await registered('alice');
        await sessionFor(user.id, 's');
        const notice = message('accountDeleted');
        assert.equal(await store().deleteUserAsAdmin(user.id, ADMIN, undefined, notice), 'ok');
        assert.equal(await store().findUserById(user.id), null);
        assert.equal(await store().getSessionAndUser('session-s'), null);
        assert.deepEqual(
          (await store().listMessages()).map((entry) => [entry.id, entry.email]),
          [[notice.id, 'alice@example.com']],
        );
        assert.equal(await store().deleteUserAsAdmin(user.id), 'unknown_user');
      });
    });

    describe('the last enabled holder of a protected role', () => {
      it('revokeRole, disableUser and deleteUserAsAdmin refuse to remove the last enabled holder', async () => {
        const [alice] = await admins('alice');
        assert.equal(await store().revokeRole(alice.id, ADMIN, undefined, true), 'last_holder');
        assert.equal(await store().disableUser(alice.id, T0, undefined, ADMIN), 'last_holder');
        assert.equal(await store().deleteUserAsAdmin(alice.id, ADMIN), 'last_holder');
        assert.deepEqual(await store().listUserRoles(alice.id), [ADMIN]);
        assert.equal((await store().findUserById(alice.id))?.disabledAt, null);

        const { user: bob } = await registered('bob');
        assert.equal(await store().disableUser(bob.id, T0, undefined, ADMIN), 'ok', 'a non-holder is not protected');
        assert.equal(await store().revokeRole(alice.id, ADMIN), 'ok', 'without keepLastHolder, nothing is protected');
      });

      it('another enabled holder lets it go; a disabled holder does not count', async () => {
        const [alice, bob, carol] = await admins('alice', 'bob', 'carol');
        assert.equal(await store().disableUser(carol.id, T0), 'ok');
        assert.equal(await store().revokeRole(alice.id, ADMIN, undefined, true), 'ok');
        assert.equal(await store().revokeRole(bob.id, ADMIN, undefined, true), 'last_holder');
        assert.equal(await store().disableUser(bob.id, T0, undefined, ADMIN), 'last_holder');
        assert.equal(await store().enableUser(carol.id, T0), 'ok');
        assert.equal(await store().disableUser(bob.id, T0, undefined, ADMIN), 'ok');
        assert.equal(await store().deleteUserAsAdmin(carol.id, ADMIN), 'last_holder');
      });

      for (const [label, remove] of [
        ['revokes', (userId: string) => store().revokeRole(userId, ADMIN, undefined, true)],
        ['disables', (userId: string) => store().disableUser(userId, T0, undefined, ADMIN)],
        ['deletions', (userId: string) => store().deleteUserAsAdmin(userId, ADMIN)],
        [
          'a revoke and a disable',
          (userId: string, index: number) =>
            index === 0
              ? store().revokeRole(userId, ADMIN, undefined, true)
              : store().disableUser(userId, T0, undefined, ADMIN),
        ],
      ] as const) {
        it(`two concurrent ${label} of the last two holders: exactly one succeeds`, async () => {
          for (let round = 0; round < 5; round++) {
            const pair = await admins(`a-${round}`, `b-${round}`);
            const results = fulfilled(await Promise.allSettled(pair.map((user, index) => remove(user.id, index))));
            assert.deepEqual([...results].sort(), ['last_holder', 'ok'], `round ${round}`);
            // The others of the next round are new holders: this round's survivor keeps the role.
            for (const user of pair) await store().revokeRole(user.id, ADMIN);
          }
        });
      }
    });
  });
}
