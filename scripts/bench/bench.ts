/**
 * `npm run bench`: how fast the standalone server answers, measured against what this machine can do at all.
 *
 * Ceilings, measured in the same run: a bare routing-controllers route on Koa returning a constant object (the
 * framework's rate; `bare-server.ts`), and argon2id hashes a second with every core busy and the server's parameters
 * (`argon2-ceiling.ts`). Then, on SQLite and on PostgreSQL: a reference, the bare route plus an HMAC and one read
 * from that database; and the standalone server (`build/src/server/main.js`, configured by GATEHOUSE_* variables,
 * rate limits off) answering `GET /me` and `GET /sessions` with a bearer token, `POST /login`, `POST /register` and
 * a whole sign-in with a TOTP code, and a host app (`host-server.ts`, the same wiring) a route behind
 * `@Authorized('perm:...')`, and the same host app with an API key, in pairs against a session (`keys`: its
 * `@Authorized()` route against `GET /me`, its perm route against the same route with the session; issue 42). Each
 * is warmed up, then run several times for a fixed duration; the table shows the
 * median. On SQLite it also measures `GET /me` at a fixed rate alone and while logins saturate the hashing pool, and a
 * burst of 1,000 concurrent logins with 128-character passwords.
 *
 *   npm run bench -- --warmup 3 --duration 5 --runs 3 --only sqlite,postgres --json bench-results/latest.json
 *
 * PostgreSQL: GATEHOUSE_BENCH_POSTGRES_URL (default GATEHOUSE_TEST_POSTGRES_URL, then
 * postgres://postgres@127.0.0.1:5432/test); a database of its own is created and dropped. Unreachable: skipped.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { measureArgon2Ceiling } from './argon2-ceiling-run';
import { BenchProcess } from './bench-process';
import {
  type CeilingRun,
  type Load,
  measure,
  type Measurement,
  measurePaired,
  median,
  type PairedMeasurement,
  type ReferenceRun,
  runOnce,
  summarize,
  type Timing,
} from './measure';
import { printReport, REFERENCES, type Report, type Row } from './report';
import { seedEnrolledAccounts } from './second-factor-accounts';
import { poolSize, SecondFactorSignIns } from './second-factor-sign-ins';
import { benchEnv, openBenchDatabase, seedAccounts, type BenchDatabase, type Seeded, PASSWORD } from './seed';
import { startEnv, startFlags } from './start-flags';

const BUILD = join(__dirname, '../..');
const MAIN = join(BUILD, 'src/server/main.js');
const HOST = join(__dirname, 'host-server.js');
const BARE = join(__dirname, 'bare-server.js');
const LISTENING = /"event":"listening"/;
const PROFILES = 'bench-profiles';
const SCENARIOS = ['me', 'perm', 'keys', 'sessions', 'login', 'register', 'second-factor', 'load', 'burst'];

/** Connections of the throughput loads: enough to keep the server busy on a few cores, few enough to not queue. */
const CONNECTIONS = 16;
/** The fixed rate of `GET /me` in the latency-under-load comparison: well within what one core answers. */
const ME_FIXED_RATE = 500;
const BURST_CONNECTIONS = 1000;

interface Options extends Timing {
  only: Set<'sqlite' | 'postgres'>;
  json?: string;
  /** Which loads run per database (`--scenarios me,perm`); default all. The references always run. */
  scenarios: Set<string>;
  /** Node flags for the servers under test, e.g. a CPU profile of each (`--profile`). */
  nodeArgs: string[];
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    warmupSeconds: 3,
    runSeconds: 5,
    runs: 3,
    only: new Set(['sqlite', 'postgres']),
    nodeArgs: [],
    scenarios: new Set(SCENARIOS),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--profile') {
      // One .cpuprofile per server process, written when it exits; bench-profiles/ is git-ignored.
      options.nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${resolve(PROFILES)}`];
      i -= 1;
      continue;
    }
    if (value === undefined) throw new Error(`${flag} needs a value`);
    // Any other Node flags for the servers under test, e.g. `--node-args --perf-basic-prof` for `perf record`.
    if (flag === '--node-args') {
      options.nodeArgs.push(...value.split(' ').filter(Boolean));
      continue;
    }
    if (flag === '--warmup') options.warmupSeconds = Number(value);
    else if (flag === '--duration') options.runSeconds = Number(value);
    else if (flag === '--runs') options.runs = Number(value);
    else if (flag === '--json') options.json = value;
    else if (flag === '--scenarios') options.scenarios = new Set(value.split(','));
    else if (flag === '--only') options.only = new Set(value.split(',') as ('sqlite' | 'postgres')[]);
    else
      throw new Error(
        `unknown option ${flag} (use --warmup, --duration, --runs, --only, --scenarios, --json, --profile, --node-args)`,
      );
  }
  return options;
}

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const report: Report = {
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: availableParallelism(),
      node: process.version,
      timing:
        `${options.warmupSeconds} s warm-up, median of ${options.runs} runs of ${options.runSeconds} s; ` +
        "each throughput row's share is the median of its runs' ratios to a run of its ceiling just before each",
    },
    ceilings: { bareRate: NaN, argon2Rate: NaN },
    rows: [],
    notes: [],
  };

  log('ceiling: bare routing-controllers route');
  // Kept running to the end: each throughput row runs it again right before each of its own runs (`measurePaired`).
  const bare = await BenchProcess.start(BARE, {}, LISTENING, { nodeArgs: options.nodeArgs });
  try {
    const bareLoad: Load = { url: `${bare.url}/bare`, connections: CONNECTIONS, expect: [200] };
    const bareResult = await measure(bareLoad, options, bare);
    const ceilings: Ceilings = {
      bare: async () => (await runOnce(bareLoad, options.runSeconds)).rate,
      argon2: async () =>
        (await measureArgon2Ceiling({ warmupSeconds: 1, runSeconds: options.runSeconds, runs: 1 })).rate,
    };
    report.ceilings.bareRate = bareResult.rate;
    report.rows.push(row('ceiling', 'bare route (constant JSON)', bareResult, bareResult.rate));

    log('ceiling: argon2id hashes a second');
    const argon2 = await measureArgon2Ceiling(options);
    report.ceilings.argon2Rate = argon2.rate;
    report.rows.push({
      database: 'ceiling',
      scenario: `argon2id hashes (${argon2.concurrency} at once)`,
      rate: argon2.rate,
      p50: NaN,
      p99: NaN,
      peakRssBytes: argon2.peakRssBytes,
      ratio: 1,
      errors: 0,
    });

    for (const kind of ['sqlite', 'postgres'] as const) {
      if (!options.only.has(kind)) continue;
      const database = await openBenchDatabase(kind);
      if (!database) {
        const note = 'PostgreSQL skipped: no server at GATEHOUSE_BENCH_POSTGRES_URL (see BENCHMARKS.md)';
        log(note);
        report.notes.push(note);
        continue;
      }
      try {
        await benchDatabase(database, options, ceilings, bare, report);
      } finally {
        await database.drop();
      }
    }
  } finally {
    await bare.stop();
  }

  printReport(report);
  if (options.json) {
    mkdirSync(dirname(options.json), { recursive: true });
    writeFileSync(options.json, JSON.stringify(report, null, 2) + '\n');
  }
}

/** One more run of each ceiling, for the pairs of `measurePaired`. */
interface Ceilings {
  bare: CeilingRun;
  argon2: CeilingRun;
}

/**
 * A throughput row whose share is the median of the ratios of its pairs, with the ceiling's rate beside it, the
 * PostgreSQL backends' CPU when it was measured, and any `notes`.
 */
function pairedRow(database: string, scenario: string, result: PairedMeasurement, ...notes: string[]): Row {
  const ceiling = result.ceilingRate < 100 ? result.ceilingRate.toFixed(1) : result.ceilingRate.toFixed(0);
  const backends = Number.isFinite(result.databaseCpuMicros)
    ? [`PostgreSQL backends ${result.databaseCpuMicros.toFixed(0)} µs/req`]
    : [];
  const reference =
    result.referenceFactor === undefined
      ? []
      : [
          `${result.referenceFactor.toFixed(2)}x the reference's CPU in its pairs (${result.referenceCpuMicros!.toFixed(0)} µs)`,
        ];
  return {
    ...row(database, scenario, result, result.ceilingRate),
    ratio: result.ratio,
    referenceFactor: result.referenceFactor,
    note: [`ceiling in its pairs: ${ceiling}/s`, ...reference, ...backends, ...notes].join('; '),
  };
}

function row(database: string, scenario: string, result: Measurement, ceiling: number, extra: Partial<Row> = {}): Row {
  return {
    database,
    scenario,
    rate: result.rate,
    p50: result.p50,
    p99: result.p99,
    peakRssBytes: result.peakRssBytes,
    ratio: result.rate / ceiling,
    errors: result.unexpected + result.errors,
    serverCpuMicros: result.serverCpuMicros,
    clientCpuMicros: result.clientCpuMicros,
    serverLoopCpuMicros: result.serverLoopCpuMicros,
    databaseCpuMicros: result.databaseCpuMicros,
    ...extra,
  };
}

async function benchDatabase(
  database: BenchDatabase,
  options: Options,
  ceilings: Ceilings,
  bare: BenchProcess,
  report: Report,
): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const env = benchEnv(database);
  const name = database.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const runs = (scenario: string) => options.scenarios.has(scenario);
  const { backends } = database;

  log(`reference: bare route + HMAC + one ${name} read`);
  const reference = await startReference(database, options, ceilings, bare, report);

  // Before the server starts: the seeding delivers its own mail, which the server's outbox worker would race it for.
  const signIns = runs('second-factor') ? await seedSignIns(env, cwd, options, report) : undefined;

  log(`${name}: starting the standalone server and the host app`);
  const server = await BenchProcess.start(MAIN, { ...startEnv(), ...env }, LISTENING, {
    cwd,
    nodeArgs: [...startFlags(), ...options.nodeArgs],
  });
  let host: BenchProcess | undefined;
  try {
    const seeded = await seedAccounts(server, env, cwd);
    // The host app runs as `npm start` runs the standalone server (its Node flags and malloc tunables): a pair across
    // the two servers (a key on the host against `GET /me`) then compares the code, not the runtime settings.
    host = await BenchProcess.start(HOST, { ...startEnv(), ...env }, LISTENING, {
      cwd,
      nodeArgs: [...startFlags(), ...options.nodeArgs],
    });
    const bearer = { authorization: `Bearer ${seeded.token}` };
    const me: Load = { url: `${server.url}/auth/me`, headers: bearer, connections: CONNECTIONS, expect: [200] };
    const login = loginLoad(server, seeded.username, PASSWORD, CONNECTIONS);

    if (runs('me')) {
      log(`${name}: GET /me`);
      const result = await measurePaired(me, options, server, ceilings.bare, backends, reference.run);
      report.rows.push(pairedRow(name, 'GET /me (bearer)', result));
    }
    if (runs('perm')) {
      log(`${name}: host route behind @Authorized('perm:...')`);
      const perm: Load = {
        url: `${host.url}${seeded.hostRoute}`,
        headers: bearer,
        connections: CONNECTIONS,
        expect: [200],
      };
      const result = await measurePaired(perm, options, host, ceilings.bare, backends, reference.run);
      report.rows.push(pairedRow(name, "GET host route @Authorized('perm:x')", result));
    }
    if (runs('keys')) await apiKeyPairs(name, { server, host, seeded, me }, options, ceilings, backends, report);
    if (runs('sessions')) {
      log(`${name}: GET /sessions`);
      const sessions: Load = { ...me, url: `${server.url}/auth/sessions` };
      const result = await measurePaired(sessions, options, server, ceilings.bare, backends, reference.run);
      report.rows.push(pairedRow(name, `GET /sessions (bearer, ${seeded.sessions} sessions)`, result));
    }
    if (runs('login')) {
      log(`${name}: POST /login`);
      report.rows.push(
        pairedRow(name, 'POST /login', await measurePaired(login, options, server, ceilings.argon2, backends)),
      );
    }
    if (runs('register')) {
      log(`${name}: POST /register`);
      const result = await measurePaired(registerLoad(server), options, server, ceilings.argon2, backends);
      report.rows.push(pairedRow(name, 'POST /register', result));
    }
    if (signIns) await secondFactorSignIns(name, server, signIns, options, ceilings, backends, report);
    if (database.kind === 'sqlite' && runs('load')) await underLoad(name, server, me, login, options, report);
    if (database.kind === 'sqlite' && runs('burst')) await burst(name, server, seeded, options, report);
  } finally {
    await host?.stop();
    await server.stop();
    await reference.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
}

/**
 * Issue 42's pairs: an API key's request against a session's, each run of the key's load right after one of the
 * session's, judged by the median of their server CPU ratios (target <= 1.10x): a host `@Authorized()` route with the
 * key against `GET /me` with the session, and the perm host route with the key against the same route with the
 * session.
 */
async function apiKeyPairs(
  name: string,
  servers: { server: BenchProcess; host: BenchProcess; seeded: Seeded; me: Load },
  options: Options,
  ceilings: Ceilings,
  backends: BenchDatabase['backends'],
  report: Report,
): Promise<void> {
  const { server, host, seeded, me } = servers;
  const withKey = { authorization: `Bearer ${seeded.apiKey}` };
  const permRoute = `${host.url}${seeded.hostRoute}`;
  const pairs: { scenario: string; key: Load; against: string; session: Load; sessionServer: BenchProcess }[] = [
    {
      scenario: 'GET host route @Authorized() (API key)',
      key: { url: `${host.url}${seeded.anyRoute}`, headers: withKey, connections: CONNECTIONS, expect: [200] },
      against: 'GET /me (session)',
      session: me,
      sessionServer: server,
    },
    {
      scenario: "GET host route @Authorized('perm:x') (API key)",
      key: { url: permRoute, headers: withKey, connections: CONNECTIONS, expect: [200] },
      against: 'the same route with a session',
      session: { ...me, url: permRoute },
      sessionServer: host,
    },
  ];
  for (const { scenario, key, against, session, sessionServer } of pairs) {
    log(`${name}: ${scenario} against ${against}`);
    if (options.warmupSeconds > 0) await runOnce(session, options.warmupSeconds);
    const sessionRun = () => runOnce(session, options.runSeconds, sessionServer, backends);
    const result = await measurePaired(key, options, host, ceilings.bare, backends, sessionRun);
    const factor = result.referenceFactor!;
    const note = `${factor.toFixed(2)}x ${against}'s server CPU in its pairs (${result.referenceCpuMicros!.toFixed(0)} µs)`;
    report.rows.push({
      ...pairedRow(name, scenario, { ...result, referenceFactor: undefined }, note),
      pair: { against, factor },
    });
  }
}

/** A database's reference, kept running for the pairs of the rows measured against it. */
interface Reference {
  run: ReferenceRun;
  stop(): Promise<void>;
}

/**
 * The database's reference row: the bare route plus an HMAC and one primary-key read, on the bare server for SQLite
 * (`/bare-read`), and on one of its own pointed at the bench's database for PostgreSQL (`/bare-read-postgres`). That
 * server stays up until `stop`, so that each run of `GET /me` and the perm route can follow a run of it.
 */
async function startReference(
  database: BenchDatabase,
  options: Options,
  ceilings: Ceilings,
  bare: BenchProcess,
  report: Report,
): Promise<Reference> {
  const load = (server: BenchProcess, path: string): Load => ({
    url: `${server.url}${path}`,
    connections: CONNECTIONS,
    expect: [200],
    headers: { authorization: 'Bearer bench' },
  });
  const server =
    database.kind === 'sqlite'
      ? bare
      : await BenchProcess.start(BARE, { BENCH_POSTGRES_URL: database.url }, LISTENING, {
          nodeArgs: options.nodeArgs,
        });
  const referenceLoad = load(server, database.kind === 'sqlite' ? '/bare-read' : '/bare-read-postgres');
  const scenario = database.kind === 'sqlite' ? REFERENCES.SQLite : REFERENCES.PostgreSQL;
  try {
    const result = await measurePaired(referenceLoad, options, server, ceilings.bare, database.backends);
    report.rows.push(pairedRow('reference', scenario, result));
  } catch (error) {
    if (server !== bare) await server.stop();
    throw error;
  }
  return {
    run: () => runOnce(referenceLoad, options.runSeconds, server),
    stop: async () => {
      if (server !== bare) await server.stop();
    },
  };
}

/** Accounts with two-factor sign-in on, enough for the second-factor load at the argon2id ceiling's rate. */
async function seedSignIns(
  env: Record<string, string>,
  cwd: string,
  options: Options,
  report: Report,
): Promise<SecondFactorSignIns> {
  const seconds = options.warmupSeconds + options.runs * options.runSeconds;
  const count = poolSize(report.ceilings.argon2Rate, seconds, options.runs + 1, CONNECTIONS);
  const started = Date.now();
  const accounts = await seedEnrolledAccounts(env, cwd, count, PASSWORD);
  log(`seeded ${count} accounts with two-factor sign-in on in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return new SecondFactorSignIns(accounts);
}

/**
 * Whole sign-ins with a TOTP code, paired with the argon2id ceiling like login: each is a password check at full
 * cost and then the second-factor step. The step's own latency is timed apart; its CPU cannot be (the server's
 * threads serve both requests at once), so the note compares the event loop's CPU per sign-in, hashing excluded, with
 * that of a plain `POST /login` when that row ran.
 */
async function secondFactorSignIns(
  name: string,
  server: BenchProcess,
  signIns: SecondFactorSignIns,
  options: Options,
  ceilings: Ceilings,
  backends: BenchDatabase['backends'],
  report: Report,
): Promise<void> {
  log(`${name}: POST /login, then POST /login/second-factor`);
  const load = signIns.load(server.url, PASSWORD, CONNECTIONS);
  const result = await measurePaired(load, options, server, ceilings.argon2, backends);
  const step = result.requestLatencies?.[1];
  const notes = [
    `figures per whole sign-in; the step alone p50 ${step?.p50.toFixed(1)} ms, p99 ${step?.p99.toFixed(1)} ms`,
    `event loop ${result.serverLoopCpuMicros.toFixed(0)} µs/sign-in`,
  ];
  const plain = report.rows.find((row) => row.database === name && row.scenario === 'POST /login');
  if (plain?.serverLoopCpuMicros !== undefined)
    notes[1] += ` vs ${plain.serverLoopCpuMicros.toFixed(0)} per POST /login`;
  if (signIns.exhausted > 0) notes.push(`${signIns.exhausted} sign-ins found no account with a step left (too few)`);
  report.rows.push(pairedRow(name, 'sign-in with TOTP: POST /login + /login/second-factor', result, ...notes));
}

function loginLoad(server: BenchProcess, username: string, password: string, connections: number): Load {
  return {
    url: `${server.url}/auth/login`,
    method: 'POST',
    body: { username, password },
    connections,
    expect: [200],
  };
}

/** A new account per request: names from a per-run prefix and a counter. */
function registerLoad(server: BenchProcess): Load {
  const prefix = `r${Date.now().toString(36)}`;
  let next = 0;
  return {
    url: `${server.url}/auth/register`,
    method: 'POST',
    body: () => {
      const username = `${prefix}x${(next++).toString(36)}`;
      return { username, email: `${username}@example.com`, password: PASSWORD };
    },
    connections: CONNECTIONS,
    expect: [201],
  };
}

/**
 * `GET /me` at a fixed rate, alone and then while logins keep the hashing pool full: hashing runs on libuv's
 * threads, so the event loop, and with it the latency of every other request, should barely notice.
 */
async function underLoad(
  name: string,
  server: BenchProcess,
  me: Load,
  login: Load,
  options: Options,
  report: Report,
): Promise<void> {
  const fixedMe: Load = { ...me, connections: 8, overallRate: ME_FIXED_RATE };
  log(`${name}: GET /me at ${ME_FIXED_RATE}/s, idle`);
  const idle = await measure(fixedMe, options, server);
  report.rows.push(row(name, `GET /me at ${ME_FIXED_RATE}/s, idle`, idle, report.ceilings.bareRate));

  log(`${name}: GET /me at ${ME_FIXED_RATE}/s while logins saturate hashing`);
  const saturating = { ...login, connections: 32 };
  server.resetPeakRss();
  const loaded = [];
  const logins = [];
  for (let i = 0; i < options.runs; i++) {
    const background = runOnce(saturating, options.runSeconds + 2);
    // Let the hashing queue fill before measuring.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    loaded.push(await runOnce(fixedMe, options.runSeconds));
    logins.push(await background);
  }
  // No CPU per request here: the server's is mostly the logins' hashing, and this process also drives the logins.
  const during: Measurement = {
    ...summarize(loaded, server.peakRssBytes()),
    serverCpuMicros: NaN,
    clientCpuMicros: NaN,
  };
  report.rows.push(
    row(name, `GET /me at ${ME_FIXED_RATE}/s, logins saturating`, during, report.ceilings.bareRate, {
      note: `p99 ${(during.p99 / idle.p99).toFixed(2)}x idle; logins meanwhile ${median(logins.map((run) => run.rate)).toFixed(1)}/s`,
    }),
  );
  report.underLoad = { idleP99: idle.p99, loadedP99: during.p99 };
}

/**
 * 1,000 connections each sending logins with a 128-character password, for one run: every answer must be a result
 * (200) or a 503 with `Retry-After` (the hashing queue is full), the server must live, and its memory stay bounded.
 */
async function burst(
  name: string,
  server: BenchProcess,
  seeded: Seeded,
  options: Options,
  report: Report,
): Promise<void> {
  log(`${name}: ${BURST_CONNECTIONS} concurrent logins with 128-character passwords`);
  let without503Header = 0;
  const load: Load = {
    ...loginLoad(server, seeded.longUsername, seeded.longPassword, BURST_CONNECTIONS),
    expect: [200, 503],
    onAnswer: (status, headers) => {
      if (status === 503 && !headers['retry-after']) without503Header += 1;
    },
  };
  server.resetPeakRss();
  const result = await runOnce(load, options.runSeconds);
  const peakRssBytes = server.peakRssBytes();
  const alive = server.running;
  const answered = Object.values(result.statuses).reduce((sum, count) => sum + count, 0);
  report.burst = {
    answered,
    statuses: result.statuses,
    without503Header,
    errors: result.errors,
    unexpected: result.unexpected,
    peakRssBytes,
    alive,
  };
  report.rows.push({
    database: name,
    scenario: `${BURST_CONNECTIONS} concurrent logins, 128-char passwords`,
    rate: (result.statuses['200'] ?? 0) / options.runSeconds,
    p50: result.p50,
    p99: result.p99,
    peakRssBytes,
    ratio: (result.statuses['200'] ?? 0) / options.runSeconds / report.ceilings.argon2Rate,
    errors: result.unexpected + result.errors + without503Header,
    note: `${answered} answers: ${Object.entries(result.statuses)
      .map(([s, n]) => `${n}x${s}`)
      .join(', ')}`,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
