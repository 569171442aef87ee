import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(__dirname, '../../src/server/main.js');

import { freePort } from '../support/free-port';

/** `npm start`'s process (node build/src/server/main.js), with its output collected. */
export class StandaloneServer {
  stdout = '';
  stderr = '';
  private exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout!.on('data', (chunk) => (this.stdout += chunk));
    child.stderr!.on('data', (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Starts the server in `cwd` and resolves once it logs that it listens. */
  static async start(cwd: string, env: Record<string, string>): Promise<StandaloneServer> {
    const port = env.PORT ?? String(await freePort());
    const child = spawn(process.execPath, [MAIN], {
      cwd,
      env: { PATH: process.env.PATH, ...env, PORT: port },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new StandaloneServer(child, `http://127.0.0.1:${port}`);
    await server.waitFor(() => server.stderr.includes('"event":"listening"'), 'the server to listen');
    return server;
  }

  /** Runs the process to its end (for start-up failures). */
  static async run(cwd: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [MAIN], { cwd, env: { PATH: process.env.PATH, ...env }, stdio: 'pipe' });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { code, stderr };
  }

  /** The raw token of the newest console-printed link of this kind. */
  lastLinkToken(path: 'verify-email' | 'password-reset'): string {
    const matches = [...this.stdout.matchAll(new RegExp(`/${path}\\?token=([A-Za-z0-9_-]+)`, 'g'))];
    if (matches.length === 0) throw new Error(`no ${path} link printed yet`);
    return matches[matches.length - 1][1];
  }

  async waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (this.child.exitCode !== null) throw new Error(`server exited while waiting for ${what}:\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Whether the process is still alive. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends the signal and resolves with the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill(signal);
    return this.exited;
  }
}
