/**
 * `npm run bench:instructions`: machine instructions per request, counted by valgrind, for the rows whose CPU the
 * main bench compares with its reference (the bare route, the reference, `GET /me`, the perm host route on SQLite).
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
 *   npm run bench:instructions -- --requests 3000,9000 --parallel 2
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchProcess } from './bench-process';
import { benchEnv, openBenchDatabase, seedAccounts } from './seed';
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
}

async function main(): Promise<void> {
  const { requests, parallel } = parseArgs(process.argv.slice(2));
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
    ];
    const counts = await inBatches(targets, parallel, async (target) => {
      const [few, many] = [
        await countRun(target, env, cwd, requests[0]),
        await countRun(target, env, cwd, requests[1]),
      ];
      return (many - few) / (requests[1] - requests[0]);
    });
    const referenceCount = counts[targets.indexOf(reference)];
    process.stdout.write(
      `Node ${process.version}; instructions per request, from runs of ${requests.join(' and ')}\n\n`,
    );
    process.stdout.write('| row | instructions per request | to the reference |\n|---|---:|---:|\n');
    targets.forEach((target, index) => {
      const ratio = (counts[index] / referenceCount).toFixed(2);
      process.stdout.write(`| ${target.name} | ${Math.round(counts[index])} | ${ratio}x |\n`);
    });
  } finally {
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  }
}

function parseArgs(argv: string[]): { requests: [number, number]; parallel: number } {
  let requests: [number, number] = [3000, 9000];
  let parallel = 2;
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1] ?? ''];
    if (flag === '--requests') requests = value.split(',').map(Number) as [number, number];
    else if (flag === '--parallel') parallel = Number(value);
    else throw new Error(`unknown option ${flag} (use --requests A,B and --parallel N)`);
  }
  if (!(requests[0] > 0 && requests[1] > requests[0]))
    throw new Error('--requests takes two counts, the first smaller');
  if (!(parallel >= 1)) throw new Error('--parallel takes a count of at least 1');
  return { requests, parallel };
}

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
  const server = await BenchProcess.start(target.script, env, LISTENING, {
    cwd,
    nodeArgs: ['--predictable', ...target.nodeArgs],
    launcher: ['valgrind', ...VALGRIND],
    // Under valgrind the standalone server takes tens of seconds to listen.
    readyTimeoutMs: 300_000,
  });
  try {
    await send(`${server.url}${target.path}`, target.headers, requests);
  } finally {
    await server.stop();
  }
  const total = /I\s+refs:\s+([\d,]+)/.exec(server.stderr)?.[1];
  if (!total)
    throw new Error(`${target.name}: no instruction count in valgrind's output: ${server.stderr.slice(-2000)}`);
  return Number(total.replace(/,/g, ''));
}

/** Sends `count` GETs over CONNECTIONS keep-alive connections; any answer but 200 fails the run. */
async function send(url: string, headers: Record<string, string>, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent++;
      const status = await new Promise<number>((resolve, reject) => {
        get(url, { agent, headers }, (response) => {
          response.resume();
          response.once('end', () => resolve(response.statusCode ?? 0));
        }).once('error', reject);
      });
      if (status !== 200) throw new Error(`${url} answered ${status}`);
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
