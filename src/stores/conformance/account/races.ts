import assert from 'node:assert/strict';
import type { StoredUser, UserStoreTransaction } from '../../../services/user-store';
import {
  describe,
  it,
  T0,
  HOUR_LATER,
  T0_MINUS_1,
  newUser,
  token,
  fulfilled,
  type ConformanceSuite,
  passwordOf,
} from '../support';

export function describeRaces(suite: ConformanceSuite): void {
  const { registered, resetTokenFor } = suite;
  const write = <T>(work: (tx: UserStoreTransaction) => Promise<T>): Promise<T> => suite.store.transaction(work);
  describe('races', () => {
    const RACERS = 20;

    it(`${RACERS} concurrent registrations of one username: one wins, the others conflict, none throws`, async () => {
      const racers = Array.from({ length: RACERS }, (_, i) =>
        newUser(`racer-${i}`, { username: i % 2 ? 'Racer' : 'RACER', usernameKey: 'racer' }),
      );
      const settled = await Promise.allSettled(
        racers.map((user) =>
          write((tx) => tx.users.create(user, token(user.id, 'verify_email', HOUR_LATER, `verify-${user.id}`))),
        ),
      );

      const results = fulfilled(settled);
      const winners = results.filter((result) => result.ok);
      assert.equal(winners.length, 1);
      assert.deepEqual(
        results.filter((result) => !result.ok),
        Array.from({ length: RACERS - 1 }, () => ({ ok: false, conflict: 'username' })),
      );
      const winner = winners[0] as { ok: true; user: StoredUser };
      assert.equal((await suite.store.users.findByUsernameKey('racer'))?.id, winner.user.id);
      const losers = racers.filter((user) => user.id !== winner.user.id);
      for (const loser of losers) assert.equal(await suite.store.users.findById(loser.id), null);
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
            write((tx) => tx.users.create(user, token(user.id, 'verify_email', HOUR_LATER, `verify-${user.id}`))),
          ),
        ),
      );
      assert.ok(created.every((result) => result.ok && result.owner === null));

      const confirmed = fulfilled(
        await Promise.allSettled(racers.map((user) => write((tx) => tx.users.confirmAddress(`verify-${user.id}`, T0)))),
      );
      const owners = confirmed.filter((user): user is StoredUser => user !== null);
      assert.equal(owners.length, 1, 'exactly one confirmation wins');
      assert.equal((await suite.store.users.findVerifiedByEmailKey('same@example.com'))?.id, owners[0].id);
      assert.deepEqual(await suite.store.users.findUnverifiedByEmailKey('same@example.com', T0_MINUS_1, 100), []);
      for (const loser of racers.filter((user) => user.id !== owners[0].id)) {
        assert.equal(await suite.store.users.findById(loser.id), null);
      }
    });

    it(`${RACERS} concurrent confirmations (users.confirmAddress) of one token: exactly one succeeds`, async () => {
      const { verificationHash } = await registered('alice');
      const results = fulfilled(
        await Promise.allSettled(
          Array.from({ length: RACERS }, () => write((tx) => tx.users.confirmAddress(verificationHash, T0))),
        ),
      );
      assert.equal(results.filter((user) => user !== null).length, 1);
    });

    it(`${RACERS} concurrent resets (passwords.reset) with one token: one succeeds, and its hash is stored`, async () => {
      const { user } = await registered('alice');
      const resetHash = await resetTokenFor(user.id, 'alice');
      const results = fulfilled(
        await Promise.allSettled(
          Array.from({ length: RACERS }, (_, i) => write((tx) => tx.passwords.reset(resetHash, `hash-from-${i}`, T0))),
        ),
      );

      const winner = results.findIndex((result) => result !== null);
      assert.equal(results.filter((result) => result !== null).length, 1);
      assert.equal(await suite.store.passwords.hashOf(user.id), `hash-from-${winner}`);
    });

    it(`${RACERS} concurrent changes (passwords.change) from one expected hash: exactly one succeeds`, async () => {
      const { user } = await registered('alice');
      const results = fulfilled(
        await Promise.allSettled(
          Array.from({ length: RACERS }, (_, i) =>
            write((tx) => tx.passwords.change(user.id, passwordOf(user), `hash-from-${i}`, T0)),
          ),
        ),
      );

      assert.equal(results.filter((result) => result !== null).length, 1);
      const winner = results.findIndex((result) => result !== null);
      assert.equal(results[winner]?.credentialEpoch, 1, 'the user as it now is');
      assert.equal(await suite.store.passwords.hashOf(user.id), `hash-from-${winner}`);
    });

    it('grants by an administrator racing its demotion: each decided whole, none after the demotion', async () => {
      const { user: grantor } = await registered('grantor');
      const others = await Promise.all(Array.from({ length: RACERS }, (_, i) => registered(`other${i}`)));
      await write((tx) => tx.access.createRole('managers'));
      await write((tx) => tx.access.createRole('big'));
      await write((tx) => tx.access.createPermission('manage'));
      await write((tx) => tx.access.grantPermission('managers', 'manage'));
      await write((tx) => tx.access.grantPermission('big', 'manage'));
      await write((tx) => tx.access.grantRole(grantor.id, 'managers'));

      const [revoked, ...grants] = await Promise.all([
        write((tx) => tx.access.revokePermission('managers', 'manage')),
        ...others.map(({ user }) => write((tx) => tx.access.grantRole(user.id, 'big', { grantor: grantor.id }))),
      ]);
      assert.equal(revoked, 'ok');
      assert.ok(
        grants.every((result) => result === 'ok' || result === 'not_held'),
        JSON.stringify(grants),
      );
      // Each grant that answered ok is there, each refused one is not: the answer and the state agree.
      for (const [index, { user }] of others.entries()) {
        assert.deepEqual(await suite.store.access.listUserRoles(user.id), grants[index] === 'ok' ? ['big'] : []);
      }
      // Once demoted, nothing more: every later grant is refused.
      assert.equal(
        await write((tx) => tx.access.grantRole(others[0].user.id, 'big', { grantor: grantor.id })),
        'not_held',
      );
    });

    it('concurrent role and permission creation and grants of one name: one creation, no throw', async () => {
      const { user } = await registered('alice');
      const created = fulfilled(
        await Promise.allSettled(Array.from({ length: RACERS }, () => write((tx) => tx.access.createRole('admin')))),
      );
      assert.equal(created.filter(Boolean).length, 1);
      const granted = fulfilled(
        await Promise.allSettled(
          Array.from({ length: RACERS }, () => write((tx) => tx.access.grantRole(user.id, 'admin'))),
        ),
      );
      assert.ok(granted.every((result) => result === 'ok'));
      assert.deepEqual(await suite.store.access.listUserRoles(user.id), ['admin']);
    });
  });
}
