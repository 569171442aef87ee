import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFlags } from '../../scripts/bench/start-flags';

describe("the bench starts the server with npm start's Node flags", () => {
  it("reads them from package.json's start script: a young generation capped as on Node 20", () => {
    expect(startFlags()).to.deep.equal(['--max-semi-space-size=16']);
  });

  it('refuses a start script it cannot read rather than bench another server', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-start-flags-'));
    try {
      const file = join(dir, 'package.json');
      writeFileSync(file, JSON.stringify({ scripts: { start: 'tsx src/server/main.ts' } }));
      expect(() => startFlags(file)).to.throw(/not "node \[flags\] build\/src\/server\/main.js"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
