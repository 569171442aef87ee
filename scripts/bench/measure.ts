import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import type { BenchProcess } from './bench-process';
import { backendCpuSpent, type PostgresBackends } from './postgres-backends';

export interface Timing {
  warmupSeconds: number;
  runSeconds: number;
  runs: number;
}

/** One load: what autocannon sends, and which statuses count as answered. */
export interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fixed body, or one made per request (registrations need a new name each time). */
  body?: object | (() => object);
  connections: number;
  /** Requests a second over all connections; unset: as fast as the server answers. */
  overallRate?: number;
  /** Statuses counted as answers; any other is reported as an error. */
  expect: number[];
  /** Called with every answer's status and headers, for checks beyond the status. */
  onAnswer?: (status: number, headers: Record<string, string>) => void;
  /**
   * Instead of one request to `url` (then only the server's origin), each connection sends these in turn, over and over:
   * one unit of work made of several requests (a sign-in: the password, then the code). The rate counts units whose
   * last request got an expected status, and the latencies are the units' and each request's, timed here.
   */
  sequence?: SequenceRequest[];
}

/** What one request of a sequence keeps for the next ones; fresh for each run through the sequence. */
export type SequenceContext = Record<string, unknown>;

/** One request of a `Load.sequence`. */
export interface SequenceRequest {
  path: string;
  method: 'GET' | 'POST';
  /** Its body, from what earlier answers left in `context`; null gives up this run through the sequence. */
  body: (context: SequenceContext) => object | null;
  /** Reads what the next requests need from this one's answer. */
  onAnswer?: (status: number, body: string, context: SequenceContext) => void;
}

/** Latency percentiles in milliseconds. */
export interface Latency {
  p50: number;
  p99: number;
}

/** One autocannon run, reduced to what the table shows. */
export interface RunResult {
  rate: number;
  p50: number;
  p99: number;
  unexpected: number;
  errors: number;
  statuses: Record<string, number>;
  /** Server CPU (all threads) per answered request, in microseconds; NaN without a server to read. */
  serverCpuMicros: number;
  /** This process's CPU (the load generator) per answered request, in microseconds. */
  clientCpuMicros: number;
  /** The server's main thread only (the event loop, without the hashing threads), per answered request. */
  serverLoopCpuMicros: number;
  /** The PostgreSQL backends' CPU per answered request; NaN when not measured (SQLite, or a remote server). */
  databaseCpuMicros: number;
  /** With a sequence: each request's own latency, in its order. */
  requestLatencies?: Latency[];
}

/** The median of several runs (each figure's own median), with the server's peak RSS over all of them. */
export interface Measurement {
  rate: number;
  p50: number;
  p99: number;
  unexpected: number;
  errors: number;
  peakRssBytes: number;
  serverCpuMicros: number;
  clientCpuMicros: number;
  serverLoopCpuMicros: number;
  databaseCpuMicros: number;
  /** With a sequence: the median of each request's latencies over the runs. */
  requestLatencies?: Latency[];
  runs: RunResult[];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** autocannon hands headers over as the server spelled them. */
function lowerCaseKeys(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
}

/** The `p`th percentile of some durations, in milliseconds. */
function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

function latencyOf(durations: number[]): Latency {
  const sorted = [...durations].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/**
 * autocannon's requests for a sequence, each timed here from the moment it is built (autocannon builds a request right
 * before writing it) to its answer, and the units whose last answer was expected counted.
 */
function sequenceRequests(load: Load, sequence: SequenceRequest[]) {
  const requestDurations: number[][] = sequence.map(() => []);
  const unitDurations: number[] = [];
  let completed = 0;
  const requests = sequence.map((step, index): autocannon.Request => ({
    method: step.method,
    path: step.path,
    headers: { 'content-type': 'application/json', ...load.headers },
    setupRequest: (request: autocannon.Request, unit: object) => {
      const context = unit as SequenceContext;
      const body = step.body(context);
      if (body === null) return null as unknown as autocannon.Request;
      const sentAt = performance.now();
      if (index === 0) context.unitStartedAt = sentAt;
      context.sentAt = sentAt;
      return { ...request, body: JSON.stringify(body) };
    },
    onResponse: (status: number, body: string, unit: object) => {
      const context = unit as SequenceContext;
      const answeredAt = performance.now();
      requestDurations[index].push(answeredAt - (context.sentAt as number));
      step.onAnswer?.(status, body, context);
      if (index === sequence.length - 1 && load.expect.includes(status)) {
        completed += 1;
        unitDurations.push(answeredAt - (context.unitStartedAt as number));
      }
    },
  }));
  return {
    requests,
    result: () => ({
      completed,
      latency: latencyOf(unitDurations),
      requestLatencies: requestDurations.map(latencyOf),
    }),
  };
}

/** The one request of a plain load. */
function singleRequest(load: Load): autocannon.Request {
  const body = load.body;
  const headers = { ...(body ? { 'content-type': 'application/json' } : {}), ...load.headers };
  return {
    method: load.method ?? 'GET',
    headers,
    ...(typeof body === 'function'
      ? { setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify(body()) }) }
      : body
        ? { body: JSON.stringify(body) }
        : {}),
    ...(load.onAnswer
      ? {
          onResponse: (status: number, _body: string, _context: object, answerHeaders?: Record<string, unknown>) =>
            load.onAnswer!(status, lowerCaseKeys(answerHeaders ?? {})),
        }
      : {}),
  };
}

/**
 * Runs `load` once for `seconds` and returns answered requests (or completed sequences) a second, latency
 * percentiles (ms), and the CPU the server, its PostgreSQL backends and this process spent on each.
 */
export async function runOnce(
  load: Load,
  seconds: number,
  server?: BenchProcess,
  backends?: PostgresBackends,
): Promise<RunResult> {
  const sequence = load.sequence ? sequenceRequests(load, load.sequence) : undefined;
  const serverCpuBefore = server ? server.cpuSeconds() : NaN;
  const loopCpuBefore = server ? server.eventLoopCpuSeconds() : NaN;
  const backendsBefore = server && backends ? await backends.cpuSeconds() : undefined;
  const clientCpuBefore = process.cpuUsage();
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    duration: seconds,
    ...(load.overallRate ? { overallRate: load.overallRate } : {}),
    requests: sequence ? sequence.requests : [singleRequest(load)],
    // A login waiting in the hashing queue of a 1,000-connection burst may take seconds; that is an answer.
    timeout: 30,
  });
  const serverCpu = server ? server.cpuSeconds() - serverCpuBefore : NaN;
  const loopCpu = server ? server.eventLoopCpuSeconds() - loopCpuBefore : NaN;
  const backendsCpu = backendsBefore ? backendCpuSpent(backendsBefore, await backends!.cpuSeconds()) : NaN;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const statuses: Record<string, number> = {};
  let expected = 0;
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
    const count = stats?.count ?? 0;
    statuses[status] = count;
    if (load.expect.includes(Number(status))) expected += count;
  }
  const total = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  const units = sequence?.result();
  const answered = units ? units.completed : expected;
  return {
    rate: answered / result.duration,
    p50: units ? units.latency.p50 : result.latency.p50,
    p99: units ? units.latency.p99 : result.latency.p99,
    unexpected: total - expected,
    errors: result.errors + result.timeouts,
    statuses,
    serverCpuMicros: (serverCpu * 1e6) / answered,
    clientCpuMicros: (clientCpu.user + clientCpu.system) / answered,
    serverLoopCpuMicros: (loopCpu * 1e6) / answered,
    databaseCpuMicros: (backendsCpu * 1e6) / answered,
    ...(units ? { requestLatencies: units.requestLatencies } : {}),
  };
}

/**
 * Warms up, then runs `load` `timing.runs` times and takes the median of each figure. The server's peak RSS is
 * counted from the warm-up on.
 */
export async function measure(
  load: Load,
  timing: Timing,
  server?: BenchProcess,
  backends?: PostgresBackends,
): Promise<Measurement> {
  server?.resetPeakRss();
  if (timing.warmupSeconds > 0) await runOnce(load, timing.warmupSeconds);
  const runs: RunResult[] = [];
  for (let i = 0; i < timing.runs; i++) runs.push(await runOnce(load, timing.runSeconds, server, backends));
  return summarize(runs, server ? server.peakRssBytes() : NaN);
}

/** The median of each figure of `runs` (counts summed), with the peak RSS measured over them. */
export function summarize(runs: RunResult[], peakRssBytes: number): Measurement {
  return {
    rate: median(runs.map((run) => run.rate)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    unexpected: runs.reduce((sum, run) => sum + run.unexpected, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    peakRssBytes,
    serverCpuMicros: median(runs.map((run) => run.serverCpuMicros)),
    clientCpuMicros: median(runs.map((run) => run.clientCpuMicros)),
    serverLoopCpuMicros: median(runs.map((run) => run.serverLoopCpuMicros)),
    databaseCpuMicros: median(runs.map((run) => run.databaseCpuMicros)),
    ...(runs[0]?.requestLatencies
      ? {
          requestLatencies: runs[0].requestLatencies.map((_, i) => ({
            p50: median(runs.map((run) => run.requestLatencies![i].p50)),
            p99: median(runs.map((run) => run.requestLatencies![i].p99)),
          })),
        }
      : {}),
    runs,
  };
}

/** One run of a ceiling's load, beside a run of a scenario: its rate. */
export type CeilingRun = () => Promise<number>;

/** One run of a reference load on its own server, beside a run of a scenario: its figures, CPU included. */
export type ReferenceRun = () => Promise<RunResult>;

/** A measurement whose share of its ceiling comes from runs taken in pairs. */
export interface PairedMeasurement extends Measurement {
  /** The median of each run's rate over the ceiling's rate in the run just before it. */
  ratio: number;
  /** The median rate of the ceiling's runs. */
  ceilingRate: number;
  /**
   * With a reference: the median of each run's server CPU per request over the reference's in the run just before
   * it, and the median of the reference's own figure.
   */
  referenceFactor?: number;
  referenceCpuMicros?: number;
}

/**
 * Like `measure`, but runs the ceiling once right before each run of `load` and reports the median of the per-pair
 * ratios. The VM's speed drifts by ±20% over minutes, so a ratio of two rates taken seconds apart says more than one
 * of a rate taken now and a ceiling taken at the start of the bench. With `reference`, each run is also preceded by
 * one run of the reference, and its server CPU per request is compared with the reference's in the same way: the
 * CPU a request costs drifts with the VM too (the same build measured 72 and 169 µs a request hours apart).
 */
export async function measurePaired(
  load: Load,
  timing: Timing,
  server: BenchProcess,
  ceiling: CeilingRun,
  backends?: PostgresBackends,
  reference?: ReferenceRun,
): Promise<PairedMeasurement> {
  server.resetPeakRss();
  if (timing.warmupSeconds > 0) await runOnce(load, timing.warmupSeconds);
  const runs: RunResult[] = [];
  const ceilingRates: number[] = [];
  const references: RunResult[] = [];
  for (let i = 0; i < timing.runs; i++) {
    ceilingRates.push(await ceiling());
    if (reference) references.push(await reference());
    runs.push(await runOnce(load, timing.runSeconds, server, backends));
  }
  return {
    ...summarize(runs, server.peakRssBytes()),
    ratio: median(runs.map((run, i) => run.rate / ceilingRates[i])),
    ceilingRate: median(ceilingRates),
    ...(reference
      ? {
          referenceFactor: median(runs.map((run, i) => run.serverCpuMicros / references[i].serverCpuMicros)),
          referenceCpuMicros: median(references.map((run) => run.serverCpuMicros)),
        }
      : {}),
  };
}
