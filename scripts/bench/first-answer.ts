import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from '../../test/support/free-port';

/** What `npm start` reads: the sources, the build configuration and scripts. Not build/, not the tests. */
const PROJECT_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src'];
/** The build's own scripts (scripts/*.mjs: the stale check, the lock, the compile-and-swap). */
const buildScripts = (root: string) => readdirSync(join(root, 'scripts')).filter((name) => name.endsWith('.mjs'));
/** What `npm start` runs once compiled; the stamp of `npm run build:all` covers it. */
const BUILD_FILES = ['build/src', 'build/.build-stamp'];

/**
 * A copy of the checkout for `npm start` to compile into as it likes: a stale build made here leaves the checkout's
 * own build/ (with the bench compiled in it) alone. node_modules is a link to the checkout's. `withBuild`: the
 * checkout's compiled src/ and its stamp come along, so the copy's build is current without compiling.
 */
export function copyProject(root: string, withBuild: boolean): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-startup-'));
  for (const file of PROJECT_FILES) cpSync(join(root, file), join(dir, file), { recursive: true });
  mkdirSync(join(dir, 'scripts'));
  for (const script of buildScripts(root)) cpSync(join(root, 'scripts', script), join(dir, 'scripts', script));
  if (withBuild) {
    for (const file of BUILD_FILES) cpSync(join(root, file), join(dir, file), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Resolves with the status of one GET, or null when nothing answers (yet). */
function probe(url: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.once('error', () => resolve(null));
    req.end();
  });
}

/** True while any process of the group led by `pid` is alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * CPU seconds used so far by the processes of the group led by `pid`, with their children that have exited (npm's
 * pre-script, a compilation): utime + stime + cutime + cstime of each /proc/<pid>/stat, in ticks of 1/100 s. Unlike
 * the wall time, it barely depends on what else the machine is doing.
 */
function groupCpuSeconds(pid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis start at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pid) continue;
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return ticks / 100;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A start: wall milliseconds to the first answer, and the CPU milliseconds its processes had used by then. */
export interface StartTiming {
  ms: number;
  cpuMs: number;
}

/**
 * Times from spawning `command` to the first HTTP answer, of any status, to `GET {url}{path}`; then the command's
 * whole process group (npm, its shell and the server) is stopped and waited for, so that its shutdown does not
 * overlap the next measurement.
 */
export async function timeToFirstAnswer(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; path: string; timeoutMs?: number },
): Promise<StartTiming> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${options.path}`;
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group, to stop npm and everything it started at once.
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = started + (options.timeoutMs ?? 120_000);
  try {
    for (;;) {
      if ((await probe(url)) !== null) {
        const ms = performance.now() - started;
        return { ms, cpuMs: groupCpuSeconds(child.pid!) * 1000 };
      }
      if (exited) throw new Error(`${command} ${args.join(' ')} exited before answering:\n${stderr}`);
      if (performance.now() > deadline) throw new Error(`${command} ${args.join(' ')} did not answer:\n${stderr}`);
      await sleep(5);
    }
  } finally {
    if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGTERM');
    while (groupAlive(child.pid!)) await sleep(10);
  }
}

/** Wall milliseconds of a command that exits by itself (a check, or Node doing nothing). */
export function timeToExit(command: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${stderr}`)),
    );
  });
}
