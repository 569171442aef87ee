import autocannon from 'autocannon';
import type { BenchProcess } from './bench-process';

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

/** Runs `load` once for `seconds` and returns answered requests a second and latency percentiles (ms). */
export async function runOnce(load: Load, seconds: number, server?: BenchProcess): Promise<RunResult> {
  const body = load.body;
  const headers = { ...(body ? { 'content-type': 'application/json' } : {}), ...load.headers };
  const request: autocannon.Request = {
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
  const serverCpuBefore = server ? server.cpuSeconds() : NaN;
  const clientCpuBefore = process.cpuUsage();
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    duration: seconds,
    ...(load.overallRate ? { overallRate: load.overallRate } : {}),
    requests: [request],
    // A login waiting in the hashing queue of a 1,000-connection burst may take seconds; that is an answer.
    timeout: 30,
  });
  const serverCpu = server ? server.cpuSeconds() - serverCpuBefore : NaN;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const statuses: Record<string, number> = {};
  let answered = 0;
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
    const count = stats?.count ?? 0;
    statuses[status] = count;
    if (load.expect.includes(Number(status))) answered += count;
  }
  const total = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  return {
    rate: answered / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected: total - answered,
    errors: result.errors + result.timeouts,
    statuses,
    serverCpuMicros: (serverCpu * 1e6) / answered,
    clientCpuMicros: (clientCpu.user + clientCpu.system) / answered,
  };
}

/**
 * Warms up, then runs `load` `timing.runs` times and takes the median of each figure. The server's peak RSS is
 * counted from the warm-up on.
 */
export async function measure(load: Load, timing: Timing, server?: BenchProcess): Promise<Measurement> {
  server?.resetPeakRss();
  if (timing.warmupSeconds > 0) await runOnce(load, timing.warmupSeconds);
  const runs: RunResult[] = [];
  for (let i = 0; i < timing.runs; i++) runs.push(await runOnce(load, timing.runSeconds, server));
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
    runs,
  };
}

/** One run of a ceiling's load, beside a run of a scenario: its rate. */
export type CeilingRun = () => Promise<number>;

/** A measurement whose share of its ceiling comes from runs taken in pairs. */
export interface PairedMeasurement extends Measurement {
  /** The median of each run's rate over the ceiling's rate in the run just before it. */
  ratio: number;
  /** The median rate of the ceiling's runs. */
  ceilingRate: number;
}

/**
 * Like `measure`, but runs the ceiling once right before each run of `load` and reports the median of the per-pair
 * ratios. The VM's speed drifts by ±20% over minutes, so a ratio of two rates taken seconds apart says more than one
 * of a rate taken now and a ceiling taken at the start of the bench.
 */
export async function measurePaired(
  load: Load,
  timing: Timing,
  server: BenchProcess,
  ceiling: CeilingRun,
): Promise<PairedMeasurement> {
  server.resetPeakRss();
  if (timing.warmupSeconds > 0) await runOnce(load, timing.warmupSeconds);
  const runs: RunResult[] = [];
  const ceilingRates: number[] = [];
  for (let i = 0; i < timing.runs; i++) {
    ceilingRates.push(await ceiling());
    runs.push(await runOnce(load, timing.runSeconds, server));
  }
  return {
    ...summarize(runs, server.peakRssBytes()),
    ratio: median(runs.map((run, i) => run.rate / ceilingRates[i])),
    ceilingRate: median(ceilingRates),
  };
}
