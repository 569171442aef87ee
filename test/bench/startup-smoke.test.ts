import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const STARTUP = join(__dirname, '../../scripts/bench/startup.js');

interface StartupJson {
  starts: { what: string; runs: number[]; cpu?: number[] }[];
  memory: { afterStartBytes: number; afterSignInBytes: number; afterTenSignInsBytes: number };
  entries: { entry: string; modules: number; packages: string[] }[];
}

/**
 * `npm run bench:startup` is not run by the suite, but it must keep working: one run of each, without the stale
 * build (a whole compilation). Nothing here judges a figure beyond it being one.
 */
describe('npm run bench:startup (smoke: it runs and reports every figure)', function () {
  this.timeout(180_000);
  let dir: string;

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gatehouse-startup-smoke-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('times the starts, reads the memory and requires every package entry', async () => {
    const json = join(dir, 'startup.json');
    const { code, stdout, stderr } = await run(process.execPath, [
      STARTUP,
      '--runs',
      '1',
      '--skip-stale',
      '--json',
      json,
    ]);
    expect(code, stderr.slice(-4000)).to.equal(0);
    expect(stdout).to.match(/^\| entry \| require ms \(median\) \|/m);
    expect(stdout).to.match(/^\| start \| ms \(median\) \| min \| max \| CPU ms \(median\) \| runs \|$/m);

    const report = JSON.parse(readFileSync(json, 'utf8')) as StartupJson;
    expect(report.starts.map((start) => start.what)).to.deep.equal([
      '`npm start`, build current',
      '`node build/src/server/main.js`',
      '`node scripts/build-if-stale.mjs`, build current (exits)',
      '`node -e 0` (Node alone, exits)',
    ]);
    for (const start of report.starts) expect(start.runs[0], start.what).to.be.greaterThan(0);
    expect(report.starts[0].cpu?.[0]).to.be.greaterThan(0);
    expect(report.memory.afterStartBytes).to.be.greaterThan(0);
    expect(report.memory.afterSignInBytes).to.be.greaterThan(0);
    expect(report.memory.afterTenSignInsBytes).to.be.greaterThan(0);
    expect(report.entries.map((entry) => entry.entry)).to.include.members(['gatehouse', 'gatehouse/sqlite']);
    const sqlite = report.entries.find((entry) => entry.entry === 'gatehouse/sqlite')!;
    expect(sqlite.packages).to.include('better-sqlite3');
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
