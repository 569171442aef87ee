import type { CompiledQuery, KyselyConfig, LogEvent } from 'kysely';
import type { Pool } from 'pg';
import { type DialectGuard, unavailableOnFailure } from './guarded-dialect';
import type { PreparedStatements } from './postgres-prepared-statements';
import type { DirectRead } from './precompiled-query';

/**
 * The request path's reads on PostgreSQL, sent by the pool itself as the named statements `statements` knows,
 * instead of through Kysely's executor and connection handling, which cost more per request than node-postgres'
 * own round trip. Each read is one statement on whichever pooled connection is free, as through Kysely, so it sees
 * what Kysely would. The guard is the store's: the same 503 when the database is down, and nothing runs before the
 * migrations have.
 *
 * Undefined where the query log is Kysely's own console logger (it would miss these reads); a log function is called
 * for each read.
 */
export function postgresDirectReads(
  pool: Pool,
  statements: PreparedStatements,
  guard: DialectGuard,
  log: KyselyConfig['log'],
): DirectRead | undefined {
  if (log !== undefined && typeof log !== 'function') return undefined;
  const sent = new Map<string, { name: string; text: string }>();
  const statementFor = (sql: string) => {
    let statement = sent.get(sql);
    if (!statement) {
      const text = asOneJsonColumn(sql);
      statements.add(text);
      statement = { name: statements.nameOf(text)!, text };
      sent.set(sql, statement);
    }
    return statement;
  };
  return <Row>(query: CompiledQuery<Row>) =>
    unavailableOnFailure(guard, async () => {
      await guard.beforeFirstQuery?.();
      const started = performance.now();
      try {
        const { name, text } = statementFor(query.sql);
        const { rows } = await pool.query<{ row: Row }>({ name, text, values: [...query.parameters] });
        void log?.({ level: 'query', query, queryDurationMillis: performance.now() - started } as LogEvent);
        return rows.map((row) => row.row);
      } catch (error) {
        void log?.({ level: 'error', error, query, queryDurationMillis: performance.now() - started } as LogEvent);
        throw error;
      }
    });
}

/**
 * The read with its row as one JSON object, keyed by the same column names. Why: node-postgres describes the portal
 * on every execution and handles each column of the description and of the row in JS, about as much again per
 * column as the reference's whole three-column read (perf, `GET /me`'s ten columns); one `json` column is parsed by
 * `JSON.parse` in one native call. The values come back as JSON has them: \`bigint\` epoch milliseconds as numbers
 * (exact far beyond any date's), which the row mappers take as they take the strings node-postgres gives for int8.
 * Only for the request path's reads, each a lookup by a key (one row, no order to keep).
 */
function asOneJsonColumn(sql: string): string {
  return `select to_json(t) as "row" from (${sql}) as t`;
}
