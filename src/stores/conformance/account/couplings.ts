import assert from 'node:assert/strict';
import type { UserStoreTransaction } from '../../../services/user-store';
import { describe, it, T0, message, type ConformanceSuite, passwordOf } from '../support';

export function describeCouplings(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor } = suite;
  const write = <T>(work: (tx: UserStoreTransaction) => Promise<T>): Promise<T> => suite.store.transaction(work);
  describe('atomic couplings, as concurrent readers see them', () => {
    // Readers poll while the operation runs, each read one indexed query. Were the operation two separate steps,
    // some read would land between them and see the forbidden state; done atomically, none ever can. A change and
    // its notice are composed in one store.transaction, as the core composes them.
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
      let current = passwordOf(user);
      for (let round = 0; round < ROUNDS; round++) {
        await sessionFor(user.id, `round-${round}`);
        const next = `hash-${round}`;
        const seen = await watch(
          async () => assert.ok(await write((tx) => tx.passwords.change(user.id, current, next, T0))),
          // The hash first: a session still there after the new hash was seen outlived the change.
          async () =>
            (await suite.store.passwords.hashOf(user.id)) === next &&
            (await suite.store.sessions.findWithUser(`session-round-${round}`)) !== null,
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
          async () => assert.ok(await write((tx) => tx.passwords.reset(resetHash, next, T0))),
          // The hash first: a session still there after the new hash was seen outlived the change.
          async () =>
            (await suite.store.passwords.hashOf(user.id)) === next &&
            (await suite.store.sessions.findWithUser(`session-round-${round}`)) !== null,
        );
        assert.equal(seen, 0, `round ${round}: a session outlived the reset`);
      }
    });

    it('a verification and its notice land together: never one without the other', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { user, verificationHash } = await registered(`user-${round}`);
        const notice = message('emailVerified');
        const queued = async () =>
          (await suite.store.outbox.list({ status: 'pending' })).some((entry) => entry.id === notice.id);
        const verified = async () => (await suite.store.users.findById(user.id))?.verified === true;
        const seen = await watch(
          async () =>
            assert.ok(
              await write(async (tx) => {
                const confirmed = await tx.users.confirmAddress(verificationHash, T0);
                if (confirmed) await tx.outbox.add(notice, confirmed);
                return confirmed;
              }),
            ),
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
          (await suite.store.outbox.list({ status: 'pending' })).some((entry) => entry.id === notice.id);
        const gone = async () => (await suite.store.users.findById(user.id)) === null;
        const seen = await watch(
          async () =>
            assert.equal(
              await write(async (tx) => {
                const deleted = await tx.users.delete(user.id, T0);
                if (deleted.outcome === 'deleted') await tx.outbox.add(notice, deleted.user);
                return deleted.outcome;
              }),
              'deleted',
            ),
          async () => ((await gone()) && !(await queued())) || ((await queued()) && !(await gone())),
        );
        assert.equal(seen, 0, `round ${round}: the deletion and its notice were committed separately`);
      }
    });

    it('a deletion and the end of the grants land together: never one without the other', async () => {
      await write((tx) => tx.access.createRole('admin'));
      for (let round = 0; round < ROUNDS; round++) {
        const { user } = await registered(`user-${round}`);
        await write((tx) => tx.access.grantRole(user.id, 'admin'));
        const seen = await watch(
          async () => assert.equal((await write((tx) => tx.users.delete(user.id, T0))).outcome, 'deleted'),
          async () => {
            // Read in both orders: once the user is gone the grants must be too, and while the grants are there, so
            // is the user. (The deletion lands between two reads at most once, and then in the allowed direction.)
            const userGone = (await suite.store.users.findById(user.id)) === null;
            const grantsLeft = (await suite.store.access.listUserRoles(user.id)).length > 0;
            const grantsGone = (await suite.store.access.listUserRoles(user.id)).length === 0;
            const userThere = (await suite.store.users.findById(user.id)) !== null;
            return (userGone && grantsLeft) || (grantsGone && userThere);
          },
        );
        assert.equal(seen, 0, `round ${round}: the user and their grants were deleted separately`);
      }
    });
  });
}
