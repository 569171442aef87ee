import { expect } from 'chai';
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const SCRIPTS = ['build-inputs.mjs', 'build-stamp.mjs', 'build-if-stale.mjs'];
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

  it('leaves no stamp when the compiler fails, so the next start compiles again', async () => {
    // tsc still writes main.js on a type error: only the missing stamp tells this build from a good one.
    writeFileSync(main(), `${CONSOLE}const count: number = 'three';\nconsole.log(count);\n`);
    const failed = await npm(dir, 'start', '--silent');
    expect(failed.code).to.not.equal(0);
    expect(existsSync(join(dir, 'build/src/main.js'))).to.be.true;
    expect(existsSync(join(dir, 'build/.build-stamp'))).to.be.false;
    writeMain('three');
    const run = await start();
    expect(run).to.include({ printed: 'three', compiled: true });
    expect(run.stderr).to.include('the last build failed or did not finish');
  });

  it('accepts the stamp of npm run build:all, which compiles src/ too', async () => {
    const all = await npm(dir, 'run', 'build:all', '--silent');
    expect(all.code, all.stderr).to.equal(0);
    expect(existsSync(join(dir, 'build/test/main.test.js'))).to.be.true;
    markBuild();
    expect(await start()).to.include({ printed: 'three', compiled: false });
  });
});
