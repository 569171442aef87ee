import { type Compilable, type CompiledQuery, createQueryId, type Kysely } from 'kysely';

/** A query built and compiled once, run many times with new parameter values. */
export interface PrecompiledQuery<Params extends string[], Row> {
  /** The rows of the query for these values, in the order the builder took its placeholders. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- runs on any database whose schema compiled it
  execute(db: Kysely<any>, ...values: Params): Promise<Row[]> | Row[];
}

/**
 * Runs a compiled read outside Kysely (see `SqlCapabilities.readDirect`); rows, or a promise of them.
 * `query` is Kysely's compiled form, for a query log.
 */
export type DirectRead = <Row>(query: CompiledQuery<Row>) => Promise<Row[]> | Row[];

export interface PrecompileOptions {
  /** Told the SQL text once, before its first run (to prepare it where the database gains from that). */
  onCompiled?: (sql: string) => void;
  /**
   * Runs the query when `execute` is given `direct.db`, instead of Kysely: the request path's reads then skip
   * Kysely's connection handling, which costs more than the read itself. Any other `db` (a transaction) still runs it
   * through Kysely.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the store's own Kysely, whatever its schema
  direct?: { db: Kysely<any>; read: DirectRead };
}

// A value no caller can pass as a real parameter (PostgreSQL text cannot even hold NUL): a placeholder.
const placeholder = (index: number) => `\u0000gatehouse-parameter-${index}`;

/**
 * Builds and compiles a query once, with placeholders where its values go, and runs it with the values of each call
 * (the SQL text never changes, so SQLite's statement cache holds one statement for it). Building a Kysely query and
 * compiling it to SQL costs more than running a primary-key lookup on SQLite; on the request path (session
 * validation, role and permission checks, login's user lookup) that was paid on every request for the same SQL.
 *
 * `build` receives one placeholder per value and must hand each to Kysely as a parameter (`where(col, '=', p)`),
 * never into the SQL text; a placeholder that does not come out as exactly one parameter fails the first run.
 *
 * @example
 * const byId = precompile(1, (id: string) => db.selectFrom('users').selectAll().where('id', '=', id));
 * const rows = await byId.execute(db, userId);
 */
export function precompile<Params extends string[], Row>(
  arity: Params['length'],
  build: (...placeholders: Params) => Compilable<Row>,
  options: PrecompileOptions = {},
): PrecompiledQuery<Params, Row> {
  const { onCompiled, direct } = options;
  let compiled: { query: CompiledQuery<Row>; sources: number[] } | undefined;
  const throughKysely = async (db: Parameters<PrecompiledQuery<Params, Row>['execute']>[0], values: Params) => {
    if (!compiled) {
      // Compiled at the first run, not when the store is built: a Kysely plugin's transformQuery then sees the query
      // once, when it first runs, rather than queries that have not run yet.
      compiled = compileWithPlaceholders(arity, build);
      onCompiled?.(compiled.query.sql);
      return (await db.executeQuery<Row>(fill(compiled.query, compiled.sources, values))).rows;
    }
    // Later runs are new queries to any plugin keeping state per query id.
    const query = { ...fill(compiled.query, compiled.sources, values), queryId: createQueryId() };
    return (await db.executeQuery<Row>(query)).rows;
  };
  return {
    execute(db, ...values) {
      if (compiled && direct && db === direct.db) return direct.read(fill(compiled.query, compiled.sources, values));
      return throughKysely(db, values);
    },
  };
}

function compileWithPlaceholders<Params extends string[], Row>(
  arity: number,
  build: (...placeholders: Params) => Compilable<Row>,
): { query: CompiledQuery<Row>; sources: number[] } {
  const placeholders = Array.from({ length: arity }, (_, index) => placeholder(index)) as Params;
  const query = build(...placeholders).compile();
  // For each parameter of the compiled query: which value fills it, or -1 for a constant the builder put there.
  const sources = query.parameters.map((value) => placeholders.indexOf(value as string));
  for (let index = 0; index < arity; index++) {
    if (sources.filter((source) => source === index).length !== 1) {
      throw new Error(`precompile: placeholder ${index} must become exactly one parameter of: ${query.sql}`);
    }
  }
  return { query, sources };
}

function fill<Row>(query: CompiledQuery<Row>, sources: number[], values: string[]): CompiledQuery<Row> {
  // A loop and a literal, not `map` and a spread: this runs on every request of the request path.
  const parameters: unknown[] = new Array(sources.length);
  for (let index = 0; index < sources.length; index++) {
    const source = sources[index];
    parameters[index] = source === -1 ? query.parameters[index] : values[source];
  }
  return { query: query.query, queryId: query.queryId, sql: query.sql, parameters };
}
