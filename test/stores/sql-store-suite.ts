import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { SqlCapabilities } from '../../src/stores/sql/sql-capabilities';
import { SqlUserStore } from '../../src/stores/sql/sql-user-store';
import type { OutboxKind } from '../../src/services/outbox-message';
import {
  CreateUserResult,
  EmailChangeResult,
  NewAuditEvent,
  NewOutboxMessage,
  StoredUser,
  UserStoreTransaction,
} from '../../src/services/user-store';
import { deletesFrom, PauseAfterQuery, stillPendingAfter } from './pause-plugin';
import {
  attemptRegistration,
  DAY_LATER,
  openSession,
  passwordOf,
  register,
  sessionRow,
  SUPERSEDES_RESETS,
  T0,
  token,
} from './sql-fixtures';

/** A login event of the user, as the core would write it. */
function auditEventOf(userId: string): NewAuditEvent & { subjectId: string } {
  return {
    id: randomUUID(),
    at: T0,
    type: 'login',
    outcome: 'success',
    actorType: 'user',
    actorId: userId,
    subjectId: userId,
    ip: null,
    requestId: null,
    details: null,
  };
}

/** What the shared SQL store tests need from one database. */
export interface SqlStoreHarness {
  /** The capabilities of the stores `open` returns in the current test. */
  capabilities(): SqlCapabilities;
  /** Prepares an empty database for the next test. */
  setUp(): Promise<void>;
  /** Opens a store on the current test's database; every call within one test reaches the same database. */
  open(): Promise<SqlUserStore>;
  /** Runs after the test's stores are closed. */
  tearDown(): Promise<void>;
  /**
   * Makes every `event` on `table` fail inside the database, as a crash or a full disk would at that step (a
   * trigger that raises 'injected failure'); resolves to the function that removes it.
   */
  failOn(store: SqlUserStore, event: 'insert' | 'update' | 'delete', table: string): Promise<() => Promise<void>>;
}

/**
 * The behaviour of the SQL store that the conformance suite cannot reach from outside: that each coupled operation is
 * one transaction (a failure injected at its last step undoes its first), that a login racing a password change or a
 * deletion cannot outlive it, and that two stores on one database (two processes, two instances) race correctly.
 */
export function describeSqlStore(name: string, harness: SqlStoreHarness): void {
  describe(`SQL store behaviour: ${name}`, function () {
    this.timeout(60_000);
    const opened: SqlUserStore[] = [];

    async function open(): Promise<SqlUserStore> {
      const store = await harness.open();
      opened.push(store);
      return store;
    }

    /** A store over the same connections whose first query matching `pauseAfter` waits for `pause.resume()`. */
    function pausing(store: SqlUserStore, pause: PauseAfterQuery): SqlUserStore {
      return new SqlUserStore(store.db.withPlugin(pause), harness.capabilities());
    }

    beforeEach(() => harness.setUp());
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await harness.tearDown();
    });

    describe('durability and schema', () => {
      it('keeps users, sessions, tokens and grants across close and reopen', async () => {
        const first = await open();
        const { user, verification } = await register(first, 'alice');
        const session = sessionRow(user.id, 'session-1');
        await first.transaction((tx) => tx.sessions.create(session));
        await first.transaction((tx) => tx.access.createRole('admin'));
        await first.transaction((tx) => tx.access.createPermission('posts:write'));
        await first.transaction((tx) => tx.access.grantPermission('admin', 'posts:write'));
        await first.transaction((tx) => tx.access.grantRole(user.id, 'admin'));
        await first.close();

        const second = await open();
        assert.deepEqual(await second.sessions.findWithUser('session-1'), { session, user });
        assert.equal(await second.access.checkPermission(user.id, 'posts:write'), 'granted');
        assert.ok(await second.transaction((tx) => tx.users.confirmAddress(verification.tokenHash, T0)));
      });

      it('enforces the unique keys in the database itself', async () => {
        const store = await open();
        const { user } = await register(store, 'alice');
        const duplicate = sql`insert into users (id, username, username_key, email, email_key, verified,
          created_at, updated_at) values ('other', 'x', ${user.usernameKey}, 'x', 'x@example.com', 0, 0, 0)`;
        await assert.rejects(duplicate.execute(store.db), (error) => harness.capabilities().isUniqueViolation(error));
      });

      it('cascades a deleted user row to its sessions, tokens, credentials and grants (foreign keys are on)', async () => {
        const store = await open();
        const { user } = await register(store, 'alice');
        await openSession(store, user.id, 's');
        await store.transaction((tx) => tx.access.createRole('admin'));
        await store.transaction((tx) => tx.access.grantRole(user.id, 'admin'));

        await sql`delete from users where id = ${user.id}`.execute(store.db);

        assert.deepEqual(
          await Promise.all(
            ['sessions', 'tokens', 'credentials', 'user_roles', 'roles'].map((table) => count(store, table)),
          ),
          [0, 0, 0, 0, 1],
        );
      });
    });

    describe('a failure at the last step of an operation undoes its first steps', () => {
      it('resetPassword: when ending the sessions fails, the password and the token are untouched', async () => {
        const store = await open();
        const { user } = await register(store, 'alice');
        await openSession(store, user.id, 's');
        const reset = token(user.id, 'reset_password', 'reset-1');
        await store.transaction((tx) => tx.tokens.replace(reset, SUPERSEDES_RESETS));

        const stopFailing = await harness.failOn(store, 'delete', 'sessions');
        await assert.rejects(
          store.transaction((tx) => tx.passwords.reset(reset.tokenHash, 'new-hash', T0)),
          /injected failure/,
        );
        await stopFailing();

        assert.equal(await store.passwords.hashOf(user.id), passwordOf(user));
        assert.ok(await store.sessions.findWithUser('s'));
        assert.ok(
          await store.transaction((tx) => tx.passwords.reset(reset.tokenHash, 'new-hash', T0)),
          'the token was not consumed',
        );
      });

      it('changePassword: when ending the sessions fails, the password is untouched', async () => {
        const store = await open();
        const { user } = await register(store, 'alice');
        await openSession(store, user.id, 's');

        const stopFailing = await harness.failOn(store, 'delete', 'sessions');
        await assert.rejects(
          store.transaction((tx) => tx.passwords.change(user.id, passwordOf(user), 'new-hash', T0)),
          /injected failure/,
        );
        await stopFailing();

        assert.equal(await store.passwords.hashOf(user.id), passwordOf(user));
        assert.ok(await store.sessions.findWithUser('s'));
      });

      it('changePassword: when ending the pending resets fails, the password and sessions are untouched', async () => {
        const store = await open();
        const { user } = await register(store, 'alice');
        await openSession(store, user.id, 's');
        await store.transaction((tx) =>
          tx.tokens.replace(token(user.id, 'reset_password', 'reset-1'), SUPERSEDES_RESETS),
        );

        const stopFailing = await harness.failOn(store, 'delete', 'tokens');
        await assert.rejects(
          store.transaction((tx) => tx.passwords.change(user.id, passwordOf(user), 'new-hash', T0)),
          /injected failure/,
        );
        await stopFailing();

        assert.equal(await store.passwords.hashOf(user.id), passwordOf(user));
        assert.ok(await store.sessions.findWithUser('s'));
      });

      it('verifyEmail: when marking the user fails, the token is not consumed', async () => {
        const store = await open();
        const { user, verification } = await register(store, 'alice');

        const stopFailing = await harness.failOn(store, 'update', 'users');
        await assert.rejects(
          store.transaction((tx) => tx.users.confirmAddress(verification.tokenHash, T0)),
          /injected failure/,
        );
        await stopFailing();

        assert.equal((await store.users.findById(user.id))?.verified, false);
        assert.ok(await store.transaction((tx) => tx.users.confirmAddress(verification.tokenHash, T0)));
      });

      it('createUser: when storing the token fails, no user is created', async () => {
        const store = await open();
        const stopFailing = await harness.failOn(store, 'insert', 'tokens');
        await assert.rejects(register(store, 'alice'), /injected failure/);
        await stopFailing();

        assert.equal(await store.users.findByUsernameKey('alice'), null);
        await register(store, 'alice');
      });

      it('deleteUser: when removing the grants fails, the user, their sessions and tokens remain', async () => {
        const store = await open();
        const { user, verification } = await register(store, 'alice');
        await openSession(store, user.id, 's');
        await store.transaction((tx) => tx.access.createRole('admin'));
        await store.transaction((tx) => tx.access.grantRole(user.id, 'admin'));

        const stopFailing = await harness.failOn(store, 'delete', 'user_roles');
        await assert.rejects(
          store.transaction((tx) => tx.users.delete(user.id, T0)),
          /injected failure/,
        );
        await stopFailing();

        assert.ok(await store.users.findById(user.id));
        assert.ok(await store.sessions.findWithUser('s'));
        assert.ok(await store.tokens.findUser(verification.tokenHash, 'verify_email', T0));
        assert.equal(await store.access.checkRole(user.id, 'admin'), 'granted');
        assert.equal((await store.transaction((tx) => tx.users.delete(user.id, T0))).outcome, 'deleted');
      });

      it('disableUser: when writing its audit event fails, the user stays enabled with its sessions', async () => {
        const store = await open();
        const { user } = await register(store, 'alice');
        await openSession(store, user.id, 's');

        const stopFailing = await harness.failOn(store, 'insert', 'audit_events');
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.users.disable(user.id, T0);
            await tx.audit.add(auditEventOf(user.id));
          }),
          /injected failure/,
        );
        await stopFailing();

        assert.equal((await store.users.findById(user.id))?.disabledAt, null);
        assert.ok(await store.sessions.findWithUser('s'));
        assert.deepEqual(await store.audit.list({ limit: 10 }), []);
      });

      it('createSession: when writing its audit event fails, no session and no last sign-in remain', async () => {
        const store = await open();
        const { user } = await register(store, 'alice');

        const stopFailing = await harness.failOn(store, 'insert', 'audit_events');
        await assert.rejects(
          store.transaction(async (tx) => {
            await tx.sessions.create(sessionRow(user.id, 's'));
            await tx.audit.add(auditEventOf(user.id));
          }),
          /injected failure/,
        );
        await stopFailing();

        assert.equal(await store.sessions.findWithUser('s'), null);
        assert.equal((await store.admin.userDetails(user.id, T0, T0))?.lastSignInAt, null);
      });

      it('the store keeps working after a failed transaction', async () => {
        const store = await open();
        const stopFailing = await harness.failOn(store, 'insert', 'roles');
        await assert.rejects(store.transaction((tx) => tx.access.createRole('admin')));
        await stopFailing();
        assert.equal(await store.transaction((tx) => tx.access.createRole('admin')), true);
      });
    });

    describe('a login racing a password change or a deletion of its user', () => {
      // The change is held just before it commits, with everything it wrote in place; a login that verified the old
      // password then tries to create its session from a second store, as another instance would.

      // Each pauses after its last statement: for a reset, the second DELETE FROM tokens (the first claims the token).
      for (const [operation, lastTable, occurrence, act] of [
        [
          'changePassword',
          'tokens',
          1,
          (s: SqlUserStore, u: StoredUser) =>
            s.transaction((tx) => tx.passwords.change(u.id, passwordOf(u), 'new-hash', T0)),
        ],
        [
          'resetPassword',
          'tokens',
          2,
          (s: SqlUserStore) => s.transaction((tx) => tx.passwords.reset('reset-1', 'new-hash', T0)),
        ],
        [
          'deleteUser',
          'user_roles',
          1,
          (s: SqlUserStore, u: StoredUser) =>
            s.transaction(async (tx) => (await tx.users.delete(u.id, T0)).outcome === 'deleted'),
        ],
      ] as const) {
        it(`${operation}: the login waits for it, then creates no session (and does not fail)`, async () => {
          const store = await open();
          const other = await open();
          const { user } = await register(store, 'alice');
          await store.transaction((tx) =>
            tx.tokens.replace(token(user.id, 'reset_password', 'reset-1'), SUPERSEDES_RESETS),
          );
          const pause = new PauseAfterQuery(deletesFrom(lastTable), occurrence);

          const change = act(pausing(store, pause), user);
          await pause.reached;
          const login = other.transaction((tx) => tx.sessions.create(sessionRow(user.id, 'late')));
          const waited = await stillPendingAfter(login, 200);
          pause.resume();

          assert.ok(await change);
          assert.equal(await login, false, 'the session of the old password was refused');
          assert.equal(await other.sessions.findWithUser('late'), null);
          assert.ok(waited, 'the login waited for the change to commit');
        });
      }
      it('a session of an earlier credential state fails every read of every store on the database', async () => {
        const store = await open();
        const other = await open();
        const { user } = await register(store, 'alice');
        assert.ok(await store.transaction((tx) => tx.sessions.create(sessionRow(user.id, 'racing'))));
        assert.ok(await other.sessions.check('racing'));
        // What a sign-in racing a change of credentials would leave, were its conditional insert ever to slip.
        await store.db.updateTable('users').set({ credential_epoch: 1 }).where('id', '=', user.id).execute();
        for (const s of [store, other]) {
          assert.equal(await s.sessions.check('racing'), null);
          assert.equal(await s.sessions.check('racing', { kind: 'role', name: 'admin' }), null);
          assert.equal(await s.sessions.check('racing', { kind: 'permission', name: 'users.read' }), null);
          const membership = { kind: 'membership', organizationId: '00000000-0000-4000-8000-000000000000' } as const;
          assert.equal(await s.sessions.check('racing', membership), null);
          assert.equal(await s.sessions.findWithUser('racing'), null);
        }
      });
    });

    describe('two stores on one database (as two processes or instances would be)', () => {
      it('the last two owners removing each other from both stores at once, and invitation accepts: one of each', async () => {
        const stores = [await open(), await open()];
        const alice = (await register(stores[0], 'alice')).user.id;
        const bob = (await register(stores[1], 'bob')).user.id;
        const carol = (await register(stores[0], 'carol')).user.id;
        const organizationId = '00000000-0000-4000-8000-00000000000a';
        const member = (userId: string, role: string) => ({
          organizationId,
          userId,
          role,
          createdAt: T0,
          updatedAt: T0,
        });
        await stores[0].transaction(async (tx) => {
          await tx.organizations.create({
            id: organizationId,
            name: 'Acme',
            createdBy: alice,
            createdAt: T0,
            updatedAt: T0,
          });
          await tx.organizations.addMember(member(alice, 'owner'));
          await tx.organizations.addMember(member(bob, 'owner'));
          await tx.organizations.createInvitation({
            id: '00000000-0000-4000-8000-00000000000b',
            organizationId,
            email: 'carol@example.com',
            emailKey: 'carol@example.com',
            role: 'member',
            tokenHash: 'invitation-carol',
            invitedBy: alice,
            createdAt: T0,
            expiresAt: DAY_LATER,
          });
        });
        const remove = (store: SqlUserStore, actor: string, target: string) =>
          store.transaction(async (tx) => {
            await tx.organizations.lockUser(actor);
            await tx.organizations.lock(organizationId);
            if ((await tx.organizations.countMembersWithRole(organizationId, 'owner')) <= 1) return 'last_owner';
            return (await tx.organizations.removeMember(organizationId, target)) ? 'removed' : 'gone';
          });
        const accept = (store: SqlUserStore) =>
          store.transaction(async (tx) => {
            await tx.organizations.lockUser(carol);
            await tx.organizations.lock(organizationId);
            const invitation = await tx.organizations.consumeInvitation('invitation-carol', T0);
            return invitation ? tx.organizations.addMember(member(carol, invitation.role)) : 'invalid';
          });
        const results = fulfilled(
          await Promise.allSettled([
            remove(stores[0], alice, bob),
            remove(stores[1], bob, alice),
            accept(stores[0]),
            accept(stores[1]),
          ]),
        );
        assert.equal(results.length, 4, 'none throws');
        assert.deepEqual([...results.slice(0, 2)].sort(), ['last_owner', 'removed']);
        assert.deepEqual([...results.slice(2)].sort(), ['added', 'invalid']);
        assert.equal(await stores[1].organizations.countMembersWithRole(organizationId, 'owner'), 1);
        assert.equal(await stores[1].organizations.countMembers(organizationId), 2);
      });

      it('20 concurrent registrations of one username across both: exactly one wins, nothing throws', async () => {
        const stores = [await open(), await open()];
        const outcomes = fulfilled(
          await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              attemptRegistration(stores[i % 2], `racer-${i}`, { usernameKey: 'racer' }),
            ),
          ),
        );
        assert.equal(outcomes.filter((outcome) => outcome.ok).length, 1);
        assert.ok(outcomes.every((outcome) => outcome.ok || outcome.conflict === 'username'));
      });

      it('20 registrations of one address across both all stand; confirming them all at once leaves one owner', async () => {
        const stores = [await open(), await open()];
        const outcomes: CreateUserResult[] = fulfilled(
          await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              attemptRegistration(stores[i % 2], `racer-${i}`, {
                email: i % 2 ? 'Same@Example.com' : 'same@EXAMPLE.COM',
                emailKey: 'same@example.com',
              }),
            ),
          ),
        );
        assert.ok(outcomes.every((outcome) => outcome.ok));

        const confirmed = fulfilled(
          await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              stores[i % 2].transaction((tx) => tx.users.confirmAddress(`verify-racer-${i}`, T0)),
            ),
          ),
        );
        const owners = confirmed.filter((user) => user !== null);
        assert.equal(owners.length, 1, 'exactly one confirmation wins');
        assert.equal((await stores[1].users.findVerifiedByEmailKey('same@example.com'))?.id, owners[0]!.id);
        assert.deepEqual(await count(stores[0], 'users'), 1, 'the other registrations ended');
      });

      it('20 concurrent uses of one reset token across both: exactly one succeeds', async () => {
        const stores = [await open(), await open()];
        const { user } = await register(stores[0], 'alice');
        await stores[0].transaction((tx) =>
          tx.tokens.replace(token(user.id, 'reset_password', 'reset-1'), SUPERSEDES_RESETS),
        );

        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              stores[i % 2].transaction((tx) => tx.passwords.reset('reset-1', `hash-${i}`, T0)),
            ),
          ),
        );
        assert.equal(results.filter((result) => result !== null).length, 1);
        const winner = results.findIndex((result) => result !== null);
        assert.equal(await stores[1].passwords.hashOf(user.id), `hash-${winner}`);
      });

      it('20 concurrent uses of one verification token across both: exactly one succeeds', async () => {
        const stores = [await open(), await open()];
        const { verification } = await register(stores[0], 'alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              stores[i % 2].transaction((tx) => tx.users.confirmAddress(verification.tokenHash, T0)),
            ),
          ),
        );
        assert.equal(results.filter((result) => result !== null).length, 1);
      });

      it('each sees what the other committed', async () => {
        const [a, b] = [await open(), await open()];
        const { user } = await register(a, 'alice');
        await openSession(b, user.id, 's');
        assert.equal((await a.sessions.findWithUser('s'))?.user.id, user.id);
        await b.transaction((tx) => tx.sessions.delete('s'));
        assert.equal(await a.sessions.findWithUser('s'), null);
      });

      it('a deletion racing a reset, a change, a login and new tokens: none throws, nothing is left', async () => {
        // Lock orders differ between these (a reset claims its token and then the user; a deletion takes the user
        // and then cascades to the tokens), which is where row-locking databases deadlock.
        const stores = [await open(), await open()];
        for (let round = 0; round < 8; round++) {
          const { user, verification } = await register(stores[0], `alice-${round}`);
          await stores[0].transaction((tx) =>
            tx.tokens.replace(token(user.id, 'reset_password', `reset-${round}`), SUPERSEDES_RESETS),
          );
          await openSession(stores[0], user.id, `s-${round}`);
          const on = (i: number) => stores[(i + round) % 2];

          fulfilled(
            await Promise.allSettled<unknown>([
              on(0).transaction((tx) => tx.passwords.reset(`reset-${round}`, 'hash-reset', T0)),
              on(1).transaction((tx) => tx.passwords.change(user.id, passwordOf(user), 'hash-change', T0)),
              on(2).transaction((tx) => tx.users.confirmAddress(verification.tokenHash, T0)),
              on(3).transaction((tx) => tx.sessions.create(sessionRow(user.id, `late-${round}`))),
              on(4)
                .transaction((tx) =>
                  tx.tokens.replace(token(user.id, 'reset_password', `reset-again-${round}`), SUPERSEDES_RESETS),
                )
                .catch(ignoreUnknownUser),
              on(5).transaction((tx) => tx.users.delete(user.id, T0)),
              on(6).sessions.touch(`s-${round}`, DAY_LATER),
            ]),
          );
          assert.equal(await stores[1].users.findById(user.id), null);
        }
        assert.deepEqual(
          await Promise.all(['users', 'sessions', 'tokens'].map((table) => count(stores[0], table))),
          [0, 0, 0],
        );
      });
    });

    describe('email changes across two stores on one database', () => {
      /** A verified user with session `s-<label>`, asking for a change to `address` (token `change-<label>`). */
      async function asking(store: SqlUserStore, label: string, address: string): Promise<StoredUser> {
        const { verification } = await register(store, label);
        const user = await store.transaction((tx) => tx.users.confirmAddress(verification.tokenHash, T0));
        assert.ok(user);
        await openSession(store, user.id, `s-${label}`);
        const requested = await store.transaction((tx) =>
          tx.emailChanges.request(
            {
              tokenHash: `change-${label}`,
              userId: user.id,
              newEmail: address,
              newEmailKey: address.toLowerCase(),
              createdAt: T0,
              expiresAt: DAY_LATER,
              endOtherSessions: true,
              keepSessionId: `id-of-s-${label}`,
            },
            `s-${label}`,
          ),
        );
        assert.ok(requested.ok && requested.owner === null, 'stored, and nobody owns the address');
        return user;
      }

      it('20 concurrent confirmations of one change across both: exactly one changes the address', async () => {
        const stores = [await open(), await open()];
        await asking(stores[0], 'alice', 'Alice@New.example');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              stores[i % 2].transaction((tx) => tx.emailChanges.confirm('change-alice', T0)),
            ),
          ),
        );
        assert.deepEqual(results.map((result) => result.outcome).sort(), [
          'changed',
          ...Array.from({ length: 19 }, () => 'invalid'),
        ]);
        assert.equal((await stores[1].users.findByUsernameKey('alice'))?.email, 'Alice@New.example');
      });

      it('two accounts confirming one address while a registration of it is verified, across both: one owner', async () => {
        const stores = [await open(), await open()];
        for (let round = 0; round < 8; round++) {
          const address = `contested-${round}@new.example`;
          const alice = await asking(stores[0], `alice-${round}`, address);
          const bob = await asking(stores[1], `bob-${round}`, address);
          const carol = await attemptRegistration(stores[0], `carol-${round}`, { email: address, emailKey: address });
          assert.ok(carol.ok);
          const on = (i: number) => stores[(i + round) % 2];

          const [hers, his, verified] = fulfilled(
            await Promise.allSettled<unknown>([
              on(0).transaction((tx) => tx.emailChanges.confirm(`change-alice-${round}`, T0)),
              on(1).transaction((tx) => tx.emailChanges.confirm(`change-bob-${round}`, T0)),
              on(round).transaction((tx) => tx.users.confirmAddress(`verify-carol-${round}`, T0)),
            ]),
          ) as [EmailChangeResult, EmailChangeResult, StoredUser | null];
          const winners = [
            hers.outcome === 'changed' && alice.id,
            his.outcome === 'changed' && bob.id,
            verified?.id,
          ].filter(Boolean);
          assert.equal(winners.length, 1, `round ${round}: exactly one wins (${JSON.stringify([hers, his])})`);
          for (const result of [hers, his]) assert.ok(result.outcome === 'changed' || result.outcome === 'taken');
          assert.equal((await stores[1].users.findVerifiedByEmailKey(address))?.id, winners[0]);
        }
      });

      it('a confirmation racing a deletion, a reset, a change, a new request and a login: none throws', async () => {
        const stores = [await open(), await open()];
        for (let round = 0; round < 8; round++) {
          const user = await asking(stores[0], `alice-${round}`, `moved-${round}@new.example`);
          await stores[0].transaction((tx) =>
            tx.tokens.replace(token(user.id, 'reset_password', `reset-${round}`), SUPERSEDES_RESETS),
          );
          const on = (i: number) => stores[(i + round) % 2];

          fulfilled(
            await Promise.allSettled<unknown>([
              on(0).transaction((tx) => tx.emailChanges.confirm(`change-alice-${round}`, T0)),
              on(1).transaction((tx) => tx.passwords.reset(`reset-${round}`, 'hash-reset', T0)),
              on(2).transaction((tx) => tx.passwords.change(user.id, passwordOf(user), 'hash-change', T0)),
              on(3).transaction((tx) => tx.sessions.create(sessionRow(user.id, `late-${round}`))),
              on(4).transaction((tx) =>
                tx.emailChanges.request(
                  {
                    tokenHash: `change-again-${round}`,
                    userId: user.id,
                    newEmail: `again-${round}@new.example`,
                    newEmailKey: `again-${round}@new.example`,
                    createdAt: T0,
                    expiresAt: DAY_LATER,
                    endOtherSessions: false,
                    keepSessionId: null,
                  },
                  `s-alice-${round}`,
                ),
              ),
              on(5).transaction((tx) => tx.sessions.markAuthenticated(`s-alice-${round}`, user.credentialEpoch, T0)),
              on(6).transaction((tx) => tx.sessions.deleteOthers(user.id, `s-alice-${round}`, T0)),
              on(7).transaction((tx) => tx.users.delete(user.id, T0)),
            ]),
          );
          assert.equal(await stores[1].users.findById(user.id), null);
        }
        assert.deepEqual(
          await Promise.all(['users', 'sessions', 'tokens', 'email_changes'].map((table) => count(stores[0], table))),
          [0, 0, 0, 0],
        );
      });
    });

    describe('the second factor across two stores on one database', () => {
      /** A user with an enabled factor (last used step 100), recovery codes `code-1..3` and challenge `challenge`. */
      async function enrolled(store: SqlUserStore, label: string): Promise<StoredUser> {
        const { user } = await register(store, label);
        const factor = {
          userId: user.id,
          sealedSecret: 'v1.sealed',
          enabled: false,
          createdAt: T0,
          enabledAt: null,
          lastUsedStep: null,
        };
        assert.equal(await store.transaction((tx) => tx.secondFactors.start(factor)), true);
        assert.equal(
          await store.transaction(
            async (tx) =>
              (await tx.secondFactors.enable(enablingOf(user.id, 100, ['code-1', 'code-2', 'code-3']))) !== null,
          ),
          true,
        );
        await store.transaction((tx) =>
          tx.loginChallenges.create({
            tokenHash: 'challenge',
            userId: user.id,
            credentialEpoch: 0,
            attempts: 0,
            createdAt: T0,
            expiresAt: DAY_LATER,
            ip: null,
            userAgent: null,
            firstFactor: 'pwd',
          }),
        );
        return user;
      }

      it('20 concurrent uses of one TOTP step across both: exactly one is accepted', async () => {
        const stores = [await open(), await open()];
        const user = await enrolled(stores[0], 'alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              stores[i % 2].transaction((tx) => tx.secondFactors.useTotpStep(user.id, 101, T0)),
            ),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.equal((await stores[1].secondFactors.get(user.id))?.lastUsedStep, 101);
      });

      it('20 concurrent uses of one recovery code across both: exactly one succeeds, with one notice', async () => {
        const stores = [await open(), await open()];
        const user = await enrolled(stores[0], 'alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              stores[i % 2].transaction(async (tx) =>
                notifying(
                  tx,
                  await tx.secondFactors.consumeRecoveryCode(user.id, 'code-2', T0),
                  notice('recoveryCodeUsed', i),
                ),
              ),
            ),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.equal(await count(stores[0], 'outbox'), 1);
        assert.equal(await stores[1].secondFactors.countRecoveryCodes(user.id), 2);
      });

      it('20 concurrent answers to one challenge across both, 5 allowed: exactly 5 are counted', async () => {
        const stores = [await open(), await open()];
        await enrolled(stores[0], 'alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              stores[i % 2].transaction((tx) => tx.loginChallenges.takeAttempt('challenge', T0, 5)),
            ),
          ),
        );
        const counted = results.filter((result) => result !== null);
        assert.deepEqual(counted.map((result) => result.attempts).sort(), [1, 2, 3, 4, 5]);
      });

      it('20 concurrent consumptions of one challenge across both: exactly one succeeds', async () => {
        const stores = [await open(), await open()];
        await enrolled(stores[0], 'alice');
        const results = fulfilled(
          await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              stores[i % 2].transaction((tx) => tx.loginChallenges.consume('challenge')),
            ),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
      });

      it('an enabling on one racing new starts of the set-up on the other: the proved secret goes on, or nothing does', async () => {
        const stores = [await open(), await open()];
        const waiting = (userId: string, sealedSecret: string) => ({
          userId,
          sealedSecret,
          enabled: false,
          createdAt: T0,
          enabledAt: null,
          lastUsedStep: null,
        });
        for (let round = 0; round < 8; round++) {
          const { user } = await register(stores[round % 2], `racer-${round}`);
          assert.equal(
            await stores[0].transaction((tx) => tx.secondFactors.start(waiting(user.id, `v1.proved-${round}`))),
            true,
          );
          const [enabled, ...started] = fulfilled(
            await Promise.allSettled<boolean>([
              stores[0].transaction(async (tx) => {
                const enabling = { ...enablingOf(user.id, 7, [`race-${round}`]), sealedSecret: `v1.proved-${round}` };
                const enabled = await tx.secondFactors.enable(enabling);
                return notifying(tx, enabled?.user ?? null, notice('secondFactorEnabled', round));
              }),
              ...[0, 1, 2, 3].map((i) =>
                stores[1].transaction((tx) => tx.secondFactors.start(waiting(user.id, `v1.started-${round}-${i}`))),
              ),
            ]),
          );
          const factor = await stores[1].secondFactors.get(user.id);
          if (enabled) {
            assert.deepEqual([factor?.enabled, factor?.sealedSecret], [true, `v1.proved-${round}`], `round ${round}`);
            assert.deepEqual(started, [false, false, false, false], `round ${round}: every start came after`);
            assert.equal(await stores[1].secondFactors.countRecoveryCodes(user.id), 1);
          } else {
            assert.equal(factor?.enabled, false, `round ${round}`);
            assert.notEqual(factor?.sealedSecret, `v1.proved-${round}`, `round ${round}`);
            assert.equal(await stores[1].secondFactors.countRecoveryCodes(user.id), 0);
          }
        }
      });

      it('switching off racing a code, a step, new codes, a reset and a deletion: none throws, nothing is left', async () => {
        const stores = [await open(), await open()];
        for (let round = 0; round < 8; round++) {
          const user = await enrolled(stores[round % 2], `alice-${round}`);
          await stores[0].transaction((tx) =>
            tx.tokens.replace(token(user.id, 'reset_password', `reset-${round}`), SUPERSEDES_RESETS),
          );
          const on = (i: number) => stores[(i + round) % 2];

          const [disabled, used] = fulfilled(
            await Promise.allSettled<unknown>([
              on(0).transaction(async (tx) =>
                notifying(tx, await tx.secondFactors.disable(user.id, T0), notice('secondFactorDisabled', round)),
              ),
              on(1).transaction(async (tx) =>
                notifying(
                  tx,
                  await tx.secondFactors.consumeRecoveryCode(user.id, 'code-1', T0),
                  notice('recoveryCodeUsed', round),
                ),
              ),
              on(2).transaction((tx) => tx.secondFactors.useTotpStep(user.id, 101, T0)),
              on(3).transaction(async (tx) =>
                notifying(
                  tx,
                  await tx.secondFactors.replaceRecoveryCodes(user.id, [`new-${round}`], T0),
                  notice('recoveryCodesRegenerated', round),
                ),
              ),
              on(4).transaction((tx) => tx.passwords.reset(`reset-${round}`, 'hash-reset', T0)),
              on(5).transaction((tx) => tx.loginChallenges.takeAttempt('challenge', T0, 5)),
              on(6).transaction((tx) =>
                tx.secondFactors.start({
                  userId: user.id,
                  sealedSecret: 'v1.again',
                  enabled: false,
                  createdAt: T0,
                  enabledAt: null,
                  lastUsedStep: null,
                }),
              ),
              on(7).transaction((tx) => tx.users.delete(user.id, T0)),
            ]),
          );
          assert.equal(typeof disabled, 'boolean');
          assert.equal(typeof used, 'boolean');
          assert.equal(await stores[1].users.findById(user.id), null);
        }
        assert.deepEqual(
          await Promise.all(['users', 'credentials', 'login_challenges'].map((table) => count(stores[0], table))),
          [0, 0, 0],
        );
      });
    });

    describe('the second factor in one transaction', () => {
      it('enableSecondFactor: when queuing the notice fails, the factor stays waiting and no code is stored', async () => {
        const store = await open();
        const { user } = await register(store, 'alice');
        await store.transaction((tx) =>
          tx.secondFactors.start({
            userId: user.id,
            sealedSecret: 'v1.sealed',
            enabled: false,
            createdAt: T0,
            enabledAt: null,
            lastUsedStep: null,
          }),
        );

        const stopFailing = await harness.failOn(store, 'insert', 'outbox');
        await assert.rejects(
          store.transaction(async (tx) => {
            const enabled = await tx.secondFactors.enable(enablingOf(user.id, 7, ['c1']));
            return notifying(tx, enabled?.user ?? null, notice('secondFactorEnabled', 0));
          }),
          /injected failure/,
        );
        await stopFailing();

        assert.equal((await store.secondFactors.get(user.id))?.enabled, false);
        assert.equal(await store.secondFactors.countRecoveryCodes(user.id), 0);
        assert.notEqual(await store.transaction((tx) => tx.secondFactors.enable(enablingOf(user.id, 7, ['c1']))), null);
      });

      it('consumeRecoveryCode: when queuing the notice fails, the code is not used up', async () => {
        const store = await open();
        const { user } = await register(store, 'alice');
        await store.transaction((tx) =>
          tx.secondFactors.start({
            userId: user.id,
            sealedSecret: 'v1.sealed',
            enabled: false,
            createdAt: T0,
            enabledAt: null,
            lastUsedStep: null,
          }),
        );
        await store.transaction((tx) => tx.secondFactors.enable(enablingOf(user.id, 7, ['c1'])));

        const stopFailing = await harness.failOn(store, 'insert', 'outbox');
        await assert.rejects(
          store.transaction(async (tx) =>
            notifying(tx, await tx.secondFactors.consumeRecoveryCode(user.id, 'c1', T0), notice('recoveryCodeUsed', 0)),
          ),
          /injected failure/,
        );
        await stopFailing();

        assert.equal(await store.secondFactors.countRecoveryCodes(user.id), 1);
        assert.equal(
          (await store.transaction((tx) => tx.secondFactors.consumeRecoveryCode(user.id, 'c1', T0)))?.id,
          user.id,
        );
      });
    });

    describe('removing expired sessions and tokens', () => {
      it('removes a backlog larger than one batch, and nothing live', async () => {
        const store = await open();
        const { user, verification } = await register(store, 'alice');
        const now = new Date(T0.getTime() + 3_600_000);
        const idleCutoff = new Date(T0.getTime() + 1);
        // Half past their absolute limit, half idle for too long.
        const expiredSessions = Array.from({ length: 2_500 }, (_, i) => ({
          token_hash: `old-${i}`,
          id: `id-of-old-${i}`,
          user_id: user.id,
          created_at: T0.getTime(),
          expires_at: i % 2 ? T0.getTime() : DAY_LATER.getTime(),
          last_seen_at: T0.getTime(),
          authenticated_at: T0.getTime(),
          ip: null,
          user_agent: null,
          amr: 'pwd',
        }));
        const expiredTokens = Array.from({ length: 1_200 }, (_, i) => ({
          token_hash: `old-token-${i}`,
          user_id: user.id,
          purpose: 'reset_password',
          expires_at: T0.getTime(),
        }));
        await store.db.insertInto('sessions').values(expiredSessions).execute();
        await store.db.insertInto('tokens').values(expiredTokens).execute();
        await openSession(store, user.id, 'live');
        await store.sessions.touch('live', now);

        assert.equal(await store.deleteExpired({ now, sessionIdleBefore: idleCutoff }), 2_500 + 1_200);
        assert.ok(await store.sessions.findWithUser('live'));
        assert.ok(await store.tokens.findUser(verification.tokenHash, 'verify_email', now));
        assert.deepEqual([await count(store, 'sessions'), await count(store, 'tokens')], [1, 1]);
      });
    });
  });
}

/** The enabling of a factor started as `v1.sealed` (as every factor in this suite is). */
function enablingOf(userId: string, step: number, recoveryCodeHashes: string[]) {
  return { userId, sealedSecret: 'v1.sealed', step, recoveryCodeHashes, now: T0 };
}

/** A notice as the core would queue it; `n` keeps the ids of one test apart. */
function notice(kind: OutboxKind, n: number): NewOutboxMessage {
  return { id: `${kind}-${n}-${randomUUID()}`, kind, sealedToken: null, createdAt: T0, giveUpAt: DAY_LATER };
}

/** Queues `message` to the user a change returned, in its transaction, as the core does; whether it changed. */
async function notifying(
  tx: UserStoreTransaction,
  user: StoredUser | null,
  message: NewOutboxMessage,
): Promise<boolean> {
  if (user) await tx.outbox.add(message, user);
  return user !== null;
}

async function count(store: SqlUserStore, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(store.db);
  return Number(rows[0].n);
}

/** The values of settled promises; fails the test, with the first reason, if any of them rejected. */
function fulfilled<T>(settled: PromiseSettledResult<T>[]): T[] {
  const rejected = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (rejected) assert.fail(`a concurrent call threw: ${String(rejected.reason?.stack ?? rejected.reason)}`);
  return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
}

/** A token for a user deleted a moment earlier violates the foreign key: the one failure a caller can expect. */
function ignoreUnknownUser(error: unknown): void {
  const code = (error as { code?: string }).code ?? '';
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return;
  throw error;
}
