/**
 * Installs scripts/bench-peers/ (`npm ci --prefix scripts/bench-peers`) unless it is installed already from this
 * very lockfile for this Node's ABI: better-sqlite3 is a native addon, built for one Node at install time, so a
 * change of Node needs an install as much as a change of the lockfile does.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const folder = fileURLToPath(new URL('.', import.meta.url));
const lockfile = readFileSync(new URL('package-lock.json', import.meta.url));
const stampFile = fileURLToPath(new URL('node_modules/.bench-peers-installed', import.meta.url));
const stamp = `${createHash('sha256').update(lockfile).digest('hex')} node-abi-${process.versions.modules}\n`;

if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp) {
  process.stderr.write('bench:peers: installing scripts/bench-peers (better-auth, better-sqlite3)\n');
  // npm's output to stderr: stdout is the report.
  execFileSync('npm', ['ci', '--prefix', folder, '--no-audit', '--no-fund'], { stdio: ['ignore', 2, 2] });
  writeFileSync(stampFile, stamp);
}
