import assert from 'node:assert/strict';
import path from 'node:path';
import { cachedStatementCount } from '../../src/stores/sql/sqlite-statement-cache';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { makeHarness } from '../support/core-harness';
import { makeTempFolder } from './temp-folder';

describe('SqliteUserStore: prepared statements', () => {
  it('prepares each SQL text once and reuses it, so no statement is ever left for the garbage collector', async () => {
    const folder = makeTempFolder();
    const store = await SqliteUserStore.open({ filename: path.join(folder.path, 'gatehouse.db') });
    try {
      const h = makeHarness({ store, options: { hashing: { memoryCost: 1024, timeCost: 1 } } });
      const lifeOf = async (name: string) => {
        const token = await h.loginNewUser(name);
        await h.accounts.authenticate(token);
        await h.accounts.logoutAll(token);
        await h.accounts.requestPasswordReset(`${name}@example.com`);
        await h.accounts.drain();
        await h.store.deleteExpired(h.clock.now(), h.clock.now());
      };
      await lifeOf('alice');
      const afterFirst = cachedStatementCount();
      // The same shapes of query with other values: nothing new is prepared.
      for (const name of ['bob', 'carol', 'dave']) await lifeOf(name);
      assert.equal(cachedStatementCount(), afterFirst);
    } finally {
      await store.close();
      folder.remove();
    }
  });
});
