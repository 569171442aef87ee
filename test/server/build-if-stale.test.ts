import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
/** The build's scripts: the stale check, the lock, the compile-and-swap and `npm run build`'s entry. */
const SCRIPTS = readdirSync(join(ROOT, 'scripts')).filter((name) => name.endsWith('.mjs'));
const CONSOLE = 'declare const console: { log(text: unknown): void };\n';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function npm(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A project of one source file with this repository's own build, clean and prestart scripts, build scripts and
 * compiler (node_modules is a link to ours), so that `npm start` decides and compiles exactly as here, in a second
 * instead of twenty.
 */
function tinyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-build-if-stale-'));
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const pick = ['clean', 'build', 'build:all', 'prestart'];
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'tiny',
      private: true,
      scripts: { ...Object.fromEntries(pick.map((name) => [name, scripts[name]])), start: 'node build/src/main.js' },
    }),
  );
  // No DOM library and no @types (the sources declare the one global they use): the compiler reads a few files
  // instead of hundreds, and each compilation takes about a second.
  const compilerOptions = {
    target: 'ES2022',
    lib: ['ES2022'],
    types: [],
    module: 'commonjs',
    rootDir: '.',
    outDir: 'build',
    strict: true,
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src', 'test'] }));
  writeFileSync(join(dir, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', include: ['src'] }));
  mkdirSync(join(dir, 'scripts'));
  for (const script of SCRIPTS) copyFileSync(join(ROOT, 'scripts', script), join(dir, 'scripts', script));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'test'));
  writeFileSync(join(dir, 'test/main.test.ts'), "export const test = 'compiled by build:all only';\n");
  return dir;
}

/**
 * `npm start`'s prestart (`scripts/build-if-stale.mjs`) on a real project and a real compiler. Whether it compiled is
 * read from what it leaves: a compilation cleans build/ first, so a marker file dropped into build/ survives only a
 * start that did not compile. The steps run in order, each from the state the previous one left.
 */
describe('npm start compiles only when build/ is not current (scripts/build-if-stale.mjs)', function () {
  this.timeout(60_000);
  let dir: string;
  const main = () => join(dir, 'src/main.ts');
  const marker = () => join(dir, 'build/marker');
  const writeMain = (text: string) => writeFileSync(main(), `${CONSOLE}console.log(${JSON.stringify(text)});\n`);
  const markBuild = () => writeFileSync(marker(), '');
  /** What a build leaves beside build/ once done: nothing (no lock, no compilation folder). */
  const leftovers = () => readdirSync(dir).filter((name) => name.startsWith('.build'));

  /** `npm start`: what the program printed, and whether the start compiled first. */
  async function start(): Promise<{ printed: string; compiled: boolean; stderr: string }> {
    const run = await npm(dir, 'start', '--silent');
    expect(run.code, run.stderr).to.equal(0);
    return { printed: run.stdout.trim(), compiled: !existsSync(marker()), stderr: run.stderr };
  }

  before(() => {
    dir = tinyProject();
    writeMain('one');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('compiles when there is no build', async () => {
    const run = await start();
    expect(run).to.include({ printed: 'one', compiled: true });
    expect(run.stderr).to.include('compiling (no finished build)');
    expect(existsSync(join(dir, 'build/.build-stamp'))).to.be.true;
  });

  it('does not compile when nothing changed', async () => {
    markBuild();
    const run = await start();
    expect(run).to.include({ printed: 'one', compiled: false });
    expect(run.stderr).to.not.include('compiling');
  });

  it('compiles when a source changed', async () => {
    markBuild();
    writeMain('two');
    const run = await start();
    expect(run).to.include({ printed: 'two', compiled: true });
    expect(run.stderr).to.include('the sources changed since the last build');
  });

  it('compiles when a checkout brings back an older file, with a time older than the build', async () => {
    markBuild();
    writeMain('one');
    const lastYear = new Date(Date.now() - 365 * 24 * 3600 * 1000);
    utimesSync(main(), lastYear, lastYear);
    expect((await start()).printed).to.equal('one');
  });

  it('compiles when build/ was deleted, or an output in it', async () => {
    rmSync(join(dir, 'build'), { recursive: true });
    expect(await start()).to.include({ printed: 'one', compiled: true });
    markBuild();
    rmSync(join(dir, 'build/src/main.js'));
    const run = await start();
    expect(run).to.include({ printed: 'one', compiled: true });
    expect(run.stderr).to.include('build/src/main.js is missing');
  });

  it('leaves build/ as it was when the compiler fails, so the next start compiles again', async () => {
    // tsc still writes main.js on a type error: it writes it aside, and nothing of it reaches build/.
    const before = readFileSync(join(dir, 'build/src/main.js'), 'utf8');
    const stamp = readFileSync(join(dir, 'build/.build-stamp'), 'utf8');
    writeFileSync(main(), `${CONSOLE}const count: number = 'three';\nconsole.log(count);\n`);
    const failed = await npm(dir, 'start', '--silent');
    expect(failed.code).to.not.equal(0);
    expect(failed.stderr).to.include('build/ still holds the last finished build');
    expect(readFileSync(join(dir, 'build/src/main.js'), 'utf8')).to.equal(before);
    expect(readFileSync(join(dir, 'build/.build-stamp'), 'utf8')).to.equal(stamp);
    expect(leftovers()).to.deep.equal([]);
    writeMain('three');
    const run = await start();
    expect(run).to.include({ printed: 'three', compiled: true });
    expect(run.stderr).to.include('the sources changed since the last build');
  });

  it('accepts the stamp of npm run build:all, which compiles src/ too', async () => {
    const all = await npm(dir, 'run', 'build:all', '--silent');
    expect(all.code, all.stderr).to.equal(0);
    expect(existsSync(join(dir, 'build/test/main.test.js'))).to.be.true;
    markBuild();
    expect(await start()).to.include({ printed: 'three', compiled: false });
  });

  it('several starts at once compile once: the others wait for that build, then start from it', async () => {
    writeMain('four');
    const runs = await Promise.all(Array.from({ length: 5 }, () => npm(dir, 'start', '--silent')));
    for (const run of runs)
      expect({ code: run.code, printed: run.stdout.trim() }, run.stderr).to.deep.equal({ code: 0, printed: 'four' });
    expect(runs.filter((run) => run.stderr.includes('compiling (')).length).to.equal(1);
    expect(leftovers()).to.deep.equal([]);
  });

  it('build/ stays whole while `npm run build` compiles aside and swaps its result in', async () => {
    const path = join(dir, 'build/src/main.js');
    const expected = readFileSync(path, 'utf8');
    const building = npm(dir, 'run', 'build', '--silent');
    let done = false;
    void building.then(() => (done = true));
    let reads = 0;
    const misses: string[] = [];
    while (!done) {
      try {
        if (readFileSync(path, 'utf8') !== expected) misses.push('other content');
      } catch (error) {
        misses.push((error as NodeJS.ErrnoException).code ?? String(error));
      }
      reads++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const run = await building;
    expect(run.code, run.stderr).to.equal(0);
    expect(reads).to.be.greaterThan(20);
    expect(misses).to.deep.equal([]);
    expect(existsSync(join(dir, 'build/test')), 'the tests of build:all, not compiled by build').to.be.false;
    expect(leftovers()).to.deep.equal([]);
  });

  it('takes over the lock and removes the compilation folder of a build whose process died', async () => {
    writeMain('five');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(join(dir, '.build.lock'), JSON.stringify({ pid: dead, host: hostname(), started: null }));
    mkdirSync(join(dir, `.build-tmp-${dead}/src`), { recursive: true });
    writeFileSync(join(dir, `.build-tmp-${dead}/src/main.js`), 'half-written');
    const run = await start();
    expect(run).to.include({ printed: 'five', compiled: true });
    expect(leftovers()).to.deep.equal([]);
  });

  it('waits while a live process holds the lock, then decides again', async () => {
    writeMain('six');
    const lock = join(dir, '.build.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), started: null }));
    const starting = npm(dir, 'start', '--silent');
    let exited = false;
    void starting.then(() => (exited = true));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(exited, 'a start that did not wait for the lock').to.be.false;
    expect(existsSync(join(dir, 'build/.build-stamp')), 'the previous build, untouched').to.be.true;
    rmSync(lock);
    const run = await starting;
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.trim()).to.equal('six');
    expect(run.stderr).to.include(`waiting for the build in progress (pid ${process.pid})`);
    expect(leftovers()).to.deep.equal([]);
  });
});
