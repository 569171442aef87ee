/**
 * `npm run bench:startup`: how long the standalone server takes to answer its first request, what it holds in memory
 * once up and after one sign-in, and what each package entry costs a host that requires it.
 *
 * - From `npm start` to the first HTTP answer (`GET {prefix}/me`, answered 401: the server has no health route, and
 *   any answer means every route is mounted), on a fresh SQLite file each run: once with a stale build (npm start
 *   compiles first), then with the build current (the compiler skipped), and `node build/src/server/main.js`
 *   directly, which shows npm's own share. Each with the CPU time all its processes had used by the first answer,
 *   which depends less than the wall time on what else the machine is doing. These run in a copy of the checkout,
 *   so the stale build never touches the checkout's build/. Beside them, the build check alone and Node starting
 *   and exiting.
 * - The server's resident memory (VmRSS) once it has answered and idled a few seconds, then after one sign-in and after
 *   ten (each a new account: register, verify from the printed link, log in; two argon2 hashes), started as `npm
 *   start` starts it (its variables and Node flags).
 * - For each package entry: `require` in a fresh process, the modules and distinct packages it loads, and its RSS.
 *
 *   npm run bench:startup -- --runs 5 --skip-stale --json bench-results/startup.json
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startCommand } from './start-flags';
import { BenchProcess } from './bench-process';
import { type EntryLoad, loadEntry } from './entry-loads';
import { copyProject, type StartTiming, timeToExit, timeToFirstAnswer } from './first-answer';
import { median } from './measure';
import { PASSWORD, registerVerified } from './seed';

const ROOT = join(__dirname, '../../..');
const LISTENING = /"event":"listening"/;
const ENTRIES = [
  'gatehouse',
  'gatehouse/sqlite',
  'gatehouse/postgres',
  'gatehouse/redis',
  'gatehouse/testing',
  'gatehouse/express',
];
const MIB = 1024 * 1024;
const SECRET_KEY = 'bench-secret-key-bench-secret-key-bench-secret-key';

interface Options {
  runs: number;
  /** Leave out the start with a stale build (a whole compilation, 20 s or more): the checkout's build is copied. */
  skipStale: boolean;
  json?: string;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { runs: 5, skipStale: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--skip-stale') options.skipStale = true;
    else if (flag === '--runs') options.runs = Number(argv[++i]);
    else if (flag === '--json') options.json = argv[++i];
    else throw new Error(`unknown option ${flag} (use --runs, --skip-stale, --json)`);
  }
  if (!(options.runs >= 1)) throw new Error('--runs needs a number of at least 1');
  return options;
}

interface Timed {
  what: string;
  /** Wall milliseconds of each run. */
  runs: number[];
  /** CPU milliseconds of each run, all its processes; absent for the commands that exit by themselves. */
  cpu?: number[];
}

interface StartupReport {
  machine: { cpu: string; cores: number; node: string };
  starts: Timed[];
  memory: { afterStartBytes: number; afterSignInBytes: number; afterTenSignInsBytes: number };
  entries: ({ entry: string; runs: number[] } & EntryLoad)[];
}

const log = (line: string) => process.stderr.write(`bench:startup: ${line}\n`);

/** The standalone server's configuration, as `npm run bench` gives it, on a new SQLite file in `dir`. */
function serverEnv(dir: string): Record<string, string> {
  return {
    GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'startup.db')}`,
    GATEHOUSE_SECRET_KEY: SECRET_KEY,
    GATEHOUSE_PUBLIC_URL: 'http://127.0.0.1:8000',
  };
}

/** `count` starts of `command` in `cwd`, each on a fresh database, timed to the first answer. */
async function timeStarts(what: string, command: string, args: string[], cwd: string, count: number): Promise<Timed> {
  log(what);
  const starts: StartTiming[] = [];
  for (let i = 0; i < count; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-startup-db-'));
    try {
      starts.push(await timeToFirstAnswer(command, args, { cwd, env: serverEnv(dir), path: '/auth/me' }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { what, runs: starts.map((start) => start.ms), cpu: starts.map((start) => start.cpuMs) };
}

async function timeExits(what: string, command: string, args: string[], cwd: string, count: number): Promise<Timed> {
  log(what);
  const runs: number[] = [];
  for (let i = 0; i < count; i++) runs.push(await timeToExit(command, args, cwd));
  return { what, runs };
}

function residentBytes(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kib === undefined ? NaN : Number(kib) * 1024;
}

/** How long the server idles after its first answer before its memory is read: timers and lazy work settle. */
const IDLE_MS = 3000;
const SIGN_INS = 10;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's RSS once started and idle, then after one and after ten sign-ins, each a new account. */
async function measureMemory(project: string): Promise<StartupReport['memory']> {
  log(`memory: after start, after one sign-in and after ${SIGN_INS}`);
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-startup-db-'));
  const start = startCommand(join(project, 'package.json'));
  const server = await BenchProcess.start(
    join(project, 'build/src/server/main.js'),
    { ...start.env, ...serverEnv(dir) },
    LISTENING,
    { cwd: project, nodeArgs: start.flags },
  );
  try {
    await fetch(`${server.url}/auth/me`);
    await pause(IDLE_MS);
    const afterStartBytes = residentBytes(server.pid);
    let afterSignInBytes = NaN;
    for (let i = 1; i <= SIGN_INS; i++) {
      await signIn(server, `startupuser${i}`);
      if (i === 1) afterSignInBytes = residentBytes(server.pid);
    }
    return { afterStartBytes, afterSignInBytes, afterTenSignInsBytes: residentBytes(server.pid) };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function signIn(server: BenchProcess, username: string): Promise<void> {
  await registerVerified(server, username, PASSWORD);
  const login = await fetch(`${server.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`login answered ${login.status}`);
}

function measureEntries(count: number): StartupReport['entries'] {
  return ENTRIES.map((entry) => {
    log(`require('${entry}')`);
    const loads = Array.from({ length: count }, () => loadEntry(entry, ROOT));
    return {
      entry,
      ...loads[0],
      requireMs: median(loads.map((load) => load.requireMs)),
      rssBytes: median(loads.map((load) => load.rssBytes)),
      runs: loads.map((load) => load.requireMs),
    };
  });
}

const ms = (value: number) => value.toFixed(0);

function printReport(report: StartupReport, options: Options): void {
  const out: string[] = [];
  const { machine } = report;
  out.push(`Machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; median of ${options.runs} runs.`);
  out.push('');
  out.push('| start | ms (median) | min | max | CPU ms (median) | runs |');
  out.push('|---|---:|---:|---:|---:|---:|');
  for (const { what, runs, cpu } of report.starts) {
    const cpuMs = cpu ? ms(median(cpu)) : '-';
    out.push(
      `| ${what} | ${ms(median(runs))} | ${ms(Math.min(...runs))} | ${ms(Math.max(...runs))} | ${cpuMs} | ${runs.length} |`,
    );
  }
  out.push('');
  out.push('| server memory | RSS MiB |');
  out.push('|---|---:|');
  out.push(
    `| after start (first answer, ${IDLE_MS / 1000} s idle) | ${(report.memory.afterStartBytes / MIB).toFixed(0)} |`,
  );
  out.push(`| after one sign-in (register, verify, login) | ${(report.memory.afterSignInBytes / MIB).toFixed(0)} |`);
  out.push(`| after ${SIGN_INS} sign-ins | ${(report.memory.afterTenSignInsBytes / MIB).toFixed(0)} |`);
  out.push('');
  out.push('| entry | require ms (median) | modules (own) | packages | RSS MiB |');
  out.push('|---|---:|---:|---:|---:|');
  for (const entry of report.entries) {
    out.push(
      `| \`${entry.entry}\` | ${ms(entry.requireMs)} | ${entry.modules} (${entry.ownModules}) | ` +
        `${entry.packages.length} | ${(entry.rssBytes / MIB).toFixed(0)} |`,
    );
  }
  process.stdout.write(out.join('\n') + '\n');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const report: StartupReport = {
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: availableParallelism(), node: process.version },
    starts: [],
    memory: { afterStartBytes: NaN, afterSignInBytes: NaN, afterTenSignInsBytes: NaN },
    entries: [],
  };
  const project = copyProject(ROOT, options.skipStale);
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    if (!options.skipStale) {
      report.starts.push(await timeStarts('`npm start`, stale build (compiles first)', npm, ['start'], project.dir, 1));
    }
    report.starts.push(
      await timeStarts('`npm start`, build current', npm, ['start'], project.dir, options.runs),
      await timeStarts(
        '`node build/src/server/main.js`',
        process.execPath,
        ['build/src/server/main.js'],
        project.dir,
        options.runs,
      ),
      await timeExits(
        '`node scripts/build-if-stale.mjs`, build current (exits)',
        process.execPath,
        ['scripts/build-if-stale.mjs'],
        project.dir,
        options.runs,
      ),
      await timeExits('`node -e 0` (Node alone, exits)', process.execPath, ['-e', '0'], project.dir, options.runs),
    );
    report.memory = await measureMemory(project.dir);
  } finally {
    project.remove();
  }
  report.entries = measureEntries(options.runs);

  printReport(report, options);
  if (options.json) {
    mkdirSync(dirname(options.json), { recursive: true });
    writeFileSync(options.json, JSON.stringify(report, null, 2) + '\n');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:startup: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
