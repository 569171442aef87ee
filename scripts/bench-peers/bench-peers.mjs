/**
 * `npm run bench:peers`: better-auth beside Gatehouse on this machine, both on SQLite with rate limits off, driven
 * by the same load generator (`npm run bench`'s `runOnce`) with the same connections and durations. Each round of a
 * scenario runs both servers one after the other, and the one that goes first alternates from round to round, so
 * that the VM's drift over minutes falls on both alike.
 *
 *   npm run bench:peers -- --warmup 3 --duration 5 --runs 3 --scenarios hash,session,signin,signup,load \
 *     --json bench-results/peers.json
 *
 * Scenarios: `hash`, each side's password hash alone (its ceiling); `session`, a bearer session check; `signin`;
 * `signup`, a new account per request; `load`, session checks at a fixed rate while sign-ups keep hashing busy.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname } from 'node:path';
import { betterAuthHashing, betterAuthVersion, startBetterAuth } from './better-auth-side.mjs';
import { checkScryptParameters } from './better-auth-hashing.mjs';
import { measureArgon2Ceiling, median, PASSWORD, runOnce, summarize } from './gatehouse-build.mjs';
import { gatehouseHashing, startGatehouse } from './gatehouse-side.mjs';
import { printReport } from './report.mjs';
import { measureScryptCeiling } from './scrypt-ceiling-run.mjs';

const SCENARIOS = ['hash', 'session', 'signin', 'signup', 'load'];
/** As in `npm run bench`: enough to keep a server busy on a few cores, few enough to not queue. */
const CONNECTIONS = 16;
/** The session checks under load, as `npm run bench`'s fixed-rate `GET /me`: well within what one core answers. */
const FIXED_RATE = 500;
const FIXED_CONNECTIONS = 8;
const SATURATING_CONNECTIONS = 32;
/** The longest wait for a server to finish the requests of a run that has ended (`settle`). */
const SETTLE_TIMEOUT_MS = 60_000;

function parseArgs(argv) {
  const options = { warmupSeconds: 3, runSeconds: 5, runs: 3, scenarios: new Set(SCENARIOS) };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--warmup') options.warmupSeconds = Number(value);
    else if (flag === '--duration') options.runSeconds = Number(value);
    else if (flag === '--runs') options.runs = Number(value);
    else if (flag === '--json') options.json = value;
    else if (flag === '--scenarios') options.scenarios = new Set(value.split(','));
    else throw new Error(`unknown option ${flag} (use --warmup, --duration, --runs, --scenarios, --json)`);
  }
  for (const scenario of options.scenarios) {
    if (!SCENARIOS.includes(scenario)) throw new Error(`unknown scenario ${scenario} (${SCENARIOS.join(', ')})`);
  }
  return options;
}

const log = (line) => process.stderr.write(`bench:peers: ${line}\n`);

/**
 * Waits until `side`'s server has finished what the last run left it. A run ends by dropping its requests in flight,
 * but neither server cancels a request whose client has gone: it still hashes it. With hashes of a few hundred
 * milliseconds (better-auth's scrypt on a busy VM), 16 dropped sign-ins are seconds of work that would otherwise
 * eat the start of the next run, which is often the other side's.
 */
async function settle(side) {
  const started = Date.now();
  let before = side.server.cpuSeconds();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = side.server.cpuSeconds();
    const waited = (Date.now() - started) / 1000;
    // Under 20 ms of CPU in 250 ms: idle but for its timers (/proc counts in 10 ms ticks).
    if (now - before < 0.02) {
      if (waited > 1) log(`${side.name} took ${waited.toFixed(1)} s to finish the requests of the run before`);
      return;
    }
    if (waited * 1000 > SETTLE_TIMEOUT_MS) return log(`${side.name} still busy after ${waited.toFixed(0)} s; going on`);
    before = now;
  }
}

/** Both sides in this round's order: Gatehouse first in even rounds, better-auth first in odd ones. */
const inOrder = (sides, round) => (round % 2 === 0 ? sides : [...sides].reverse());

/**
 * Runs `run(side)` on each side `options.runs` times, alternating which side goes first, after one warm-up each.
 * Returns each side's median figures (`summarize`), with its server's peak RSS over the scenario.
 */
async function alternate(sides, options, { warmUp, run }) {
  for (const side of sides) side.server.resetPeakRss();
  if (warmUp && options.warmupSeconds > 0) {
    for (const side of sides) {
      await warmUp(side);
      await settle(side);
    }
  }
  const runs = new Map(sides.map((side) => [side, []]));
  for (let round = 0; round < options.runs; round++) {
    for (const side of inOrder(sides, round)) {
      runs.get(side).push(await run(side));
      await settle(side);
    }
  }
  return new Map(sides.map((side) => [side, summarize(runs.get(side), side.server.peakRssBytes())]));
}

/** One throughput scenario: `load(side)` at full speed on each side. */
async function throughput(sides, options, load, { checkSession = false } = {}) {
  if (checkSession) for (const side of sides) await side.checkSession();
  return alternate(sides, options, {
    warmUp: (side) => runOnce(load(side), options.warmupSeconds),
    run: async (side) => {
      const result = await runOnce(load(side), options.runSeconds, side.server);
      if (checkSession) await side.checkSession();
      return result;
    },
  });
}

/**
 * Session checks at a fixed rate while sign-ups keep the side's hashing busy, as `npm run bench` does with logins:
 * the sign-ups start a second early to fill the hashing, and run a second past the checks.
 */
async function underLoad(sides, options) {
  for (const side of sides) await side.checkSession();
  return alternate(sides, options, {
    run: async (side) => {
      const signUps = runOnce(side.signUp(SATURATING_CONNECTIONS), options.runSeconds + 2);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const checks = await runOnce({ ...side.session(FIXED_CONNECTIONS), overallRate: FIXED_RATE }, options.runSeconds);
      const background = await signUps;
      await side.checkSession();
      // No CPU per request: the server's is mostly the sign-ups' hashing.
      return { ...checks, serverCpuMicros: NaN, clientCpuMicros: NaN, signUps: background };
    },
  });
}

/** Each side's hash alone, in a process of its own, the two alternating; one warm-up second before each run. */
async function hashCeilings(options) {
  const timing = { warmupSeconds: Math.min(1, options.warmupSeconds), runSeconds: options.runSeconds, runs: 1 };
  const measureOf = { Gatehouse: measureArgon2Ceiling, 'better-auth': measureScryptCeiling };
  const results = { Gatehouse: [], 'better-auth': [] };
  for (let round = 0; round < options.runs; round++) {
    for (const name of inOrder(['Gatehouse', 'better-auth'], round)) results[name].push(await measureOf[name](timing));
  }
  return Object.fromEntries(
    Object.entries(results).map(([name, runs]) => [
      name,
      {
        rate: median(runs.map((run) => run.rate)),
        concurrency: runs[0].concurrency,
        peakRssBytes: Math.max(...runs.map((run) => run.peakRssBytes)),
        rates: runs.map((run) => run.rate),
      },
    ]),
  );
}

/**
 * A warning for a rate made of few answers. better-auth answers sign-ins in batches (each new session's HMAC waits
 * in libuv's pool behind every queued hash), so a run shorter than one batch of 16 hashes answers nothing at all.
 */
function fewAnswers(measurement, runSeconds) {
  const fewest = Math.min(...measurement.runs.map((run) => Math.round(run.rate * runSeconds)));
  if (fewest === 0) return `a run had no answer within its ${runSeconds} s: a longer --duration is needed`;
  if (fewest < 2 * CONNECTIONS) return `only ${fewest} answers in a run: coarse`;
  return '';
}

/** The sign-ups of the session checks under load, and whether the checks stopped altogether. */
function underLoadNote(measurement) {
  const signUps = measurement.runs.map((run) => run.signUps);
  const failed = signUps.reduce((sum, run) => sum + run.unexpected + run.errors, 0);
  const rate = median(signUps.map((run) => run.rate));
  const stalled = Math.min(...measurement.runs.map((run) => run.rate)) === 0;
  return [
    `sign-ups meanwhile ${rate.toFixed(1)}/s${failed > 0 ? ` (${failed} failed)` : ''}`,
    stalled ? 'a run had no check answered while the sign-ups ran' : '',
  ]
    .filter(Boolean)
    .join('; ');
}

function rowsOf(scenario, results, route, notes = () => '') {
  return [...results].map(([side, measurement]) => ({
    scenario,
    side: side.name,
    route: route(side),
    rate: measurement.rate,
    p50: measurement.p50,
    p99: measurement.p99,
    serverCpuMicros: measurement.serverCpuMicros,
    peakRssBytes: measurement.peakRssBytes,
    errors: measurement.unexpected + measurement.errors,
    note: notes(side, measurement),
    runs: measurement.runs,
  }));
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  // Proves the scrypt parameters written in better-auth-hashing.mjs against the installed better-auth.
  await checkScryptParameters(PASSWORD);
  const report = {
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: availableParallelism(), node: process.version },
    betterAuthVersion: betterAuthVersion(),
    timing:
      `${options.warmupSeconds} s warm-up, median of ${options.runs} runs of ${options.runSeconds} s, ` +
      'the two servers alternating within each round and which goes first alternating between rounds',
    hashing: { Gatehouse: gatehouseHashing(), 'better-auth': betterAuthHashing() },
    ceilings: undefined,
    rows: [],
  };
  const runs = (scenario) => options.scenarios.has(scenario);

  if (runs('hash')) {
    log('each password hash alone');
    report.ceilings = await hashCeilings(options);
    for (const [side, ceiling] of Object.entries(report.ceilings)) {
      const { algorithm } = report.hashing[side];
      report.rows.push({
        scenario: 'hash alone (ceiling)',
        side,
        route: `${algorithm}, ${ceiling.concurrency} at once`,
        rate: ceiling.rate,
        p50: NaN,
        p99: NaN,
        serverCpuMicros: NaN,
        peakRssBytes: ceiling.peakRssBytes,
        errors: 0,
      });
    }
  }
  const few = (measurement) => fewAnswers(measurement, options.runSeconds);
  /** A hashing row's share of its side's hash ceiling (when the ceilings were measured), and how coarse it is. */
  const hashNotes = (side, measurement) =>
    [
      report.ceilings ? `${((measurement.rate / report.ceilings[side.name].rate) * 100).toFixed(0)}% of its hash` : '',
      few(measurement),
    ]
      .filter(Boolean)
      .join('; ');

  log('starting Gatehouse and better-auth');
  const gatehouse = await startGatehouse();
  let betterAuth;
  try {
    betterAuth = await startBetterAuth();
    const sides = [gatehouse, betterAuth];
    if (runs('session')) {
      log('session check');
      const results = await throughput(sides, options, (side) => side.session(CONNECTIONS), { checkSession: true });
      report.rows.push(
        ...rowsOf(
          'session check (bearer)',
          results,
          (side) => side.routes.session,
          (_side, measurement) => few(measurement),
        ),
      );
    }
    if (runs('signin')) {
      log('sign-in');
      const results = await throughput(sides, options, (side) => side.signIn(CONNECTIONS));
      report.rows.push(...rowsOf('sign-in', results, (side) => side.routes.signIn, hashNotes));
    }
    if (runs('signup')) {
      log('sign-up');
      const results = await throughput(sides, options, (side) => side.signUp(CONNECTIONS));
      report.rows.push(...rowsOf('sign-up', results, (side) => side.routes.signUp, hashNotes));
    }
    if (runs('load')) {
      log(`session checks at ${FIXED_RATE}/s while sign-ups run`);
      const results = await underLoad(sides, options);
      report.rows.push(
        ...rowsOf(
          `session checks at ${FIXED_RATE}/s while ${SATURATING_CONNECTIONS} connections sign up`,
          results,
          (side) => side.routes.session,
          (_side, measurement) => underLoadNote(measurement),
        ),
      );
    }
  } finally {
    await betterAuth?.stop();
    await gatehouse.stop();
  }

  printReport(report);
  if (options.json) {
    mkdirSync(dirname(options.json), { recursive: true });
    writeFileSync(options.json, JSON.stringify(report, null, 2) + '\n');
  }
}

main().catch((error) => {
  process.stderr.write(`bench:peers: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
