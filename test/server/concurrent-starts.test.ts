import { expect } from 'chai';
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { copyProject } from '../../scripts/bench/first-answer';
import { freePort } from '../support/free-port';

const ROOT = join(__dirname, '../../..');
const SECRET_KEY = 'concurrent-starts-secret-key-concurrent-starts-key';
const INSTANCES = 3;
/** One compilation of src/ takes 20 s on two idle cores; the suites of other work may share them. */
const START_TIMEOUT_MS = 240_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The status of one GET, or null when nothing answers (yet). */
function probe(url: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(null));
    req.end();
  });
}

/** An `npm <args>` in its own process group (npm, its pre-script and the server are stopped together). */
class Npm {
  stderr = '';
  code: number | null | undefined = undefined;
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(cwd: string, args: string[], env: Record<string, string> = {}) {
    this.child = spawn('npm', args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    this.child.stderr!.on('data', (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve((this.code = code))));
  }

  stop(): Promise<number | null> {
    try {
      process.kill(-this.child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    return this.exited;
  }
}

/** `npm start` of one instance on its own SQLite file; resolves once it answers HTTP. */
class Instance {
  readonly npm: Npm;
  constructor(
    cwd: string,
    readonly url: string,
    env: Record<string, string>,
  ) {
    this.npm = new Npm(cwd, ['start'], env);
  }

  static async launch(cwd: string, dataDir: string, name: string): Promise<Instance> {
    const port = await freePort();
    return new Instance(cwd, `http://127.0.0.1:${port}/auth/me`, {
      PORT: String(port),
      GATEHOUSE_DATABASE_URL: `sqlite:${join(dataDir, `${name}.db`)}`,
      GATEHOUSE_SECRET_KEY: SECRET_KEY,
      GATEHOUSE_PUBLIC_URL: 'http://127.0.0.1:8000',
    });
  }

  async answering(deadline: number): Promise<void> {
    for (;;) {
      if ((await probe(this.url)) !== null) return;
      if (this.npm.code !== undefined) throw new Error(`npm start exited (${this.npm.code}):\n${this.npm.stderr}`);
      if (Date.now() > deadline) throw new Error(`npm start did not answer:\n${this.npm.stderr}`);
      await sleep(100);
    }
  }
}

/**
 * Several instances started together from one checkout after an update (as docs/guides/postgres-and-instances.md
 * runs them), with `npm pack`'s build beside them: a fresh copy of the checkout, no build, node_modules linked.
 */
describe('several npm start at once from one checkout with a stale build, and npm run build beside them', function () {
  this.timeout(2 * START_TIMEOUT_MS);
  let project: ReturnType<typeof copyProject>;
  let dataDir: string;
  const running: Npm[] = [];

  before(() => {
    project = copyProject(ROOT, false);
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-concurrent-starts-'));
  });

  after(async () => {
    await Promise.all(running.map((npm) => npm.stop()));
    project?.remove();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('all start, one compilation serves them all, and a rebuild under them leaves them serving', async () => {
    const instances = await Promise.all(
      Array.from({ length: INSTANCES }, (_, i) => Instance.launch(project.dir, dataDir, `instance-${i}`)),
    );
    running.push(...instances.map((instance) => instance.npm));
    // What `npm pack` runs first (its prepack), at the same moment.
    const pack = new Npm(project.dir, ['run', 'build']);
    running.push(pack);

    const deadline = Date.now() + START_TIMEOUT_MS;
    await Promise.all(instances.map((instance) => instance.answering(deadline)));
    expect(await pack.exited, pack.stderr).to.equal(0);
    // At most one start compiled (none when the build got the lock first); the others waited and used that build.
    const compiled = instances.filter((instance) => instance.npm.stderr.includes('gatehouse: compiling ('));
    expect(compiled.length, instances.map((instance) => instance.npm.stderr).join('\n---\n')).to.be.at.most(1);

    // A rebuild while they serve (another `npm pack`) swaps files under them: none is deleted, none stops.
    const rebuild = new Npm(project.dir, ['run', 'build']);
    running.push(rebuild);
    expect(await rebuild.exited, rebuild.stderr).to.equal(0);
    for (const instance of instances) {
      expect(await probe(instance.url), instance.url).to.not.equal(null);
      expect(instance.npm.code, instance.npm.stderr).to.equal(undefined);
    }

    // And one more start finds the build current: it compiles nothing.
    const late = await Instance.launch(project.dir, dataDir, 'late');
    running.push(late.npm);
    await late.answering(Date.now() + 60_000);
    expect(late.npm.stderr).to.not.include('compiling');
    expect(readdirSync(project.dir).filter((name) => name.startsWith('.build'))).to.deep.equal([]);
    expect(existsSync(join(project.dir, 'build/.build-stamp'))).to.equal(true);
  });
});
