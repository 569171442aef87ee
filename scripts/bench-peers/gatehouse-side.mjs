/** Gatehouse in the peer bench: the standalone server started and seeded exactly as `npm run bench` does. */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BUILD,
  BenchProcess,
  openBenchDatabase,
  PASSWORD,
  resolveAccountOptions,
  seedAccounts,
  startFlags,
} from './gatehouse-build.mjs';

const MAIN = join(BUILD, 'src/server/main.js');
const LISTENING = /"event":"listening"/;

/** Gatehouse's password hashing with its defaults, as the server runs it. */
export function gatehouseHashing() {
  const { hashing, hashingQueue } = resolveAccountOptions({ secretKey: 'x'.repeat(32) });
  return {
    algorithm: 'argon2id',
    ...hashing,
    where:
      `libuv's thread pool (the argon2 package), sized ${availableParallelism()} + 4 threads; a queue runs ` +
      `${hashingQueue.concurrency} at once, lets ${hashingQueue.maxQueued} wait, and answers 503 past that`,
  };
}

export async function startGatehouse() {
  const database = await openBenchDatabase('sqlite');
  const cwd = mkdtempSync(join(tmpdir(), 'gatehouse-bench-peers-'));
  // The environment of `npm run bench` (scripts/bench/bench.ts): rate limits off, everything else the default.
  const env = {
    GATEHOUSE_DATABASE_URL: database.url,
    GATEHOUSE_SECRET_KEY: 'bench-secret-key-bench-secret-key-bench-secret-key',
    GATEHOUSE_RATE_LIMITS: 'off',
    GATEHOUSE_PUBLIC_URL: 'http://127.0.0.1:8000',
  };
  const server = await BenchProcess.start(MAIN, env, LISTENING, { cwd, nodeArgs: startFlags() });
  try {
    const seeded = await seedAccounts(server, env, cwd);
    const bearer = { authorization: `Bearer ${seeded.token}` };
    const prefix = `p${Date.now().toString(36)}`;
    let next = 0;
    return {
      name: 'Gatehouse',
      server,
      routes: { session: 'GET /auth/me', signIn: 'POST /auth/login', signUp: 'POST /auth/register' },
      session: (connections) => ({ url: `${server.url}/auth/me`, headers: bearer, connections, expect: [200] }),
      signIn: (connections) => ({
        url: `${server.url}/auth/login`,
        method: 'POST',
        body: { username: seeded.username, password: PASSWORD },
        connections,
        expect: [200],
      }),
      // A new account per request.
      signUp: (connections) => ({
        url: `${server.url}/auth/register`,
        method: 'POST',
        body: () => {
          const username = `${prefix}x${(next++).toString(36)}`;
          return { username, email: `${username}@example.com`, password: PASSWORD };
        },
        connections,
        expect: [201],
      }),
      async checkSession() {
        const response = await fetch(`${server.url}/auth/me`, { headers: bearer });
        if (response.status !== 200) throw new Error(`Gatehouse: GET /auth/me answered ${response.status}`);
      },
      async stop() {
        await server.stop();
        await database.drop();
        rmSync(cwd, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server.stop();
    await database.drop();
    throw error;
  }
}
