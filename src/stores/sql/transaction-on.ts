import { type Kysely, sql } from 'kysely';

/**
 * Runs `work` as one transaction on `connection` (a Kysely bound to one connection), opened by the SQL text `begin`:
 * for the capabilities that need more than Kysely's plain BEGIN (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: `BEGIN`
 * with `SET LOCAL` in the same round trip). Commits, or rolls back and rethrows what `work` threw.
 */
export async function transactionOn<DB, T>(
  connection: Kysely<DB>,
  begin: string,
  work: (trx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  await sql.raw(begin).execute(connection);
  try {
    const result = await work(connection);
    await sql`commit`.execute(connection);
    return result;
  } catch (error) {
    // The database may have rolled back by itself (SQLite after SQLITE_FULL or SQLITE_IOERR), or the connection
    // failed; then this rollback fails too, and the error worth reporting is the first one.
    await sql`rollback`.execute(connection).catch(() => undefined);
    throw error;
  }
}
