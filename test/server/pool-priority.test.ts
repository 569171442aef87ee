import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { PASSWORD } from '../support/fixtures';
import * as gatehouse from '../../src';
import { lowerPoolPriority, poolSizeOf } from '../../src/server/pool-priority';
import { threadNices } from '../support/thread-nices';
import { StandaloneServer } from './standalone-server';

const MODULE = join(__dirname, '../../src/server/pool-priority.js');
const NICES = join(__dirname, '../support/thread-nices.js');
const run = promisify(execFile);

/** Runs `script` in a fresh Node with `lowerPoolPriority` and `threadNices` in scope; returns what it prints, as JSON. */
async function inChild(script: string, env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    process.execPath,
    [
      '-e',
      `const { lowerPoolPriority } = require(${JSON.stringify(MODULE)});\n` +
        `const { threadNices } = require(${JSON.stringify(NICES)});\n${script}`,
    ],
    {
      env: { PATH: process.env.PATH, ...env },
    },
  );
  return JSON.parse(stdout);
}

describe('the hashing threads run below the event loop (pool-priority)', function () {
  this.timeout(60_000);

  it('reads UV_THREADPOOL_SIZE as libuv does', () => {
    expect(
      [undefined, '6', '0', 'many', '3 threads', '-2', '5000'].map((value) =>
        poolSizeOf({ UV_THREADPOOL_SIZE: value }),
      ),
    ).to.deep.equal([4, 6, 1, 1, 3, 1024, 1024]);
  });

  it("is offered to hosts from the package's entry", () => {
    expect(gatehouse.lowerPoolPriority).to.equal(lowerPoolPriority);
  });

  it('does nothing at 0 or off Linux', async () => {
    expect(await lowerPoolPriority(0, 4, 'linux')).to.equal(null);
    expect(await lowerPoolPriority(10, 4, 'darwin')).to.equal(null);
  });

  describe('on Linux', () => {
    before(function () {
      if (process.platform !== 'linux') {
        console.log('      (skipped: thread priorities are read from /proc, which only Linux has)');
        this.skip();
      }
    });

    it("lowers every thread of libuv's pool, and only those", async () => {
      const child = await inChild(
        `lowerPoolPriority(10, 3).then((result) => console.log(JSON.stringify({ result, pid: process.pid, nices: threadNices() })));`,
        { UV_THREADPOOL_SIZE: '3' },
      );
      expect(child.result).to.deep.equal({ nice: 10, threads: 3, poolSize: 3 });
      const nices = Object.entries(child.nices as Record<string, number>);
      expect(nices.filter(([, nice]) => nice === 10)).to.have.length(3);
      expect(nices.filter(([, nice]) => nice !== 10).every(([, nice]) => nice === 0)).to.equal(true);
      expect((child.nices as Record<string, number>)[String(child.pid)], 'the event loop').to.equal(0);
    });

    it("counts from the event loop's own nice value, up to 19", async () => {
      // The pool's threads are made by the first call that needs them, with the nice value of the thread making them.
      const child = await inChild(
        `require('node:os').setPriority(0, 5);
        lowerPoolPriority(10, 2).then((first) => {
          const lowered = threadNices();
          return lowerPoolPriority(10, 2).then((second) =>
            console.log(JSON.stringify({ first, second, pid: process.pid, lowered, again: threadNices() })));
        });`,
        { UV_THREADPOOL_SIZE: '2' },
      );
      expect(child.first).to.deep.equal({ nice: 15, threads: 2, poolSize: 2 });
      expect(Object.values(child.lowered as Record<string, number>).filter((nice) => nice === 15)).to.have.length(2);
      expect(child.second).to.deep.equal({ nice: 15, threads: 2, poolSize: 2 });
      expect((child.again as Record<string, number>)[String(child.pid)]).to.equal(5);

      const clamped = await inChild(
        `require('node:os').setPriority(0, 14);
        lowerPoolPriority(10, 1).then((result) => console.log(JSON.stringify(result)));`,
        { UV_THREADPOOL_SIZE: '1' },
      );
      expect(clamped).to.deep.equal({ nice: 19, threads: 1, poolSize: 1 });
    });

    describe('in the standalone server', () => {
      let cwd: string;
      let server: StandaloneServer | undefined;
      beforeEach(() => {
        cwd = mkdtempSync(join(tmpdir(), 'gatehouse-priority-'));
      });
      afterEach(async () => {
        await server?.stop('SIGKILL');
        server = undefined;
        rmSync(cwd, { recursive: true, force: true });
      });

      it('runs the pool 10 below the event loop by default, and hashes there', async () => {
        server = await StandaloneServer.start(cwd, { UV_THREADPOOL_SIZE: '5' });
        const nices = threadNices(server.pid);
        const loop = nices[server.pid];
        expect(Object.values(nices).filter((nice) => nice === loop + 10)).to.have.length(5);
        await request(server.url)
          .post('/auth/register')
          .send({ username: 'alice', email: 'alice@example.com', password: PASSWORD })
          .expect(201);
        await request(server.url)
          .post('/auth/login')
          .send({ username: 'alice', password: 'wrong password 1' })
          .expect(401);
      });

      it('leaves every thread beside the event loop with GATEHOUSE_HASHING_NICE=0', async () => {
        server = await StandaloneServer.start(cwd, { UV_THREADPOOL_SIZE: '5', GATEHOUSE_HASHING_NICE: '0' });
        const nices = threadNices(server.pid);
        expect(new Set(Object.values(nices))).to.deep.equal(new Set([nices[server.pid]]));
      });
    });
  });
});
