import { execFileSync } from 'node:child_process';

/** What requiring one package entry costs a fresh process. */
export interface EntryLoad {
  /** Milliseconds spent in `require(entry)`, not counting Node's own start. */
  requireMs: number;
  /** Files in `require.cache` afterwards: Gatehouse's own and its dependencies'. */
  modules: number;
  ownModules: number;
  /** Distinct packages under node_modules those files come from. */
  packages: string[];
  /** The process's resident memory after the require. */
  rssBytes: number;
}

// Runs in the fresh process: the package is required by name, as a host would (the checkout resolves itself through
// its package.json's exports, as test/architecture/entries.test.ts does).
const PROBE = `
  const started = process.hrtime.bigint();
  require(process.argv[1]);
  const requireMs = Number(process.hrtime.bigint() - started) / 1e6;
  const files = Object.keys(require.cache);
  const packages = new Set();
  let ownModules = 0;
  for (const file of files) {
    const at = file.lastIndexOf('/node_modules/');
    if (at < 0) { ownModules += 1; continue; }
    const [scope, name] = file.slice(at + '/node_modules/'.length).split('/');
    packages.add(scope.startsWith('@') ? scope + '/' + name : scope);
  }
  process.stdout.write(JSON.stringify({
    requireMs, modules: files.length, ownModules, packages: [...packages].sort(), rssBytes: process.memoryUsage().rss,
  }));
`;

/** Requires `entry` in a fresh Node process run in `root`. */
export function loadEntry(entry: string, root: string): EntryLoad {
  return JSON.parse(execFileSync(process.execPath, ['-e', PROBE, entry], { cwd: root, encoding: 'utf8' })) as EntryLoad;
}
