import assert from 'node:assert/strict';
import { wrapStore, type StoreWrapper } from '../../../services/store/wrap-store';
import type { UserStoreTransaction } from '../../../services/user-store';
import {
  describe,
  it,
  T0,
  HOUR_LATER,
  auditEvent,
  message,
  newUser,
  storedEvent,
  token,
  type ConformanceSuite,
  passwordOf,
} from '../support';

/** The aggregates a transaction hands to its work, by the contract's names (`UserStoreTransaction`). */
const AGGREGATES = [
  'users',
  'passwords',
  'tokens',
  'emailChanges',
  'sessions',
  'secondFactors',
  'loginChallenges',
  'passkeys',
  'oidc',
  'access',
  'outbox',
  'audit',
] as const satisfies readonly (keyof UserStoreTransaction)[];

/**
 * The unit of work itself: what a transaction hands to its work, that it commits all of it or none, and that a host
 * can wrap one aggregate (`wrapStore`) without re-declaring the others.
 */
export function describeTransactions(suite: ConformanceSuite): void {
  const { registered, sessionRow, sessionFor, transaction } = suite;

  /**
   * A wrapper that records each method called on the aggregate, then calls it on the aggregate itself (so that a
   * store's private state, `#fields` included, is reached as without the wrapper).
   */
  function recording(calls: string[]): StoreWrapper {
    return (inner) =>
      new Proxy(inner, {
        get(target, key) {
          const value: unknown = Reflect.get(target, key);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(String(key));
            return (value as (...args: unknown[]) => unknown).apply(target, args);
          };
        },
      });
  }

  describe('transactions: one unit of work', () => {
    it('hands its work every aggregate as an own enumerable property, which a copy of it keeps', async () => {
      const bob = newUser('bob');
      const seen = await transaction(async (tx) => {
        const described = AGGREGATES.map((name) => {
          const property = Object.getOwnPropertyDescriptor(tx, name);
          return [name, property?.enumerable === true && typeof tx[name] === 'object' && tx[name] !== null];
        });
        // wrapStore hands the work a spread copy: its aggregates must work apart from the object they came on.
        const copy = { ...tx };
        const created = await copy.users.create(bob, token(bob.id, 'verify_email', HOUR_LATER, 'verify-bob'));
        return { described, keys: Object.keys(tx), created: created.ok };
      });
      assert.deepEqual(
        seen.described,
        AGGREGATES.map((name) => [name, true]),
      );
      for (const name of AGGREGATES) assert.ok(seen.keys.includes(name), `${name} is listed by Object.keys`);
      assert.equal(seen.created, true);
      assert.equal((await suite.store.users.findById(bob.id))?.id, bob.id, 'the copy wrote in the transaction');
    });

    it('returns what its work returns, and its work reads what it has written', async () => {
      const bob = newUser('bob');
      const result = await transaction(async (tx) => {
        await tx.users.create(bob, token(bob.id, 'verify_email', HOUR_LATER, 'verify-bob'));
        const found = await tx.users.findById(bob.id);
        const byToken = await tx.tokens.findUser('verify-bob', 'verify_email', T0);
        return { found: found?.id, byToken: byToken?.id, answer: 42 };
      });
      assert.deepEqual(result, { found: bob.id, byToken: bob.id, answer: 42 });
    });

    it('an error thrown by its work undoes everything the transaction did, and is the error it rejects with', async () => {
      const { user } = await registered('alice');
      await sessionFor(user.id, 'alice-old');
      const bob = newUser('bob');
      const notice = message('passwordChanged');
      const event = auditEvent('password_change', { actorId: user.id, subjectId: user.id });
      const writeAll = async (tx: UserStoreTransaction) => {
        assert.ok((await tx.users.create(bob, token(bob.id, 'verify_email', HOUR_LATER, 'verify-bob'))).ok);
        assert.equal(await tx.sessions.create(sessionRow(user.id, 'alice-new')), true);
        assert.equal(await tx.sessions.delete('session-alice-old'), true);
        assert.equal(await tx.passwords.rehash(user.id, passwordOf(user), 'stronger-hash', T0), true);
        await tx.outbox.add(notice, user);
        await tx.audit.add(event);
      };
      const failure = new Error('the work failed after its writes');

      await assert.rejects(
        transaction(async (tx) => {
          await writeAll(tx);
          throw failure;
        }),
        (error) => error === failure,
      );
      assert.equal(await suite.store.users.findById(bob.id), null, 'no user');
      assert.equal(await suite.store.users.findByUsernameKey(bob.usernameKey), null);
      assert.equal(await suite.store.tokens.findUser('verify-bob', 'verify_email', T0), null, 'no token');
      assert.equal(await suite.store.sessions.findWithUser('session-alice-new'), null, 'no new session');
      assert.ok(await suite.store.sessions.findWithUser('session-alice-old'), 'the deleted session is back');
      assert.deepEqual(await suite.store.users.findById(user.id), user, 'the password hash is as it was');
      assert.deepEqual(await suite.store.outbox.list(), [], 'no message');
      assert.deepEqual(await suite.store.audit.list({ limit: 10 }), [], 'no event');

      // The same work, not thrown out, commits all of it: the store is usable after the failure.
      await transaction(writeAll);
      assert.equal((await suite.store.users.findById(bob.id))?.id, bob.id);
      assert.ok(await suite.store.sessions.findWithUser('session-alice-new'));
      assert.equal(await suite.store.sessions.findWithUser('session-alice-old'), null);
      assert.equal(await suite.store.passwords.hashOf(user.id), 'stronger-hash');
      assert.deepEqual(
        (await suite.store.outbox.list()).map((entry) => entry.id),
        [notice.id],
      );
      assert.deepEqual(await suite.store.audit.list({ limit: 10 }), [storedEvent(event, user.id)]);
    });

    it('wrapStore wraps one aggregate inside transactions and on the read side; the others work unchanged', async () => {
      const calls: string[] = [];
      const wrapped = wrapStore(suite.store, { sessions: recording(calls) });
      const { user } = await registered('alice');
      const session = sessionRow(user.id, 'alice');
      const event = auditEvent('login', { actorId: user.id, subjectId: user.id });

      const created = await wrapped.transaction(
        async (tx) => {
          const made = await tx.sessions.create(session);
          await tx.audit.add(event);
          return made;
        },
        { durable: false },
      );
      assert.equal(created, true);
      assert.deepEqual(calls, ['create'], 'the transaction’s sessions are wrapped');
      assert.equal((await wrapped.sessions.findWithUser(session.tokenHash))?.user.id, user.id);
      assert.deepEqual(await wrapped.sessions.list(user.id), [session]);
      assert.deepEqual(calls, ['create', 'findWithUser', 'list'], 'and so are the sessions read outside one');

      assert.deepEqual(await wrapped.users.findById(user.id), user);
      assert.deepEqual(await wrapped.audit.list({ limit: 10 }), [storedEvent(event, user.id)]);
      assert.equal(
        await wrapped.transaction((tx) => tx.passwords.rehash(user.id, passwordOf(user), 'stronger-hash', T0)),
        true,
      );
      assert.equal(await wrapped.passwords.hashOf(user.id), 'stronger-hash');
      assert.equal(await wrapped.deleteExpired({ now: T0, sessionIdleBefore: new Date(0) }), 0);
      assert.deepEqual(calls, ['create', 'findWithUser', 'list'], 'the other aggregates are not wrapped');
      assert.ok(await suite.store.sessions.findWithUser(session.tokenHash), 'it wrote to the store it wraps');
    });

    it('wrapStore wraps the passwords in a transaction and outside one, leaving every other side as it was', async () => {
      const calls: string[] = [];
      const wrapped = wrapStore(suite.store, { passwords: recording(calls) });
      const { user } = await registered('alice');
      await sessionFor(user.id, 'alice');

      const changed = await wrapped.transaction((tx) =>
        tx.passwords.change(user.id, passwordOf(user), 'new-hash', T0, 'session-alice'),
      );
      assert.equal(changed?.credentialEpoch, 1);
      assert.deepEqual(calls, ['change']);
      assert.equal(await wrapped.sessions.findWithUser('session-alice'), null, 'the change ended the session');
      assert.equal(await wrapped.passwords.hashOf(user.id), 'new-hash');
      assert.deepEqual(calls, ['change', 'hashOf']);
    });
  });
}
