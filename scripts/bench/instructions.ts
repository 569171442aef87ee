/**
 * `npm run bench:instructions`: machine instructions per request, counted by valgrind, for the rows whose CPU the
 * main bench compares with its reference (the bare route, the reference, `GET /me`, the perm host route on SQLite, and
 * the API key's two rows, judged against `GET /me` and the perm route with a session),
 * and for sign-in and registration (`POST /login`, `POST /register`: argon2's work included, in its threads).
 *
 * Why: on the bench VM the same build's server CPU per request moves by ±15% from one 5-second run to the next (and
 * at times from 60 to 150 µs), so an A/B of a change worth 2% cannot be read from `npm run bench`. Instructions are
 * counted, not sampled: under cachegrind with `node --predictable` (single-threaded, deterministic GC and
 * compilation), two runs of the same build agree to about 1%. They are not time (a cache miss costs no instruction),
 * so this complements the bench, it does not replace it.
 *
 * Each server runs under `valgrind --tool=cachegrind` twice, answering `--requests A,B` requests (default 3000,9000)
 * over 4 keep-alive connections; the difference of the two totals over B - A is the cost of a request with start-up
 * and warm-up taken out. Needs valgrind (Debian: `apt-get install valgrind`). About ten minutes with the defaults.
 *
 * Sign-in and registration hash a password each (about a second a request under valgrind), so they answer fewer
 * (`--signins A,B`, default 20,60).
 *
 * `--only TEXT` counts only the rows whose name contains TEXT (with `perm`, the perm host route alone: an A/B of two
 * checkouts side by side, under the same load).
 *
 *   npm run bench:instructions -- --requests 3000,9000 --signins 20,60 --parallel 2 [--only perm]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchProcess } from './bench-process';
import { benchEnv, openBenchDatabase, PASSWORD, seedAccounts } from './seed';
import { startFlags } from './start-flags';

const BUILD = join(__dirname, '../..');
const LISTENING = /"event":"listening"/;
const CONNECTIONS = 4;
/** Instructions only: no cache simulation, no output file; code V8 writes at run time is re-read when it changes. */
const VALGRIND = ['--tool=cachegrind', '--cache-sim=no', '--smc-check=all-non-file', '--cachegrind-out-file=/dev/null'];

interface Target {
  name: string;
  script: string;
  nodeArgs: string[];
  path: string;
  headers: Record<string, string>;
  /** A POST's JSON body for the n-th request of a run; absent: a GET. */
  body?: (n: number, run: number) => object;
  /** The two run lengths, when not `--requests`. */
  requests?: [number, number];
}

async function main(): Promise<void> {
  const { requests, signins, parallel, only } = parseArgs(process.argv.slice(2));
  if (!(await hasValgrind())) {
    process.stderr.write('bench:instructions needs valgrind on PATH (Debian: apt-get install valgrind)\n');
    process.exit(2);
  }
  const database = (await openBenchDatabase('sqlite'))!;
  const cwd = mkdtempSync(join(tmpdir(), 'gatehouse-instructions-'));
  const env = benchEnv(database);
  try {
    // Seeded by the standalone server, then stopped: each target runs alone under valgrind.
    const seeder = await BenchProcess.start(join(BUILD, 'src/server/main.js'), env, LISTENING, { cwd });
    const seeded = await seedAccounts(seeder, env, cwd).finally(() => seeder.stop());
    const bearer = { authorization: `Bearer ${seeded.token}` };
    const bare = join(__dirname, 'bare-server.js');
    const reference: Target = {
      name: 'reference: bare route + HMAC + one SQLite read',
      script: bare,
      nodeArgs: [],
      path: '/bare-read',
      headers: { authorization: 'Bearer bench' },
    };
    const targets: Target[] = [
      { name: 'bare route (constant JSON)', script: bare, nodeArgs: [], path: '/bare', headers: {} },
      reference,
      {
        name: 'GET /me (bearer)',
        script: join(BUILD, 'src/server/main.js'),
        nodeArgs: startFlags(),
        path: '/auth/me',
        headers: bearer,
      },
      {
        name: "GET host route @Authorized('perm:x')",
        script: join(__dirname, 'host-server.js'),
        nodeArgs: [],
        path: seeded.hostRoute,
        headers: bearer,
      },
      // Issue 42's pairs: a key against a session (`--only 'API key'` and `--only 'host route'` side by side).
      {
        name: 'GET host route @Authorized() (API key)',
        script: join(__dirname, 'host-server.js'),
        nodeArgs: [],
        path: seeded.anyRoute,
        headers: { authorization: `Bearer ${seeded.apiKey}` },
      },
      {
        name: "GET host route @Authorized('perm:x') (API key)",
        script: join(__dirname, 'host-server.js'),
        nodeArgs: [],
        path: seeded.hostRoute,
        headers: { authorization: `Bearer ${seeded.apiKey}` },
      },
      {
        name: 'POST /login (argon2id verify)',
        script: join(BUILD, 'src/server/main.js'),
        nodeArgs: startFlags(),
        path: '/auth/login',
        headers: {},
        body: () => ({ username: seeded.username, password: PASSWORD }),
        requests: signins,
      },
      {
        name: 'POST /register (argon2id hash, link queued and sent)',
        script: join(BUILD, 'src/server/main.js'),
        nodeArgs: startFlags(),
        path: '/auth/register',
        headers: {},
        // Names unique across the runs of one bench: each run registers into the same seeded database.
        body: (n, run) => {
          const name = `reg${run}x${n}`;
          return { username: name, email: `${name}@example.com`, password: PASSWORD };
        },
        requests: signins,
      },
    ];
    const chosen = targets.filter((target) => only === undefined || target.name.includes(only));
    const counts = await inBatches(chosen, parallel, async (target) => {
      const [a, b] = target.requests ?? requests;
      const [few, many] = [await countRun(target, env, cwd, a), await countRun(target, env, cwd, b)];
      return (many - few) / (b - a);
    });
    const referenceIndex = chosen.indexOf(reference);
    process.stdout.write(
      `Node ${process.version}; instructions per request, from runs of ${requests.join(' and ')} ` +
        `(sign-in and registration: ${signins.join(' and ')})\n\n`,
    );
    process.stdout.write('| row | instructions per request | to the reference |\n|---|---:|---:|\n');
    chosen.forEach((target, index) => {
      // Without the reference (`--only`), no ratio.
      const ratio = referenceIndex < 0 ? '-' : `${(counts[index] / counts[referenceIndex]).toFixed(2)}x`;
      process.stdout.write(`| ${target.name} | ${Math.round(counts[index])} | ${ratio} |\n`);
    });
  } finally {
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  }
}

interface Options {
  requests: [number, number];
  signins: [number, number];
  parallel: number;
  only?: string;
}

function parseArgs(argv: string[]): Options {
  let requests: [number, number] = [3000, 9000];
  let signins: [number, number] = [20, 60];
  let parallel = 2;
  let only: string | undefined;
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1] ?? ''];
    if (flag === '--requests') requests = value.split(',').map(Number) as [number, number];
    else if (flag === '--signins') signins = value.split(',').map(Number) as [number, number];
    else if (flag === '--parallel') parallel = Number(value);
    else if (flag === '--only') only = value;
    else throw new Error(`unknown option ${flag} (use --requests A,B, --signins A,B, --parallel N and --only TEXT)`);
  }
  for (const [flag, pair] of [
    ['--requests', requests],
    ['--signins', signins],
  ] as const) {
    if (!(pair[0] > 0 && pair[1] > pair[0])) throw new Error(`${flag} takes two counts, the first smaller`);
  }
  if (!(parallel >= 1)) throw new Error('--parallel takes a count of at least 1');
  return { requests, signins, parallel, only };
}

/** Told apart in registration names, so that every run of one bench registers new names. */
let runNumber = 0;

function hasValgrind(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('valgrind', ['--version'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

/** Runs `work` on every item, `size` at a time (valgrind runs a process's threads one at a time: one core each). */
async function inBatches<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    results.push(...(await Promise.all(items.slice(start, start + size).map(work))));
  }
  return results;
}

/** The instructions the target's process ran, from start to exit, having answered `requests` requests. */
async function countRun(target: Target, env: Record<string, string>, cwd: string, requests: number): Promise<number> {
  const run = ++runNumber;
  const server = await BenchProcess.start(target.script, env, LISTENING, {
    cwd,
    nodeArgs: ['--predictable', ...target.nodeArgs],
    launcher: ['valgrind', ...VALGRIND],
    // Under valgrind the standalone server takes tens of seconds to listen, minutes on a busy machine.
    readyTimeoutMs: 1_200_000,
  });
  try {
    await send(`${server.url}${target.path}`, target, requests, run);
  } finally {
    await server.stop();
  }
  const total = /I\s+refs:\s+([\d,]+)/.exec(server.stderr)?.[1];
  if (!total)
    throw new Error(`${target.name}: no instruction count in valgrind's output: ${server.stderr.slice(-2000)}`);
  return Number(total.replace(/,/g, ''));
}

/**
 * Sends `count` requests (GETs, or POSTs of `target.body`) over CONNECTIONS keep-alive connections; any answer but
 * 200 (201 for a registration) fails the run.
 */
async function send(url: string, target: Target, count: number, run: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      const n = sent++;
      const body = target.body ? JSON.stringify(target.body(n, run)) : undefined;
      const headers = body
        ? { ...target.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
        : target.headers;
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(url, { agent, headers, method: body ? 'POST' : 'GET' }, (response) => {
          response.resume();
          response.once('end', () => resolve(response.statusCode ?? 0));
        });
        req.once('error', reject);
        req.end(body);
      });
      if (status !== 200 && status !== 201) throw new Error(`${url} answered ${status}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  } finally {
    agent.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:instructions: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
