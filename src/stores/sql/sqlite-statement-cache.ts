import BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Everything better-sqlite3 ever handed us, kept reachable until the process exits.
 *
 * Why: better-sqlite3 up to 12 builds its Database and Statement objects on `node::ObjectWrap`, whose destructor on
 * Node 24 asserts that a Node environment is current. V8 may collect such an object in a garbage collection that
 * runs outside any context, and then the process aborts (`Assertion failed: (env) != nullptr` in
 * `Statement::~Statement` or `Database::~Database`; seen here: a standalone server died while migrating, and a test
 * run died after a throwaway connection was collected; WiseLibs/better-sqlite3 #1515, nodejs/node #65446).
 * better-sqlite3 13 (Node-API) is free of it but needs Node 22, and Gatehouse supports Node 20. So no connection or
 * statement ever becomes garbage: every connection is opened through `openSqlite`, which keeps it and each statement
 * it prepares. pragma() prepares natively, out of our reach, so it is refused; `exec('PRAGMA ...')` makes no statement.
 */
const keptAlive: object[] = [];

/** A better-sqlite3 connection that, with every statement it prepares, is never collected (see above). */
export function openSqlite(filename: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  const database = new BetterSqlite3(filename, options);
  keptAlive.push(database);
  const prepare = database.prepare.bind(database);
  database.prepare = ((source: string) => {
    const statement = prepare(source);
    keptAlive.push(statement);
    return statement;
  }) as typeof database.prepare;
  database.pragma = () => {
    throw new Error('pragma() leaves a statement to be collected (a Node 24 abort); use exec("PRAGMA ...")');
  };
  return database;
}

/**
 * `database` for Kysely's SqliteDialect, with one prepared statement per SQL text. Kysely prepares one per query;
 * reusing them is faster, and Gatehouse's queries have a fixed set of shapes, so what `openSqlite` keeps is bounded
 * by the code, not by the traffic.
 */
export function cachingStatements(database: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  keptAlive.push(statements);
  return {
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        statements.set(sql, statement);
      }
      return statement as unknown as SqliteStatement;
    },
    close(): void {
      database.close();
    },
  };
}

/** How many statements are cached for the databases opened so far; for tests. */
export function cachedStatementCount(): number {
  return keptAlive.reduce<number>((sum, item) => sum + (item instanceof Map ? item.size : 0), 0);
}
