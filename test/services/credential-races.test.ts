import { expect } from 'chai';
import { NEW_PASSWORD } from '../support/fixtures';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import type { UserStore } from '../../src/services/user-store';
import { Harness, makeHarness, OTHER_PASSWORD, STRONG_PASSWORD } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { createTestDatabase } from '../support/postgres-database';
import { requireService } from '../support/services';
import { CHEAP_HASHING } from '../support/fixtures';

interface OpenedStore {
  store: UserStore;
  close(): Promise<void>;
}

/**
 * Makes the next call of `method` wait for `meanwhile` first: the call is what the operation does once its slow part
 * (verifying or hashing a password) is over, so `meanwhile` commits exactly while that operation was verifying.
 */
function meanwhileBefore(
  store: UserStore,
  method: 'deleteUser' | 'changePassword',
  meanwhile: () => Promise<unknown>,
): void {
  const original = store[method].bind(store) as (...args: unknown[]) => Promise<boolean>;
  let pending = true;
  (store as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    if (pending) {
      pending = false;
      await meanwhile();
    }
    return original(...args);
  };
}

/**
 * Issue 13, finding 2: an operation that checks a session and a password and then writes must check both again inside
 * its write, so that a reset, a change or a logout-all that committed while it verified wins.
 */
function describeCredentialRaces(name: string, open: () => Promise<OpenedStore>, service?: 'postgres'): void {
  describe(`AccountService: a credential check and its write cannot be split (${name})`, () => {
    let opened: OpenedStore;
    let h: Harness;
    let attacker: string;
    let owner: string;
    beforeEach(async function () {
      if (service) await requireService(this, service);
      opened = await open();
      h = makeHarness({ store: opened.store, options: { hashing: CHEAP_HASHING } });
      attacker = await h.loginNewUser('alice');
      owner = await h.accounts.login('alice', STRONG_PASSWORD);
    });
    afterEach(async () => {
      await h?.accounts.drain();
      await opened?.close();
    });

    const stillThere = async () => expect(await h.store.findUserByUsernameKey('alice')).to.not.equal(null);

    it('a deletion in flight loses to a reset that locked its holder out', async () => {
      await h.accounts.requestPasswordReset('alice@example.com');
      await h.accounts.drain();
      const reset = h.sender.lastToken('sendPasswordReset');
      meanwhileBefore(h.store, 'deleteUser', () => h.accounts.confirmPasswordReset(reset, NEW_PASSWORD));
      await expectAccountError(h.accounts.deleteAccount(attacker, STRONG_PASSWORD), 'invalid_session_token');
      await stillThere();
      await h.accounts.login('alice', NEW_PASSWORD);
    });

    it('a deletion in flight loses to a logout-all', async () => {
      meanwhileBefore(h.store, 'deleteUser', () => h.accounts.logoutAll(owner));
      await expectAccountError(h.accounts.deleteAccount(attacker, STRONG_PASSWORD), 'invalid_session_token');
      await stillThere();
      expect(h.logger.lines.map((line) => line.fields)).to.deep.include({
        event: 'account_deleted',
        outcome: 'credentials_changed',
        userId: (await h.store.findUserByUsernameKey('alice'))!.id,
      });
    });

    it('a deletion in flight loses to a password change on another session', async () => {
      // The change ends every session, the attacker's too; the hash check alone would refuse as well.
      meanwhileBefore(h.store, 'deleteUser', () => h.accounts.changePassword(owner, STRONG_PASSWORD, NEW_PASSWORD));
      await expectAccountError(h.accounts.deleteAccount(attacker, STRONG_PASSWORD), 'invalid_session_token');
      await stillThere();
    });

    it('a password change in flight loses to a logout-all', async () => {
      meanwhileBefore(h.store, 'changePassword', () => h.accounts.logoutAll(owner));
      await expectAccountError(
        h.accounts.changePassword(attacker, STRONG_PASSWORD, OTHER_PASSWORD),
        'invalid_session_token',
      );
      await h.accounts.login('alice', STRONG_PASSWORD);
    });

    it('a password change in flight loses to a reset', async () => {
      await h.accounts.requestPasswordReset('alice@example.com');
      await h.accounts.drain();
      const reset = h.sender.lastToken('sendPasswordReset');
      meanwhileBefore(h.store, 'changePassword', () => h.accounts.confirmPasswordReset(reset, NEW_PASSWORD));
      await expectAccountError(
        h.accounts.changePassword(attacker, STRONG_PASSWORD, OTHER_PASSWORD),
        'invalid_session_token',
      );
      await h.accounts.login('alice', NEW_PASSWORD);
    });

    it('with nothing in between, both still succeed', async () => {
      await h.accounts.changePassword(attacker, STRONG_PASSWORD, NEW_PASSWORD);
      const session = await h.accounts.login('alice', NEW_PASSWORD);
      await h.accounts.deleteAccount(session, NEW_PASSWORD);
      expect(await h.store.findUserByUsernameKey('alice')).to.equal(null);
    });
  });
}

describeCredentialRaces('memory', async () => ({ store: new MemoryUserStore(), close: async () => undefined }));

describeCredentialRaces('SQLite', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-races-'));
  const store = await SqliteUserStore.open({ filename: join(folder, 'races.db') });
  return {
    store,
    async close() {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
});

describeCredentialRaces(
  'PostgreSQL',
  async () => {
    const database = await createTestDatabase('credential_races');
    const store = await PostgresUserStore.open({ connectionString: database.url });
    return {
      store,
      async close() {
        await store.close();
        await database.drop();
      },
    };
  },
  'postgres',
);
