import assert from 'node:assert/strict';
import { ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { CreateUserResult } from '../../src/services/user-store';
import type { WorkerCommand, WorkerReport } from './fixtures/sqlite-store-worker';
import { makeTempFolder } from './temp-folder';

const WORKER = path.join(__dirname, 'fixtures', 'sqlite-store-worker.js');

/** A child process holding its own SqliteUserStore on `filename`. */
class Worker {
  private readonly child: ChildProcess;
  private readonly reports: WorkerReport[] = [];
  private waiting: (() => void) | null = null;
  readonly exited: Promise<unknown>;

  constructor(filename: string) {
    this.child = fork(WORKER, [filename], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.exited = once(this.child, 'exit');
    this.child.on('message', (report: WorkerReport) => {
      this.reports.push(report);
      this.waiting?.();
    });
  }

  send(command: WorkerCommand): void {
    this.child.send(command);
  }

  /** The next report of the worker; fails if the worker reports a failure or exits first. */
  async next(): Promise<WorkerReport> {
    while (this.reports.length === 0) {
      const arrived = new Promise<'arrived'>((resolve) => (this.waiting = () => resolve('arrived')));
      const outcome = await Promise.race([arrived, this.exited.then(() => 'exited' as const)]);
      if (outcome === 'exited' && this.reports.length === 0) throw new Error('the worker exited without reporting');
    }
    const report = this.reports.shift()!;
    if (report.kind === 'failed') throw new Error(`worker failed: ${report.error}`);
    return report;
  }

  /** The outcomes of the `register` command sent last. */
  async registered(): Promise<Array<CreateUserResult | { error: string }>> {
    const report = await this.next();
    assert.equal(report.kind, 'registered');
    return report.kind === 'registered' ? report.outcomes : [];
  }

  async killHard(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

describe('SqliteUserStore across processes', function () {
  this.timeout(60_000);
  let folder: ReturnType<typeof makeTempFolder>;
  let filename: string;
  let workers: Worker[] = [];

  beforeEach(() => {
    folder = makeTempFolder();
    filename = path.join(folder.path, 'gatehouse.db');
  });

  afterEach(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    workers = [];
    folder.remove();
  });

  function startWorkers(count: number): Worker[] {
    workers = Array.from({ length: count }, () => new Worker(filename));
    return workers;
  }

  it('4 processes migrating one new file together, then registering one username 5 times each: one wins', async () => {
    const started = startWorkers(4);
    for (const worker of started) assert.deepEqual(await worker.next(), { kind: 'ready' });

    started.forEach((worker, w) =>
      worker.send({ kind: 'register', usernameKey: 'racer', labels: [0, 1, 2, 3, 4].map((i) => `racer-${w}-${i}`) }),
    );
    const outcomes = [];
    for (const worker of started) outcomes.push(...(await worker.registered()));

    assert.deepEqual(
      outcomes.filter((outcome) => 'error' in outcome),
      [],
      'no process saw an error',
    );
    const results = outcomes as CreateUserResult[];
    assert.equal(results.filter((result) => result.ok).length, 1);
    assert.equal(results.filter((result) => !result.ok && result.conflict === 'username').length, 19);
  });

  it('a registration acknowledged just before the process is killed with SIGKILL survives', async () => {
    // A killed process loses nothing the operating system already holds, so this proves the commit happened before
    // the acknowledgement, not that it reached the platter: that is what synchronous=FULL is for.
    const [worker] = startWorkers(1);
    assert.deepEqual(await worker.next(), { kind: 'ready' });
    worker.send({ kind: 'register', labels: ['survivor'] });
    const [outcome] = await worker.registered();
    await worker.killHard();

    assert.equal((outcome as CreateUserResult).ok, true, 'the worker acknowledged the registration');
    const store = await SqliteUserStore.open({ filename });
    try {
      assert.equal((await store.users.findById('id-survivor'))?.username, 'survivor');
      assert.ok(
        await store.transaction((tx) =>
          tx.users.confirmAddress('verify-survivor', new Date('2030-01-01T00:00:00.000Z')),
        ),
      );
    } finally {
      await store.close();
    }
  });
});
