import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Everything better-sqlite3 ever handed us, kept reachable until the process exits.
 *
 * Why: better-sqlite3 up to 12 builds its Database and Statement objects on `node::ObjectWrap`, whose destructor on
 * Node 24 asserts that a Node environment is current. V8 may collect such an object in a garbage collection that
 * runs outside any context, and then the process aborts (`Assertion failed: (env) != nullptr` in
 * `Statement::~Statement`, seen here: a standalone server died while migrating on Node 24.21; WiseLibs/better-sqlite3
 * #1515). better-sqlite3 13 (Node-API) is free of it but needs Node 22, and Gatehouse supports Node 20. So no
 * statement of ours ever becomes garbage: Kysely prepares one per query, and here each distinct SQL text is
 * prepared once and reused, which is also faster. Gatehouse's queries have a fixed set of shapes, so the cache is
 * bounded by the code, not by the traffic.
 */
const keptAlive: object[] = [];

/** `database` for Kysely's SqliteDialect, with one prepared statement per SQL text, never collected. */
export function cachingStatements(database: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  keptAlive.push(database, statements);
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
