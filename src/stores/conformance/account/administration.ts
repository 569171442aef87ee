import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { StoredUser, UserListQuery, UserStoreTransaction } from '../../../services/user-store';
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
  const write = <T>(work: (tx: UserStoreTransaction) => Promise<T>): Promise<T> => suite.store.transaction(work);
  /** A login's write, as the core makes it. */
  const login = (session: ReturnType<typeof suite.sessionRow>) =>
    suite.store.transaction((tx) => tx.sessions.create(session), { durable: false });
  /** `users.delete` as the administration asks it, its outcome `deleted` spelt `ok` as the other removals answer. */
  const deleteAsAdmin = async (userId: string, keepLastHolderOf?: string) => {
    const { outcome } = await write((tx) => tx.users.delete(userId, T0, { keepLastHolderOf }));
    return outcome === 'deleted' ? 'ok' : outcome;
  };
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
  const list = async (query: Partial<UserListQuery>) => idsOf(await store().admin.listUsers({ limit: 100, ...query }));
  const admins = async (...labels: string[]): Promise<StoredUser[]> => {
    await write((tx) => tx.access.createRole(ADMIN));
    const users: StoredUser[] = [];
    for (const label of labels) {
      const { user } = await registered(label);
      assert.equal(await write((tx) => tx.access.grantRole(user.id, ADMIN)), 'ok');
      users.push(user);
    }
    return users;
  };

  describe('administration', () => {
    describe('disabled accounts', () => {
      it('a new user is enabled; users.disable sets disabledAt and ends every session, token, change and challenge', async () => {
        const { user, verificationHash } = await registered('alice');
        assert.equal((await store().users.findById(user.id))?.disabledAt, null);
        const session = await sessionFor(user.id, 's1');
        await sessionFor(user.id, 's2');
        const reset = await resetTokenFor(user.id, 'alice');
        const requested = await write((tx) =>
          tx.emailChanges.request(
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
            session.tokenHash,
          ),
        );
        assert.equal(requested.ok, true);
        await write((tx) =>
          tx.loginChallenges.create({
            tokenHash: 'challenge-1',
            userId: user.id,
            credentialEpoch: 0,
            attempts: 0,
            createdAt: new Date(T0),
            expiresAt: new Date(HOUR_LATER),
            ip: null,
            userAgent: null,
            firstFactor: 'pwd',
          }),
        );
        const bob = await registered('bob');
        await sessionFor(bob.user.id, 'bob');

        assert.equal(await write((tx) => tx.users.disable(user.id, at(5))), 'ok');

        const disabled = await store().users.findById(user.id);
        assert.deepEqual(disabled?.disabledAt, at(5));
        assert.deepEqual(disabled?.updatedAt, at(5));
        assert.deepEqual(await store().sessions.list(user.id), []);
        assert.equal(await store().sessions.findWithUser(session.tokenHash), null);
        assert.equal(await store().tokens.findUser(verificationHash, 'verify_email', T0), null);
        assert.equal(await store().tokens.findUser(reset, 'reset_password', T0), null);
        assert.equal(await store().emailChanges.find('change-1', T0), null);
        assert.equal(await write((tx) => tx.loginChallenges.takeAttempt('challenge-1', T0, 5)), null);
        assert.ok(await store().sessions.findWithUser('session-bob'), 'other users keep theirs');
      });

      it('a disabled user gets no session and no token; users.enable lets it sign in again', async () => {
        const { user } = await registered('alice');
        assert.equal(await write((tx) => tx.users.disable(user.id, at(1))), 'ok');
        assert.equal(await login(suite.sessionRow(user.id, 'late')), false);
        const link = message('passwordReset');
        const replaced = await write(async (tx) => {
          const to = await tx.tokens.replace(token(user.id, 'reset_password', HOUR_LATER, 'reset-late'), {
            kind: link.kind,
            at: link.createdAt,
          });
          if (to) await tx.outbox.add(link, to);
          return to;
        });
        assert.equal(replaced, null, 'a disabled user gets no token');
        assert.equal(await store().tokens.findUser('reset-late', 'reset_password', T0), null);
        assert.deepEqual(await store().outbox.list(), [], 'and no link for a token it did not get');

        assert.equal(await write((tx) => tx.users.enable(user.id, at(2))), 'ok');
        const enabled = await store().users.findById(user.id);
        assert.equal(enabled?.disabledAt, null);
        assert.deepEqual(enabled?.updatedAt, at(2));
        assert.equal(await login(suite.sessionRow(user.id, 'again')), true);
        assert.equal(await write((tx) => tx.users.enable(user.id, at(3))), 'ok', 'enabling an enabled user is ok');
        assert.deepEqual((await store().users.findById(user.id))?.updatedAt, at(2), 'and changes nothing');
      });

      it('disabling a disabled user is ok and keeps the first instant; unknown users are unknown_user', async () => {
        const { user } = await registered('alice');
        assert.equal(await write((tx) => tx.users.disable(user.id, at(1))), 'ok');
        assert.equal(await write((tx) => tx.users.disable(user.id, at(9))), 'ok');
        assert.deepEqual((await store().users.findById(user.id))?.disabledAt, at(1));
        assert.equal(await write((tx) => tx.users.disable(randomUUID(), at(1))), 'unknown_user');
        assert.equal(await write((tx) => tx.users.enable(randomUUID(), at(1))), 'unknown_user');
      });

      it('the request path reads disabledAt (sessions.findWithUser and every finder)', async () => {
        const { user } = await registered('alice');
        await write((tx) => tx.users.disable(user.id, at(1)));
        assert.deepEqual((await store().users.findByUsernameKey('alice'))?.disabledAt, at(1));
        assert.deepEqual((await store().admin.listUsers({ limit: 1 }))[0].disabledAt, at(1));
      });

      it(`a disable racing ${RACERS} logins leaves no session, and no login succeeds after it`, async () => {
        for (let round = 0; round < 3; round++) {
          const { user } = await registered(`alice-${round}`);
          const loginAs = (i: number) => login(suite.sessionRow(user.id, `${round}-${i}`));
          const settled = await Promise.allSettled([
            ...Array.from({ length: RACERS / 2 }, (_, i) => loginAs(i)),
            write((tx) => tx.users.disable(user.id, at(1))),
            ...Array.from({ length: RACERS / 2 }, (_, i) => loginAs(RACERS / 2 + i)),
          ]);
          const results = fulfilled(settled);
          assert.equal(results[RACERS / 2], 'ok');
          assert.deepEqual(await store().sessions.list(user.id), [], 'no session survives the disable');
          assert.equal(await login(suite.sessionRow(user.id, `${round}-after`)), false);
        }
      });
    });

    describe('ids no store could hold', () => {
      it('an id with a NUL character is an unknown user to every admin method, never an error (PostgreSQL text holds no NUL)', async () => {
        const { user } = await registered('alice');
        await write((tx) => tx.access.createRole('editor'));
        const odd = `${user.id}\u0000`;
        assert.equal(await write((tx) => tx.access.grantRole(odd, 'editor')), 'unknown_user');
        assert.equal(await write((tx) => tx.access.revokeRole(odd, 'editor')), 'unknown_user');
        assert.equal(await write((tx) => tx.users.disable(odd, at(1))), 'unknown_user');
        assert.equal(await write((tx) => tx.users.enable(odd, at(1))), 'unknown_user');
        assert.equal(await write((tx) => tx.users.markVerified(odd, at(1))), 'unknown_user');
        assert.equal(await deleteAsAdmin(odd), 'unknown_user');
        assert.equal(await write((tx) => tx.sessions.deleteAll(odd, T0)), null);
        assert.equal(await store().admin.userDetails(odd, T0, T0), null);
        assert.deepEqual(await list({ prefix: 'ali\u0000' }), []);
        assert.deepEqual(await list({ role: 'editor\u0000' }), []);
        // Nothing of alice changed.
        assert.equal((await store().users.findById(user.id))?.disabledAt, null);
      });
    });

    describe('user details', () => {
      it('admin.userDetails gathers the account, its last sign-in, roles, permissions, second factor and live sessions', async () => {
        const { user } = await registered('alice');
        const empty = await store().admin.userDetails(user.id, T0, new Date(T0.getTime() - HOUR));
        assert.deepEqual(empty, {
          user,
          lastSignInAt: null,
          roles: [],
          permissions: [],
          secondFactor: false,
          liveSessions: 0,
        });

        for (const role of ['moderator', 'editor']) await write((tx) => tx.access.createRole(role));
        for (const permission of ['posts:write', 'comments:delete', 'posts:read']) {
          await write((tx) => tx.access.createPermission(permission));
        }
        await write((tx) => tx.access.grantPermission('editor', 'posts:write'));
        await write((tx) => tx.access.grantPermission('editor', 'posts:read'));
        await write((tx) => tx.access.grantPermission('moderator', 'posts:read'));
        await write((tx) => tx.access.grantPermission('moderator', 'comments:delete'));
        await write((tx) => tx.access.grantRole(user.id, 'moderator'));
        await write((tx) => tx.access.grantRole(user.id, 'editor'));
        await sessionFor(user.id, 'live', { createdAt: at(1), lastSeenAt: at(30) });
        await sessionFor(user.id, 'latest', { createdAt: at(2), lastSeenAt: at(30) });
        await sessionFor(user.id, 'idle', { createdAt: at(0), lastSeenAt: at(0) });
        await sessionFor(user.id, 'expired', { createdAt: at(0), lastSeenAt: at(30), expiresAt: at(40) });
        await write((tx) =>
          tx.secondFactors.start({
            userId: user.id,
            sealedSecret: 'v1.s',
            enabled: false,
            createdAt: new Date(T0),
            enabledAt: null,
            lastUsedStep: null,
          }),
        );

        const waiting = await store().admin.userDetails(user.id, at(40), at(10));
        assert.deepEqual(waiting, {
          user,
          // The last session made, whatever the order of the calls: here the 'expired' one was made last.
          lastSignInAt: at(0),
          roles: ['editor', 'moderator'],
          permissions: ['comments:delete', 'posts:read', 'posts:write'],
          secondFactor: false,
          liveSessions: 2,
        });
        await write((tx) =>
          tx.secondFactors.enable({
            userId: user.id,
            sealedSecret: 'v1.s',
            step: 1,
            recoveryCodeHashes: [],
            now: T0,
          }),
        );
        assert.equal((await store().admin.userDetails(user.id, at(40), at(10)))?.secondFactor, true);
        assert.equal(await store().admin.userDetails(randomUUID(), T0, T0), null);
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
            const rows = await store().admin.listUsers({ limit: 6, after });
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
            await write((tx) => tx.users.create(user, token(user.id, 'verify_email', HOUR_LATER, `verify-new-${i}`)));
          }
        };
        await Promise.all([page(), register()]);

        assert.equal(new Set(seen).size, seen.length, 'no user is listed twice');
        for (const user of existing) assert.ok(seen.includes(user.id), 'every user that existed is listed');
        const all = newestFirst(await store().admin.listUsers({ limit: 1000 }));
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
        assert.ok(await write((tx) => tx.users.confirmAddress('verify-anna', T0)));
        assert.ok(await write((tx) => tx.users.confirmAddress('verify-carl', T0)));
        await write((tx) => tx.users.disable(bob.id, T0));
        await write((tx) => tx.access.createRole('editor'));
        await write((tx) => tx.access.grantRole(ann.id, 'editor'));
        await write((tx) => tx.access.grantRole(carl.id, 'editor'));

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

    describe('users.markVerified', () => {
      it('verifies the user as its link would: it owns the address, other registrations of it end, its links die', async () => {
        const alice = await registered('alice', { emailKey: 'shared@example.com' });
        const other = await registered('other', { emailKey: 'shared@example.com' });
        const link = message('verification');
        const linked = await write(async (tx) => {
          const to = await tx.tokens.replace(token(alice.user.id, 'verify_email', HOUR_LATER, 'verify-alice-2'), {
            kind: link.kind,
            at: link.createdAt,
          });
          if (to) await tx.outbox.add(link, to);
          return to;
        });
        assert.equal(linked?.id, alice.user.id);

        assert.equal(await write((tx) => tx.users.markVerified(alice.user.id, at(3))), 'verified');
        const verified = await store().users.findById(alice.user.id);
        assert.equal(verified?.verified, true);
        assert.deepEqual(verified?.updatedAt, at(3));
        assert.equal((await store().users.findVerifiedByEmailKey('shared@example.com'))?.id, alice.user.id);
        assert.equal(await store().users.findById(other.user.id), null);
        assert.equal(await store().tokens.findUser('verify-alice-2', 'verify_email', T0), null);
        assert.deepEqual(
          (await store().outbox.list()).map((entry) => [entry.status, entry.hasToken]),
          [['failed', false]],
        );

        assert.equal(await write((tx) => tx.users.markVerified(alice.user.id, at(4))), 'already_verified');
        assert.equal(await write((tx) => tx.users.markVerified(randomUUID(), at(4))), 'unknown_user');
        const late = await registered('late', { emailKey: 'shared@example.com' });
        assert.equal(await write((tx) => tx.users.markVerified(late.user.id, at(4))), 'address_owned');
        assert.equal((await store().users.findById(late.user.id))?.verified, false);
      });
    });

    describe('users.delete by an administrator', () => {
      it('deletes the user with everything of theirs and returns it for the message; unknown_user for a missing one', async () => {
        const { user } = await registered('alice');
        await sessionFor(user.id, 's');
        const notice = message('accountDeleted');
        const deleted = await write(async (tx) => {
          const result = await tx.users.delete(user.id, T0, { keepLastHolderOf: ADMIN });
          if (result.outcome === 'deleted') await tx.outbox.add(notice, result.user);
          return result.outcome;
        });
        assert.equal(deleted, 'deleted');
        assert.equal(await store().users.findById(user.id), null);
        assert.equal(await store().sessions.findWithUser('session-s'), null);
        assert.deepEqual(
          (await store().outbox.list()).map((entry) => [entry.id, entry.email]),
          [[notice.id, 'alice@example.com']],
        );
        assert.equal(await deleteAsAdmin(user.id), 'unknown_user');
      });
    });

    describe('the last enabled holder of a protected role', () => {
      it('revokeRole, users.disable and users.delete refuse to remove the last enabled holder', async () => {
        const [alice] = await admins('alice');
        assert.equal(
          await write((tx) => tx.access.revokeRole(alice.id, ADMIN, { keepLastHolder: true })),
          'last_holder',
        );
        assert.equal(await write((tx) => tx.users.disable(alice.id, T0, ADMIN)), 'last_holder');
        assert.equal(await deleteAsAdmin(alice.id, ADMIN), 'last_holder');
        assert.deepEqual(await store().access.listUserRoles(alice.id), [ADMIN]);
        assert.equal((await store().users.findById(alice.id))?.disabledAt, null);

        const { user: bob } = await registered('bob');
        assert.equal(await write((tx) => tx.users.disable(bob.id, T0, ADMIN)), 'ok', 'a non-holder is not protected');
        assert.equal(
          await write((tx) => tx.access.revokeRole(alice.id, ADMIN)),
          'ok',
          'without keepLastHolder, nothing is protected',
        );
      });

      it('another enabled holder lets it go; a disabled holder does not count', async () => {
        const [alice, bob, carol] = await admins('alice', 'bob', 'carol');
        assert.equal(await write((tx) => tx.users.disable(carol.id, T0)), 'ok');
        assert.equal(await write((tx) => tx.access.revokeRole(alice.id, ADMIN, { keepLastHolder: true })), 'ok');
        assert.equal(await write((tx) => tx.access.revokeRole(bob.id, ADMIN, { keepLastHolder: true })), 'last_holder');
        assert.equal(await write((tx) => tx.users.disable(bob.id, T0, ADMIN)), 'last_holder');
        assert.equal(await write((tx) => tx.users.enable(carol.id, T0)), 'ok');
        assert.equal(await write((tx) => tx.users.disable(bob.id, T0, ADMIN)), 'ok');
        assert.equal(await deleteAsAdmin(carol.id, ADMIN), 'last_holder');
      });

      for (const [label, remove] of [
        ['revokes', (userId: string) => write((tx) => tx.access.revokeRole(userId, ADMIN, { keepLastHolder: true }))],
        ['disables', (userId: string) => write((tx) => tx.users.disable(userId, T0, ADMIN))],
        ['deletions', (userId: string) => deleteAsAdmin(userId, ADMIN)],
        [
          'a revoke and a disable',
          (userId: string, index: number) =>
            index === 0
              ? write((tx) => tx.access.revokeRole(userId, ADMIN, { keepLastHolder: true }))
              : write((tx) => tx.users.disable(userId, T0, ADMIN)),
        ],
      ] as const) {
        it(`two concurrent ${label} of the last two holders: exactly one succeeds`, async () => {
          for (let round = 0; round < 5; round++) {
            const pair = await admins(`a-${round}`, `b-${round}`);
            const results = fulfilled(await Promise.allSettled(pair.map((user, index) => remove(user.id, index))));
            assert.deepEqual([...results].sort(), ['last_holder', 'ok'], `round ${round}`);
            // The others of the next round are new holders: this round's survivor keeps the role.
            for (const user of pair) await write((tx) => tx.access.revokeRole(user.id, ADMIN));
          }
        });
      }
    });
  });
}
