import { Client } from 'pg';
import { PostgresUserStore } from '../../../src/stores/postgres-user-store';
import { createTestDatabase } from '../../support/postgres-database';
import type { StoreUnderTest } from './security-app';
import type { Row } from './sqlite-file';

/**
 * A PostgresUserStore on a database of its own (dropped on close). `connect` may rewrite the URL, e.g. to go through
 * a TcpProxy that a test cuts to play a restart.
 */
export async function postgresStore(
  label: string,
  connect: (url: string) => string = (url) => url,
): Promise<StoreUnderTest> {
  const database = await createTestDatabase(label);
  const store = await PostgresUserStore.open({ connectionString: connect(database.url) });
  return {
    store,
    filename: '',
    dump: () => dumpPostgres(database.url),
    async close() {
      await store.close();
      await database.drop();
    },
  };
}

/** Every row of every table of the database's schema, tables listed from the catalog so new ones are included. */
async function dumpPostgres(url: string): Promise<Map<string, Row[]>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1",
    );
    const dump = new Map<string, Row[]>();
    for (const { name } of tables.rows) dump.set(name, (await client.query(`select * from "${name}"`)).rows);
    return dump;
  } finally {
    await client.end();
  }
}
