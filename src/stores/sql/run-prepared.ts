import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { SqlCapabilities } from './sql-capabilities';

/**
 * Runs `query` (built, or compiled) on `db` (the store's or a transaction's), marked for preparing once per connection
 * where the database gains from that (`SqlCapabilities.prepare`; PostgreSQL: a named statement, parsed and planned
 * once). For the statements of every sign-up and sign-in, whose SQL text is the same at each run. The text must not
 * vary with the values (no `IN` list of varying length: each length would be a statement of its own), and it must
 * name its columns rather than `*` (see request-path-queries.ts).
 */
export function runPrepared<Row>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema: the query was built on it
  db: Kysely<any>,
  capabilities: SqlCapabilities,
  query: Compilable<Row> | CompiledQuery<Row>,
): Promise<QueryResult<Row>> {
  const compiled = 'compile' in query ? query.compile() : query;
  capabilities.prepare?.(compiled.sql);
  return db.executeQuery(compiled);
}
