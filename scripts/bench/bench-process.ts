import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

import { freePort } from '../../test/support/free-port';

/** How much of a child's output is kept: enough to find the latest link printed, never the whole run's mail. */
const KEPT_OUTPUT = 256 * 1024;

/**
 * A server under test, run as a child process so that its memory and CPU are its own: started with its environment,
 * ready once its stderr says so, and measured through /proc (peak RSS).
 */
export class BenchProcess {
  private readonly out = new OutputTail();
  private readonly err = new OutputTail();
  private readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout!.on('data', (chunk: Buffer) => this.out.add(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.err.add(chunk));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** The last KEPT_OUTPUT characters or so the process wrote to stdout. */
  get stdout(): string {
    return this.out.text();
  }

  get stderr(): string {
    return this.err.text();
  }

  /**
   * Starts `node script` and resolves when `ready` matches its stderr. `launcher` runs node under another program
   * (`['valgrind', ...flags]`), which may make start-up slower than `waitFor`'s default allows: `readyTimeoutMs`.
   */
  static async start(
    script: string,
    env: Record<string, string>,
    ready: RegExp,
    options: { cwd?: string; nodeArgs?: string[]; launcher?: string[]; readyTimeoutMs?: number } = {},
  ): Promise<BenchProcess> {
    const port = String(await freePort());
    const { cwd, nodeArgs = [], launcher = [] } = options;
    const [command, ...args] = [...launcher, process.execPath, ...nodeArgs, script];
    const child = spawn(command, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env, PORT: port },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new BenchProcess(child, `http://127.0.0.1:${port}`);
    await server.waitFor(() => ready.test(server.stderr), `${script} to be ready`, options.readyTimeoutMs);
    return server;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The raw token of the newest console-printed link of this kind. */
  lastLinkToken(path: 'verify-email' | 'password-reset'): string | null {
    const matches = [...this.stdout.matchAll(new RegExp(`/${path}\\?token=([A-Za-z0-9_-]+)`, 'g'))];
    return matches.length > 0 ? matches[matches.length - 1][1] : null;
  }

  /**
   * Starts a new peak: writing 5 to clear_refs resets the kernel's high-water mark of resident memory (VmHWM), so the
   * next `peakRssBytes()` is the peak of what ran in between, not of the whole life of the process.
   */
  resetPeakRss(): void {
    writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
  }

  /** The most resident memory the process has had since start or since `resetPeakRss()`. */
  peakRssBytes(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    return kib === undefined ? NaN : Number(kib) * 1024;
  }

  /**
   * CPU time the process (all its threads) has used since it started, in seconds: utime + stime of /proc/<pid>/stat,
   * in clock ticks of 1/100 s.
   */
  cpuSeconds(): number {
    return cpuSecondsOf(readFileSync(`/proc/${this.pid}/stat`, 'utf8'));
  }

  /**
   * CPU time of the main thread alone (the event loop: everything but the hashing, which runs on libuv's pool, and
   * V8's helper threads), in seconds: the same fields of the thread's own `/proc/<pid>/task/<pid>/stat`.
   */
  eventLoopCpuSeconds(): number {
    return cpuSecondsOf(readFileSync(`/proc/${this.pid}/task/${this.pid}/stat`, 'utf8'));
  }

  async waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (!this.running) throw new Error(`process exited while waiting for ${what}:\n${this.stderr.slice(-4000)}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${this.stderr.slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async stop(): Promise<number | null> {
    if (this.running) this.child.kill('SIGTERM');
    return this.exited;
  }
}

/** utime + stime of a `/proc/.../stat` line, in seconds (clock ticks of 1/100 s). */
export function cpuSecondsOf(stat: string): number {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis start at field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The tail of a stream, kept as chunks and joined only when read. Appending to one string and cutting it to size on
 * every chunk copied the whole tail each time: with registrations printing a mail each, that cost the load generator
 * a third of a core, taken from the hashing threads the registration row is measured against.
 */
class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;

  add(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0].length >= KEPT_OUTPUT) this.size -= this.chunks.shift()!.length;
  }

  text(): string {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]?.toString('utf8') ?? '';
  }
}
