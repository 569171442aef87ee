// `npm start`'s and `npm run gatehouse`'s pre-script: compiles (`npm run build`) only when build/ is not a finished
// compilation of the current sources, so that a start without changes does not wait for the compiler (about 20 s on
// two cores). Either `npm run build` or `npm run build:all` leaves a stamp it accepts (see build-inputs.mjs).
import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { staleReason } from './build-inputs.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const reason = staleReason(root);
if (reason !== null) {
  process.stderr.write(`gatehouse: compiling (${reason})\n`);
  // Under npm, npm_execpath is the npm that runs us; by hand, whichever npm is on the PATH.
  const npm = process.env.npm_execpath;
  const { status, error } = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build', '--silent'], {
        cwd: root,
        stdio: 'inherit',
        shell: process.platform === 'win32',
      });
  if (error) throw error;
  process.exit(status ?? 1);
}
