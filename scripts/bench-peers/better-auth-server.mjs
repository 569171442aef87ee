/**
 * better-auth as `npm run bench:peers` runs it: email and password on a fresh SQLite file (better-sqlite3), the
 * bearer plugin, rate limits off (as Gatehouse's are in the bench), on plain node:http. Listens on PORT and prints
 * `better-auth listening on <port>` to stderr once its schema is made.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';
import { bearer } from 'better-auth/plugins/bearer';

const port = Number(process.env.PORT);
const folder = mkdtempSync(join(tmpdir(), 'gatehouse-bench-better-auth-'));
const database = new Database(join(folder, 'bench.db'));
// The settings Gatehouse's SQLite store opens its file with, so that both sides pay for the same durability.
// exec, not pragma(): the statement pragma() leaves behind has aborted Node 24 at collection (sqlite-statement-cache.ts).
database.exec('PRAGMA journal_mode = WAL');
database.exec('PRAGMA synchronous = FULL');
database.exec('PRAGMA foreign_keys = ON');

const options = {
  database,
  secret: 'bench-secret-bench-secret-bench-secret-bench-secret',
  baseURL: `http://127.0.0.1:${port}`,
  emailAndPassword: { enabled: true },
  plugins: [bearer()],
  // Off for the benchmark only, like GATEHOUSE_RATE_LIMITS=off: one client address sends every request.
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
};

// The schema better-auth's CLI would make (`auth migrate`), made here through the same migration plan.
const { runMigrations } = await getMigrations(options);
await runMigrations();

const auth = betterAuth(options);
const server = createServer(toNodeHandler(auth));
server.listen(port, '127.0.0.1', () => process.stderr.write(`better-auth listening on ${port}\n`));

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  database.close();
  rmSync(folder, { recursive: true, force: true });
  process.exit(0);
});
