import { expect } from 'chai';
import {
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteQueryCompiler,
} from 'kysely';
import { firstComeDialect } from '../../src/stores/sql/first-come-dialect';
import { precompile } from '../../src/stores/sql/precompiled-query';
import { cachingStatements, openSqlite } from '../../src/stores/sql/sqlite-statement-cache';

/** A driver with one connection whose acquisitions are recorded; no database behind it. */
function recordingDriver(): Driver {
  const connection = {
    executeQuery: async () => ({ rows: [] }),
    streamQuery: () => undefined,
  } as unknown as DatabaseConnection;
  return {
    init: async () => undefined,
    acquireConnection: async () => connection,
    releaseConnection: async () => undefined,
    beginTransaction: async () => undefined,
    commitTransaction: async () => undefined,
    rollbackTransaction: async () => undefined,
    destroy: async () => undefined,
  };
}

describe('driver workarounds (docs/decisions)', () => {
  it('first-come dialect: the one connection goes to the oldest waiter, never to a newcomer (no starved writer)', async () => {
    const inner = recordingDriver();
    const dialect = firstComeDialect({
      createAdapter: () => new SqliteAdapter(),
      createQueryCompiler: () => new SqliteQueryCompiler(),
      createIntrospector: () => {
        throw new Error('not used');
      },
      createDriver: () => inner,
    });
    const driver = dialect.createDriver();
    const order: string[] = [];
    const first = await driver.acquireConnection();
    const waiters = ['writer', 'reader-1', 'reader-2'].map((name) =>
      driver.acquireConnection().then(async (connection) => {
        order.push(name);
        await driver.releaseConnection(connection);
      }),
    );
    await driver.releaseConnection(first);
    // A newcomer arriving after the release queues behind those already waiting.
    const newcomer = driver.acquireConnection().then(async (connection) => {
      order.push('newcomer');
      await driver.releaseConnection(connection);
    });
    await Promise.all([...waiters, newcomer]);
    expect(order).to.deep.equal(['writer', 'reader-1', 'reader-2', 'newcomer']);
  });

  it('precompiled queries: each run fills its own values, keeps constants, and refuses a placeholder that is not one parameter', async () => {
    // Through openSqlite, as the store opens it: no better-sqlite3 object may be collected (see its comment).
    const database = cachingStatements(openSqlite(':memory:'));
    const db = new Kysely<{ t: { a: string; b: string } }>({ dialect: new SqliteDialect({ database }) });
    try {
      await db.schema.createTable('t').addColumn('a', 'text').addColumn('b', 'text').execute();
      await db
        .insertInto('t')
        .values([
          { a: 'x', b: 'kept' },
          { a: 'y', b: 'kept' },
          { a: 'x', b: 'other' },
        ])
        .execute();
      const query = precompile(1, (a: string) =>
        db.selectFrom('t').select('a').where('a', '=', a).where('b', '=', 'kept'),
      );
      expect(await query.execute(db, 'x')).to.deep.equal([{ a: 'x' }]);
      expect(await query.execute(db, 'y')).to.deep.equal([{ a: 'y' }]);

      const twice = precompile(1, (a: string) => db.selectFrom('t').select('a').where('a', '=', a).where('b', '=', a));
      let refused: unknown;
      await Promise.resolve(twice.execute(db, 'x')).catch((error: unknown) => (refused = error));
      expect(String(refused)).to.match(/placeholder 0 must become exactly one parameter/);
    } finally {
      await db.destroy();
    }
  });
});
