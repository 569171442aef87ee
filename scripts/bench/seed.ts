import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { BenchProcess } from './bench-process';
import { PostgresBackends } from './postgres-backends';

export const PASSWORD = 'violet staircase 42 umbrella';
const CLI = join(__dirname, '../../src/cli/main.js');
const HOST_ROUTE = '/host/reports';
/** The host route behind a bare `@Authorized()` (host-server.ts), for the API key against `GET /me`. */
const HOST_ANY_ROUTE = '/host/any';
const HOST_PERMISSION = 'reports.read';
const DEVICES = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
  'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
];

/** The environment every bench gives the servers under test on `database`. */
export function benchEnv(database: Pick<BenchDatabase, 'url'>): Record<string, string> {
  return {
    GATEHOUSE_DATABASE_URL: database.url,
    GATEHOUSE_SECRET_KEY: 'bench-secret-key-bench-secret-key-bench-secret-key',
    // Off for the benchmark only: one client address sends every request, which the per-IP and per-name limits
    // exist to stop. Everything else (argon2 parameters, hashing queue, body limits, headers) is the default.
    GATEHOUSE_RATE_LIMITS: 'off',
    GATEHOUSE_PUBLIC_URL: 'http://127.0.0.1:8000',
  };
}

/** A database made for one bench run, and how to get rid of it. */
export interface BenchDatabase {
  kind: 'sqlite' | 'postgres';
  url: string;
  /** PostgreSQL: the CPU of the backends serving this database. */
  backends?: PostgresBackends;
  drop(): Promise<void>;
}

/** A fresh SQLite file, or a fresh PostgreSQL database (null when no server answers). */
export async function openBenchDatabase(kind: 'sqlite' | 'postgres'): Promise<BenchDatabase | null> {
  if (kind === 'sqlite') {
    const folder = mkdtempSync(join(tmpdir(), 'gatehouse-bench-db-'));
    return {
      kind,
      url: `sqlite:${join(folder, 'bench.db')}`,
      drop: async () => rmSync(folder, { recursive: true, force: true }),
    };
  }
  const adminUrl =
    process.env.GATEHOUSE_BENCH_POSTGRES_URL ??
    process.env.GATEHOUSE_TEST_POSTGRES_URL ??
    'postgres://postgres@127.0.0.1:5432/test';
  const admin = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `gatehouse_bench_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    backends: new PostgresBackends(admin, name),
    drop: async () => {
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/**
 * What the loads need: a verified user with the permission and a few sessions (one of them `token`), and one with a
 * 128-character password.
 */
export interface Seeded {
  username: string;
  token: string;
  /** How many sessions `username` has. */
  sessions: number;
  longUsername: string;
  longPassword: string;
  hostRoute: string;
  anyRoute: string;
  /** An API key of `username` with the scope `reports.read`, created over HTTP with `token`'s (recent) session. */
  apiKey: string;
}

async function post(
  url: string,
  body: object,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** Registers a user through the API and verifies it with the link the console sender printed. */
export async function registerVerified(server: BenchProcess, username: string, password: string): Promise<void> {
  const before = server.lastLinkToken('verify-email');
  const registered = await post(`${server.url}/auth/register`, {
    username,
    email: `${username}@example.com`,
    password,
  });
  if (registered.status !== 201) throw new Error(`seeding: register answered ${registered.status}`);
  await server.waitFor(() => {
    const latest = server.lastLinkToken('verify-email');
    return latest !== null && latest !== before;
  }, 'the verification mail');
  const verified = await post(`${server.url}/auth/verify-email`, { token: server.lastLinkToken('verify-email') });
  if (verified.status !== 200) throw new Error(`seeding: verify-email answered ${verified.status}`);
}

function cli(args: string[], env: Record<string, string>, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: 'pipe',
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`gatehouse ${args.join(' ')}: ${stderr}`)),
    );
  });
}

/** Creates the accounts and the grant through the public API and the admin CLI, as an operator would. */
export async function seedAccounts(server: BenchProcess, env: Record<string, string>, cwd: string): Promise<Seeded> {
  const username = 'benchreader';
  await registerVerified(server, username, PASSWORD);
  const longUsername = 'benchlong';
  // 128 characters, the policy's maximum, none of them the username.
  const longPassword = randomBytes(96).toString('base64');
  await registerVerified(server, longUsername, longPassword);
  for (const args of [
    ['create-role', 'reader'],
    ['create-permission', HOST_PERMISSION],
    ['grant-permission', 'reader', HOST_PERMISSION],
    ['grant-role', username, 'reader'],
  ]) {
    await cli(args, env, cwd);
  }
  // A person with a few devices: `GET /sessions` lists these, the newest (the one the loads use) first.
  let token = '';
  for (const device of DEVICES) {
    const login = await post(`${server.url}/auth/login`, { username, password: PASSWORD }, { 'user-agent': device });
    if (login.status !== 200) throw new Error(`seeding: login answered ${login.status}`);
    token = String(login.json.access_token);
  }
  const created = await post(
    `${server.url}/auth/api-keys`,
    { name: 'bench', scopes: [HOST_PERMISSION] },
    { authorization: `Bearer ${token}` },
  );
  if (created.status !== 201) throw new Error(`seeding: POST /api-keys answered ${created.status}`);
  const apiKey = String(created.json.key);
  return {
    username,
    token,
    sessions: DEVICES.length,
    longUsername,
    longPassword,
    hostRoute: HOST_ROUTE,
    anyRoute: HOST_ANY_ROUTE,
    apiKey,
  };
}
