import type { KyselyConfig, LogEvent } from 'kysely';
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
  return (query) =>
    unavailableOnFailure(guard, async () => {
      await guard.beforeFirstQuery?.();
      const started = performance.now();
      try {
        const name = statements.nameOf(query.sql);
        const { rows } = await pool.query({ name, text: query.sql, values: [...query.parameters] });
        void log?.({ level: 'query', query, queryDurationMillis: performance.now() - started } as LogEvent);
        return rows;
      } catch (error) {
        void log?.({ level: 'error', error, query, queryDurationMillis: performance.now() - started } as LogEvent);
        throw error;
      }
    });
}
