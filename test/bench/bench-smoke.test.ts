import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report } from '../../scripts/bench/report';

const BENCH = join(__dirname, '../../scripts/bench/bench.js');

/**
 * `npm run bench` is not run by the suite (its figures prove nothing on a shared CI machine), but it must keep
 * working: one second per run, SQLite only, scenarios that exercise both kinds of ceiling pairs, the seeded sessions
 * and the second-factor sign-ins (a sequence of two requests over seeded accounts). Nothing here looks at a rate beyond it
 * being one.
 */
describe('npm run bench (smoke: it runs and reports every figure)', function () {
  this.timeout(180_000);
  let dir: string;

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-smoke-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('measures the ceilings, the reference and each kind of load, each paired with its ceiling', async () => {
    const json = join(dir, 'report.json');
    const loads = 'me,sessions,login,second-factor';
    const args = ['--warmup', '0', '--duration', '1', '--runs', '1', '--only', 'sqlite', '--scenarios', loads];
    const { code, stdout, stderr } = await run(process.execPath, [BENCH, ...args, '--json', json]);
    expect(code, stderr.slice(-4000)).to.equal(0);
    expect(stdout).to.match(/^\| target \| measured \| result \|$/m);

    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    const scenarios = report.rows.map((row) => `${row.database}: ${row.scenario}`);
    expect(scenarios).to.include.members([
      'ceiling: bare route (constant JSON)',
      'reference: bare route + HMAC + one SQLite read',
      'SQLite: GET /me (bearer)',
      'SQLite: GET /sessions (bearer, 5 sessions)',
      'SQLite: POST /login',
      'SQLite: sign-in with TOTP: POST /login + /login/second-factor',
    ]);
    for (const row of report.rows.filter((r) => r.database !== 'ceiling')) {
      expect(row.errors, row.scenario).to.equal(0);
      expect(row.rate, row.scenario).to.be.greaterThan(0);
      expect(row.ratio, row.scenario).to.be.greaterThan(0);
      expect(row.serverCpuMicros, row.scenario).to.be.greaterThan(0);
      expect(row.note, row.scenario).to.match(/^ceiling in its pairs: [\d.]+\/s(;|$)/);
    }
    const signIn = report.rows.find((row) => row.scenario.startsWith('sign-in with TOTP'));
    expect(signIn?.note).to.match(/the step alone p50 [\d.]+ ms, p99 [\d.]+ ms; event loop \d+ µs\/sign-in vs \d+/);
    expect(signIn?.note).not.to.match(/no account with a step left/);
    expect(report.targets?.map((target) => target.name)).to.include(
      "GET /me on SQLite <= 1.25x the SQLite reference's server CPU per request",
    );
  });
});

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
