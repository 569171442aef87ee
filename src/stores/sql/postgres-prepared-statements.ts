import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/**
 * The SQL texts that run as named (server-side prepared) statements on PostgreSQL: parsed and planned once per
 * connection, then only bound and executed. For a primary-key lookup the parse and plan are most of the server's work:
 * measured on `GET /me`, PostgreSQL's CPU per request fell from about 138 µs to 49 µs (BENCHMARKS.md).
 *
 * Only statements the store marks (`SqlCapabilities.prepare`) are named, so their number stays fixed. The name is
 * derived from the text, so stores sharing a pool, or a text marked twice, agree on it.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();

  add(sql: string): void {
    if (!this.names.has(sql))
      this.names.set(sql, `gatehouse_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`);
  }

  nameOf(sql: string): string | undefined {
    return this.names.get(sql);
  }
}

/** The pool as Kysely sees it, except that its clients run the marked texts as named statements. */
export function preparingView(pool: PostgresPool, statements: PreparedStatements): PostgresPool {
  return {
    connect: async () => preparingClient(await pool.connect(), statements),
    end: () => pool.end(),
  };
}

function preparingClient(client: PostgresPoolClient, statements: PreparedStatements): PostgresPoolClient {
  const query = ((sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>) => {
    const name = typeof sqlOrCursor === 'string' ? statements.nameOf(sqlOrCursor) : undefined;
    if (name === undefined) return (client.query as (...args: unknown[]) => unknown)(sqlOrCursor, parameters);
    // node-postgres sends Parse for a name only the first time on each connection, then Bind and Execute.
    return (client.query as (config: object) => unknown)({ name, text: sqlOrCursor, values: parameters });
  }) as PostgresPoolClient['query'];
  return { query, release: () => client.release() };
}
