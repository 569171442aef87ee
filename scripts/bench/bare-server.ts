/**
 * The framework ceiling of `npm run bench`: one routing-controllers route on Koa, with routing-controllers' defaults,
 * answering a constant JSON object. Nothing Gatehouse does can be faster than this on the same machine, so every
 * route's rate is reported as a share of it. Listens on PORT and says so on stderr.
 *
 * `/bare-read` is a reference, not a ceiling: the same route plus the least any session check must do (an HMAC of
 * the bearer header and one synchronous primary-key read from an SQLite file, without Gatehouse, Kysely or any
 * middleware). It shows how much of the bare rate a route with one database read can keep on this machine at all.
 *
 * `/bare-read-postgres`, served when BENCH_POSTGRES_URL names the bench's database, is the same reference on
 * PostgreSQL: the read is one named prepared statement through a `pg.Pool` the size of Gatehouse's default (10), as
 * Gatehouse's request-path reads are, from a table of its own in that database.
 */
import '../../src/server/threadpool-size';
import 'reflect-metadata';
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { Pool } from 'pg';
import { Get, HeaderParam, JsonController, useKoaServer } from 'routing-controllers';
import { openSqlite } from '../../src/stores/sql/sqlite-statement-cache';

const ANSWER = { username: 'bench', email: 'bench@example.com', verified: true };

const database = openSqlite(join(mkdtempSync(join(tmpdir(), 'gatehouse-bare-')), 'bare.db'));
database.exec('PRAGMA journal_mode = WAL');
database.exec('create table sessions (token_hash text primary key, username text, email text, verified integer)');
const KEY = 'bare-route-reference-key';
const hashOf = (header: string) => createHmac('sha256', KEY).update(header).digest('base64url');
database.prepare('insert into sessions values (?, ?, ?, 1)').run(hashOf('Bearer bench'), ANSWER.username, ANSWER.email);
const findSession = database.prepare('select username, email, verified from sessions where token_hash = ?');

@JsonController()
class BareController {
  @Get('/bare')
  bare() {
    return ANSWER;
  }

  @Get('/bare-read')
  bareRead(@HeaderParam('authorization') authorization: string) {
    const row = findSession.get(hashOf(authorization ?? '')) as { username: string; email: string; verified: number };
    return { username: row.username, email: row.email, verified: row.verified === 1 };
  }
}

const postgresUrl = process.env.BENCH_POSTGRES_URL;
// Named so that the bench can tell its backends from Gatehouse's in pg_stat_activity.
const pool = postgresUrl
  ? new Pool({ connectionString: postgresUrl, max: 10, application_name: 'gatehouse-bench-reference' })
  : undefined;
const FIND_SESSION = {
  name: 'reference_find_session',
  text: 'select username, email, verified from reference_sessions where token_hash = $1',
};

@JsonController()
class PostgresReadController {
  @Get('/bare-read-postgres')
  async bareReadPostgres(@HeaderParam('authorization') authorization: string) {
    const { rows } = await pool!.query<{ username: string; email: string; verified: boolean }>({
      ...FIND_SESSION,
      values: [hashOf(authorization ?? '')],
    });
    const row = rows[0];
    return { username: row.username, email: row.email, verified: row.verified };
  }
}

async function main(): Promise<void> {
  if (pool) {
    await pool.query(
      'create table reference_sessions (token_hash text primary key, username text not null, email text not null, ' +
        'verified boolean not null)',
    );
    await pool.query('insert into reference_sessions values ($1, $2, $3, true)', [
      hashOf('Bearer bench'),
      ANSWER.username,
      ANSWER.email,
    ]);
  }
  class NoGlobalClasses {}
  const app = new Koa();
  useKoaServer(app, {
    controllers: pool ? [BareController, PostgresReadController] : [BareController],
    middlewares: [NoGlobalClasses],
    interceptors: [NoGlobalClasses],
  });
  createServer(app.callback()).listen(Number(process.env.PORT), '127.0.0.1', () => {
    process.stderr.write('{"event":"listening"}\n');
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bare-server: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
process.once('SIGTERM', () => process.exit(0));
