import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { HostDriver, INSTALL_LINES } from './install-line';

// What a user gets from `npm install gatehouse`: the packed tarball, installed into a fresh project with the docs'
// install line, a host compiled with the user's `tsc` under `strict` and `skipLibCheck: false`, then run. Each host
// (test/package/hosts/<driver>/main.ts) is a separate project with its own install, so a package missing from one
// driver's line cannot hide behind another's. Adding a driver: its line in install-line.ts and its main.ts.

const ROOT = resolve(__dirname, '../../..');
const HOSTS = resolve(ROOT, 'test/package/hosts');
const DRIVERS = Object.keys(INSTALL_LINES) as HostDriver[];

/** Installing compiles better-sqlite3 (and maybe argon2) from source when no prebuilt binary can be downloaded. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const STEP_TIMEOUT_MS = 2 * 60_000;
/** npm's cache is warm after `npm ci`, so the registry is only asked for what it lacks. */
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];

/** The host's compiler options: what the docs ask for, and checks as strict as a careful user's. */
const HOST_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'nodenext',
    strict: true,
    skipLibCheck: false,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    esModuleInterop: true,
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src/**/*.ts'],
};

/**
 * The older setup many routing-controllers apps still have (TypeScript 5, `module: commonjs`, hence node10
 * resolution, which ignores `exports`): the subpath entries must resolve there too, through `typesVersions`.
 */
const LEGACY_TSCONFIG = {
  extends: './tsconfig.json',
  compilerOptions: { module: 'commonjs', moduleResolution: 'node', noEmit: true },
};

interface Answer {
  status: number;
  body: unknown;
}

interface JourneyReport {
  account: { username: string; email: string; password: string };
  register: Answer;
  verify: Answer;
  login: Answer;
  withoutToken: Answer;
  beforeGrant: Answer;
  afterGrant: Answer;
}

interface PackResult {
  filename: string;
  files: { path: string }[];
}

describe('the npm tarball, installed and compiled as a host would', function () {
  this.timeout(INSTALL_TIMEOUT_MS + 5 * STEP_TIMEOUT_MS);
  let work: string;
  let tarball: string;
  let packed: string[];

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gatehouse-tarball-'));
    // The build is `npm test`'s pretest (build:all): the package's own prepack would compile the same src/ again.
    const output = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
    const [result] = JSON.parse(output) as PackResult[];
    tarball = join(work, result.filename);
    packed = result.files.map((file) => file.path);
  });

  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships the compiled entries, their declarations, the README, the docs it links to and the licence; no tests, maps or sources', () => {
    const shipped = (path: string) =>
      /^build\/src\/.+\.(js|d\.ts)$/.test(path) ||
      /^docs\/.+\.md$/.test(path) ||
      ['package.json', 'README.md', 'LICENSE'].includes(path);
    const unexpected = packed.filter((path) => !shipped(path));
    expect(unexpected).to.deep.equal([]);
    expect(packed).to.include.members(['build/src/cli/main.js', 'LICENSE', 'docs/README.md', ...entryTargets()]);
  });

  it('runs nothing of its own when a host installs it (no install, postinstall or prepare script)', () => {
    const { scripts } = readPackageJson();
    expect(Object.keys(scripts)).to.not.include.members(['preinstall', 'install', 'postinstall', 'prepare']);
  });

  describe('in a fresh host project per driver', () => {
    before(async function () {
      if (await registryReachable()) return;
      if (process.env.CI === 'true') throw new Error('the npm registry is required when CI=true but `npm ping` fails');
      console.warn('  [skipped] tarball install tests: `npm ping` fails, and installing needs the npm registry');
      this.skip();
    });

    for (const driver of DRIVERS) {
      it(`a ${driver} host installs the docs' line, compiles strictly and serves a guarded route end to end`, async () => {
        expect(existsSync(join(HOSTS, driver, 'main.ts')), `test/package/hosts/${driver}/main.ts`).to.equal(true);
        const project = join(work, driver);
        mkdirSync(join(project, 'src'), { recursive: true });
        writeJson(join(project, 'package.json'), { name: `${driver}-host`, version: '1.0.0', private: true });
        for (const line of INSTALL_LINES[driver]) {
          await run('npm', installArgs(line, tarball), project, INSTALL_TIMEOUT_MS);
        }

        copyHostSources(driver, join(project, 'src'));
        writeJson(join(project, 'tsconfig.json'), HOST_TSCONFIG);
        writeJson(join(project, 'tsconfig.legacy.json'), LEGACY_TSCONFIG);
        await run(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', '.'], project);
        await run(
          process.execPath,
          [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.legacy.json'],
          project,
        );

        const output = await run(
          process.execPath,
          [join('dist', driver, 'main.js'), join(project, 'accounts.db')],
          project,
        );
        const report = JSON.parse(output.trim().split('\n').at(-1)!) as JourneyReport;
        expectJourney(report);
      });
    }
  });
});

function expectJourney(report: JourneyReport): void {
  expect(report.register.status, JSON.stringify(report.register)).to.equal(201);
  expect(report.verify).to.deep.equal({ status: 200, body: { detail: 'Email verified' } });
  expect(report.login.status, JSON.stringify(report.login)).to.equal(200);
  expect(report.login.body).to.have.property('token_type', 'bearer');
  expect(report.withoutToken).to.deep.equal({ status: 401, body: { detail: 'Not authenticated' } });
  expect(report.beforeGrant.status, JSON.stringify(report.beforeGrant)).to.equal(403);

  expect(report.afterGrant.status, JSON.stringify(report.afterGrant)).to.equal(200);
  const { user } = report.afterGrant.body as { user: Record<string, unknown> };
  expect(Object.keys(user).sort()).to.deep.equal(['createdAt', 'email', 'id', 'updatedAt', 'username', 'verified']);
  expect(user).to.include({ username: report.account.username, email: report.account.email, verified: true });
  // No answer of the journey carries the password, its hash or the store's normalised keys.
  const answers = JSON.stringify([report.register, report.verify, report.login, report.afterGrant]);
  for (const secret of [report.account.password, '$argon2', 'passwordHash', 'usernameKey', 'emailKey']) {
    expect(answers).to.not.include(secret);
  }
}

/** `npm install …` from the docs as npm arguments, with the package taken from the tarball instead of the registry. */
function installArgs(line: string, tarballPath: string): string[] {
  const [npm, command, ...rest] = line.trim().split(/\s+/);
  expect([npm, command], line).to.deep.equal(['npm', 'install']);
  return ['install', ...rest.map((word) => (word === 'gatehouse' ? tarballPath : word)), ...NPM_FLAGS];
}

/** The shared host files (the DI setup, sender, controller, journey) and the driver's own folder, into `src/`. */
function copyHostSources(driver: HostDriver, destination: string): void {
  for (const entry of readdirSync(HOSTS, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) cpSync(join(HOSTS, entry.name), join(destination, entry.name));
  }
  cpSync(join(HOSTS, driver), join(destination, driver), { recursive: true });
}

interface PackageJson {
  scripts: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  typesVersions: Record<string, Record<string, string[]>>;
}

function readPackageJson(): PackageJson {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
}

/** Every file the exports map and typesVersions name. */
function entryTargets(): string[] {
  const { exports, typesVersions } = readPackageJson();
  const targets = Object.values(exports)
    .flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)))
    .concat(Object.values(typesVersions['*']).flat())
    .map((target) => target.replace(/^\.\//, ''));
  return [...new Set(targets)];
}

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

async function registryReachable(): Promise<boolean> {
  try {
    await run('npm', ['ping'], ROOT, 30_000);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a command and resolves with its stdout; on failure, rejects with the command and the end of its output. The
 * environment is this one without what `npm test` adds about this package, so that npm in the host's folder sees
 * only the host.
 */
function run(command: string, args: string[], cwd: string, timeout = STEP_TIMEOUT_MS): Promise<string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^npm_(package_|lifecycle_|config_local_prefix$)/.test(name) && name !== 'INIT_CWD',
    ),
  );
  return new Promise((resolvePromise, reject) => {
    execFile(command, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolvePromise(stdout);
      const tail = `${stdout}\n${stderr}`.trim().split('\n').slice(-40).join('\n');
      reject(new Error(`${command} ${args.join(' ')} failed in ${cwd} (${error.message.split('\n')[0]}):\n${tail}`));
    });
  });
}
