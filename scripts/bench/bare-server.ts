/**
 * The framework ceiling of `npm run bench`: one routing-controllers route on Koa, with routing-controllers' defaults,
 * answering a constant JSON object. Nothing Gatehouse does can be faster than this on the same machine, so every
 * route's rate is reported as a share of it. Listens on PORT and says so on stderr.
 *
 * `/bare-read` is a reference, not a ceiling: the same route plus the least any session check must do (an HMAC of
 * the bearer header and one synchronous primary-key read from an SQLite file, without Gatehouse, Kysely or any
 * middleware). It shows how much of the bare rate a route with one database read can keep on this machine at all.
 */
import '../../src/server/threadpool-size';
import 'reflect-metadata';
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
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

class NoGlobalClasses {}

const app = new Koa();
useKoaServer(app, { controllers: [BareController], middlewares: [NoGlobalClasses], interceptors: [NoGlobalClasses] });
createServer(app.callback()).listen(Number(process.env.PORT), '127.0.0.1', () => {
  process.stderr.write('{"event":"listening"}\n');
});
process.once('SIGTERM', () => process.exit(0));
