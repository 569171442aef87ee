import type { CompiledQuery, KyselyConfig, LogEvent } from 'kysely';
import type { Pool } from 'pg';
import { type DialectGuard, unavailableOnFailure } from './guarded-dialect';
import { BoundRead, BoundReadUnsupported, type RowShape, rowShapeOf } from './postgres-bound-read';
import type { PreparedStatements } from './postgres-prepared-statements';
import type { DirectRead } from './precompiled-query';

/**
 * The request path's reads on PostgreSQL, sent by the pool itself as the named statements `statements` knows,
 * instead of through Kysely's executor and connection handling, which cost more per request than node-postgres'
 * own round trip. Each read is one statement on whichever pooled connection is free, as through Kysely, so it sees
 * what Kysely would. The guard is the store's: the same 503 when the database is down, and nothing runs before the
 * migrations have.
 *
 * A statement's first run goes through node-postgres' ordinary query, which tells its row shape; later runs are
 * `BoundRead`s, which skip describing the result again. Where a pool's clients cannot run those (or refuse them, as
 * in pipeline mode), every read stays ordinary.
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
  // By statement name; a statement with no entry has not answered yet, one with `null` is always read the ordinary way.
  const shapes = new Map<string, RowShape | null>();
  let boundReads = true;

  const ordinaryRead = async (name: string | undefined, query: CompiledQuery) => {
    const { rows, fields } = await pool.query({ name, text: query.sql, values: [...query.parameters] });
    if (name !== undefined && !shapes.has(name)) shapes.set(name, rowShapeOf(pool, fields));
    return rows;
  };
  const boundRead = async (name: string, shape: RowShape, values: (string | null)[], query: CompiledQuery) => {
    const bound = new BoundRead(name, query.sql, values, shape);
    try {
      return await (pool.query(bound) as unknown as Promise<unknown[]>);
    } catch (error) {
      if (bound.submitted && !(error instanceof BoundReadUnsupported)) throw error;
      // Nothing reached the server. If the ordinary read works, this pool's clients do not take bound reads.
      const rows = await ordinaryRead(name, query);
      boundReads = false;
      return rows;
    }
  };
  const read = (query: CompiledQuery) => {
    const name = statements.nameOf(query.sql);
    const shape = name === undefined || !boundReads ? undefined : shapes.get(name);
    const values = shape ? textValues(query.parameters) : undefined;
    return shape && values ? boundRead(name!, shape, values, query) : ordinaryRead(name, query);
  };

  return (query) =>
    unavailableOnFailure(guard, async () => {
      await guard.beforeFirstQuery?.();
      const started = performance.now();
      try {
        const rows = await read(query);
        void log?.({ level: 'query', query, queryDurationMillis: performance.now() - started } as LogEvent);
        return rows as never[];
      } catch (error) {
        void log?.({ level: 'error', error, query, queryDurationMillis: performance.now() - started } as LogEvent);
        throw error;
      }
    });
}

/**
 * The parameters as the text node-postgres would send for them, when they are all strings, numbers or null (the
 * request path's are); undefined otherwise, for node-postgres' own conversion.
 */
function textValues(parameters: readonly unknown[]): (string | null)[] | undefined {
  const values: (string | null)[] = [];
  for (const value of parameters) {
    if (typeof value === 'string' || value === null) values.push(value);
    else if (typeof value === 'number') values.push(String(value));
    else return undefined;
  }
  return values;
}
