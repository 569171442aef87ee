/** One line of the table: a rate, its latencies, the server's peak memory, and its share of its ceiling. */
export interface Row {
  database: string;
  scenario: string;
  rate: number;
  p50: number;
  p99: number;
  peakRssBytes: number;
  ratio: number;
  /** Answers with an unexpected status, connection errors and timeouts, over all runs. */
  errors: number;
  /** CPU per answered request, in microseconds: the server's (all its threads) and the load generator's. */
  serverCpuMicros?: number;
  clientCpuMicros?: number;
  /** The server's main thread alone (no hashing), and PostgreSQL's backends (NaN on SQLite), per answered request. */
  serverLoopCpuMicros?: number;
  databaseCpuMicros?: number;
  /** The median over its pairs of its server CPU per request over its database reference's, run just before. */
  referenceFactor?: number;
  /** A row judged against another in pairs (an API key's against a session's): that row, and the CPU factor. */
  pair?: { against: string; factor: number };
  note?: string;
}

/** The scenario of each database's reference row (database `reference`): the bare route, an HMAC and one read. */
/** Issue 42: a key costs what a session costs. */
const API_KEY_FACTOR = 1.1;

export const REFERENCES = {
  SQLite: 'bare route + HMAC + one SQLite read',
  PostgreSQL: 'bare route + HMAC + one prepared PostgreSQL read',
};

export interface Report {
  machine: { cpu: string; cores: number; node: string; timing: string };
  ceilings: { bareRate: number; argon2Rate: number };
  rows: Row[];
  underLoad?: { idleP99: number; loadedP99: number };
  burst?: {
    answered: number;
    statuses: Record<string, number>;
    without503Header: number;
    errors: number;
    unexpected: number;
    peakRssBytes: number;
    alive: boolean;
  };
  notes: string[];
  targets?: Target[];
}

export interface Target {
  name: string;
  measured: string;
  pass: boolean;
}

const MIB = 1024 * 1024;
/** The bound on a route's server CPU per request, as a multiple of its database's reference row's. */
const CPU_FACTOR = 1.25;
const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

function find(report: Report, database: string, scenario: string): Row | undefined {
  return report.rows.find((row) => row.database === database && row.scenario === scenario);
}

/** The targets, judged on this run's figures; a scenario that did not run is absent, not passed. */
export function judgeTargets(report: Report): Target[] {
  const targets: Target[] = [];
  const ratioTarget = (name: string, row: Row | undefined, minimum: number) => {
    if (row)
      targets.push({
        name,
        measured: `${(row.ratio * 100).toFixed(1)}%`,
        pass: row.ratio >= minimum && row.errors === 0,
      });
  };
  for (const database of ['SQLite', 'PostgreSQL'] as const) {
    const reference = find(report, 'reference', REFERENCES[database]);
    for (const [route, scenario] of [
      ['GET /me', 'GET /me (bearer)'],
      ['the perm host route', "GET host route @Authorized('perm:x')"],
    ]) {
      const row = find(report, database, scenario);
      if (!row || !reference) continue;
      // In pairs when the row was measured so; otherwise against the reference row, measured minutes apart.
      const factor = row.referenceFactor ?? row.serverCpuMicros! / reference.serverCpuMicros!;
      const how = row.referenceFactor === undefined ? 'against the reference row' : 'median of its pairs';
      targets.push({
        name: `${route} on ${database} <= ${CPU_FACTOR}x the ${database} reference's server CPU per request`,
        measured: `${fixed(factor, 2)}x, ${how} (${fixed(row.serverCpuMicros!, 0)} vs ${fixed(reference.serverCpuMicros!, 0)} µs in the rows)`,
        pass: factor <= CPU_FACTOR && row.errors === 0,
      });
    }
  }
  for (const row of report.rows) {
    if (!row.pair) continue;
    targets.push({
      name: `${row.scenario} on ${row.database} <= ${API_KEY_FACTOR}x ${row.pair.against}'s server CPU per request`,
      measured: `${fixed(row.pair.factor, 2)}x, median of its pairs`,
      pass: row.pair.factor <= API_KEY_FACTOR && row.errors === 0,
    });
  }
  ratioTarget('POST /login on SQLite >= 85% of argon2id', find(report, 'SQLite', 'POST /login'), 0.85);
  ratioTarget('POST /login on PostgreSQL >= 85% of argon2id', find(report, 'PostgreSQL', 'POST /login'), 0.85);
  ratioTarget('POST /register on SQLite >= 85% of argon2id', find(report, 'SQLite', 'POST /register'), 0.85);
  ratioTarget('POST /register on PostgreSQL >= 85% of argon2id', find(report, 'PostgreSQL', 'POST /register'), 0.85);
  if (report.underLoad) {
    const factor = report.underLoad.loadedP99 / report.underLoad.idleP99;
    targets.push({
      name: 'GET /me p99 while logins saturate hashing < 5x idle p99',
      measured: `${report.underLoad.loadedP99} ms vs ${report.underLoad.idleP99} ms (${factor.toFixed(2)}x)`,
      pass: factor < 5,
    });
  }
  if (report.burst) {
    const b = report.burst;
    targets.push({
      name: '1,000 concurrent 128-char logins: peak RSS < 512 MiB, alive, only 200 or 503 + Retry-After',
      measured:
        `${fixed(b.peakRssBytes / MIB, 0)} MiB, ${b.alive ? 'alive' : 'DEAD'}, ${b.answered} answers, ` +
        `${b.unexpected} other statuses, ${b.without503Header} 503 without Retry-After, ${b.errors} errors`,
      pass: b.peakRssBytes < 512 * MIB && b.alive && b.unexpected === 0 && b.without503Header === 0 && b.errors === 0,
    });
  }
  return targets;
}

/** Prints the machine, the table and the targets as Markdown, ready for BENCHMARKS.md. */
export function printReport(report: Report): void {
  const out: string[] = [];
  const { machine, ceilings } = report;
  out.push(`Machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ${machine.timing}.`);
  out.push(
    `Ceilings at the start: bare route ${fixed(ceilings.bareRate, 0)} req/s; argon2id ${fixed(ceilings.argon2Rate, 1)} hashes/s ` +
      "(each throughput row's share comes from its own pairs; their ceiling is in its note).",
  );
  out.push('');
  out.push(
    '| database | scenario | req/s | p50 ms | p99 ms | peak RSS MiB | of ceiling | server CPU µs/req | client CPU µs/req | errors | note |',
  );
  out.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const row of report.rows) {
    out.push(
      `| ${row.database} | ${row.scenario} | ${fixed(row.rate, row.rate < 100 ? 1 : 0)} | ${fixed(row.p50, 1)} | ` +
        `${fixed(row.p99, 1)} | ${fixed(row.peakRssBytes / MIB, 0)} | ${fixed(row.ratio * 100, 1)}% | ` +
        `${fixed(row.serverCpuMicros ?? NaN, 0)} | ${fixed(row.clientCpuMicros ?? NaN, 0)} | ${row.errors} | ` +
        `${row.note ?? ''} |`,
    );
  }
  report.targets = judgeTargets(report);
  out.push('');
  out.push('| target | measured | result |');
  out.push('|---|---|---|');
  for (const target of report.targets)
    out.push(`| ${target.name} | ${target.measured} | ${target.pass ? 'pass' : 'FAIL'} |`);
  for (const note of report.notes) out.push('', note);
  process.stdout.write(out.join('\n') + '\n');
}
