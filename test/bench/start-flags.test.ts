import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCommand, startEnv, startFlags } from '../../scripts/bench/start-flags';

describe("the bench starts the server with npm start's Node flags and variables", () => {
  let dir: string;

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gatehouse-start-flags-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function packageWithStart(start: string): string {
    const file = join(dir, 'package.json');
    writeFileSync(file, JSON.stringify({ scripts: { start } }));
    return file;
  }

  it("reads them from package.json's start script: a young generation capped at 8 MiB (RSS after sign-ins)", () => {
    expect(startFlags()).to.deep.equal(['--max-semi-space-size=8']);
  });

  it("reads the variables set before node: glibc's mmap threshold fixed, so argon2's blocks go back to the system", () => {
    expect(startEnv())
      .to.have.property('GLIBC_TUNABLES')
      .that.matches(/(^|:)glibc\.malloc\.mmap_threshold=\d+(:|$)/)
      .and.matches(/(^|:)glibc\.malloc\.hugetlb=1(:|$)/);
  });

  it('splits variables, flags and the entry point', () => {
    const file = packageWithStart('A=1 B_2=x node --flag build/src/server/main.js');
    expect(startCommand(file)).to.deep.equal({ env: { A: '1', B_2: 'x' }, flags: ['--flag'] });
  });

  it('refuses a start script it cannot read rather than bench another server', () => {
    const file = packageWithStart('tsx src/server/main.ts');
    expect(() => startFlags(file)).to.throw(/not "\[NAME=value \.\.\.\] node \[flags\] build\/src\/server\/main.js"/);
  });
});
