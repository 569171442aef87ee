import {
  type InsertQueryBuilder,
  type InsertResult,
  type Kysely,
  sql,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely';
import { runPrepared } from './run-prepared';
import type { Database } from './schema';
import type { SqlCapabilities } from './sql-capabilities';

/**
 * An INSERT built and not yet run, or an UPDATE that only records something alongside them (a credential's last use)
 * and that nothing later in the transaction decides on.
 */
export type PendingInsert =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- into any table of the schema
  | InsertQueryBuilder<Database, any, InsertResult>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- of any table of the schema
  | UpdateQueryBuilder<Database, any, any, UpdateResult>;

/**
 * Runs the inserts of one transaction, skipping those left undefined. Where the
 * database allows (`SqlCapabilities.insertsTogether`) they go as one statement, each but the last in a data-modifying
 * WITH, and prepared (`runPrepared`): on PostgreSQL each statement is a round trip, which costs the event loop and the
 * server more than the insert. The rows are the same either way: PostgreSQL checks foreign keys at the end of the
 * statement, once every row of it is in, and a violated key fails the whole statement as it would fail the
 * transaction.
 *
 * @example
 * await insertTogether(trx, capabilities, [trx.insertInto('users').values(row), trx.insertInto('tokens').values(token)]);
 */
export async function insertTogether(
  trx: Kysely<Database>,
  capabilities: SqlCapabilities,
  inserts: ReadonlyArray<PendingInsert | undefined>,
): Promise<void> {
  const present = inserts.filter((insert): insert is PendingInsert => insert !== undefined);
  if (!capabilities.insertsTogether || present.length < 2) {
    for (const insert of present) await insert.execute();
    return;
  }
  const last = present[present.length - 1];
  const before = present.slice(0, -1).map((insert, index) => sql`${sql.id(`insert_${index}`)} as (${insert})`);
  await runPrepared(trx, capabilities, sql`with ${sql.join(before)} ${last}`.compile(trx));
}
