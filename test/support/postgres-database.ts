import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { serviceUrl } from './services';

/**
 * A database of its own for one test file (or one test), on the PostgreSQL server of `GATEHOUSE_TEST_POSTGRES_URL`:
 * other test runs use the same server at the same time, so nothing here touches anything it did not create.
 */
export interface TestDatabase {
  name: string;
  /** Connection URL of this database (the server's URL with the path replaced). */
  url: string;
  /** The URL with extra query parameters, e.g. an `application_name` to find the connections by. */
  urlWith(params: Record<string, string>): string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

const PREFIX = 'gatehouse_test_';
/** Databases left behind by a run that was killed are dropped by a later run once they are this old. */
const ABANDONED_AFTER_SECONDS = 6 * 3600;

/** Creates `gatehouse_test_<label>_<created, base 36 seconds>_<random>`. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const created = Math.floor(Date.now() / 1000);
  const tag = label
    .replace(/[^a-z0-9]+/gi, '_')
    .toLowerCase()
    .slice(0, 20);
  const name = `${PREFIX}${tag}_${created.toString(36)}_${randomBytes(5).toString('hex')}`;
  await asAdmin(async (client) => {
    // CREATE DATABASE copies template1 and fails while anyone else is connected to it; that passes in a moment.
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`create database "${name}"`);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt >= 10) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
    await dropAbandoned(client, created);
  });
  const urlWith = (params: Record<string, string>) => {
    const url = new URL(serviceUrl('postgres'));
    url.pathname = `/${name}`;
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return url.toString();
  };
  return {
    name,
    url: urlWith({}),
    urlWith,
    drop: () =>
      asAdmin(async (client) => {
        await connectionsGone(client, name);
        await client.query(`drop database if exists "${name}" with (force)`);
      }),
  };
}

async function asAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serviceUrl('postgres'), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A pool's `end()` resolves before its connections finish closing. Forcing the drop then makes the server end them
 * with an error, which a pool without an `error` listener throws as an uncaught exception in the middle of another
 * test. So the drop waits (briefly) for the connections of code under test to finish closing on their own.
 */
async function connectionsGone(client: Client, name: string): Promise<void> {
  for (let waited = 0; waited < 3_000; waited += 50) {
    const { rows } = await client.query<{ open: number }>(
      'select count(*)::int as open from pg_stat_activity where datname = $1',
      [name],
    );
    if (rows[0].open === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function dropAbandoned(client: Client, now: number): Promise<void> {
  const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [
    `${PREFIX}%`,
  ]);
  for (const { datname } of rows) {
    const created = parseInt(/_([0-9a-z]+)_[0-9a-f]{10}$/.exec(datname)?.[1] ?? '', 36);
    if (Number.isFinite(created) && now - created > ABANDONED_AFTER_SECONDS) {
      await client.query(`drop database if exists "${datname}" with (force)`).catch(() => undefined);
    }
  }
}
