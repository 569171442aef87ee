import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { cachedStatementCount, openSqlite } from '../../src/stores/sql/sqlite-statement-cache';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { makeHarness } from '../support/core-harness';
import { makeTempFolder } from './temp-folder';
import { CHEAP_HASHING } from '../support/fixtures';

describe('SqliteUserStore: prepared statements', () => {
  it('prepares each SQL text once and reuses it, so no statement is ever left for the garbage collector', async () => {
    const folder = makeTempFolder();
    const store = await SqliteUserStore.open({ filename: path.join(folder.path, 'gatehouse.db') });
    try {
      const h = makeHarness({ store, options: { hashing: CHEAP_HASHING } });
      const lifeOf = async (name: string) => {
        const token = await h.loginNewUser(name);
        await h.accounts.authenticate(token);
        await h.accounts.logoutAll(token);
        await h.accounts.requestPasswordReset(`${name}@example.com`);
        await h.accounts.drain();
        await h.store.deleteExpired({ now: h.clock.now(), sessionIdleBefore: h.clock.now() });
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

describe('openSqlite', () => {
  it('leaves nothing for the garbage collector: 5,000 connections opened and closed, then a clean exit', () => {
    // Without the keep-alive, this script aborts at exit on Node 24.19+ (exit 134, "Assertion failed: (env) !=
    // nullptr" in Database::~Database); on Node 20 it passes either way.
    const module = path.join(__dirname, '../../src/stores/sql/sqlite-statement-cache.js');
    const script = `
      const { openSqlite } = require(${JSON.stringify(module)});
      for (let i = 0; i < 5000; i++) {
        const db = openSqlite(':memory:');
        db.prepare('select 1').get();
        db.exec('PRAGMA busy_timeout = 10');
        db.close();
      }
      console.log('done');`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(child.stderr, '');
    assert.equal(child.stdout.trim(), 'done');
    assert.equal(child.status, 0);
  });

  it('refuses pragma(), whose statement it could not keep', () => {
    const db = openSqlite(':memory:');
    try {
      assert.throws(() => db.pragma('busy_timeout = 10'), /use exec/);
    } finally {
      db.close();
    }
  });
});
