// `npm start`'s and `npm run gatehouse`'s pre-script: compiles (as `npm run build` does) only when build/ is not a
// finished compilation of the current sources, so that a start without changes does not wait for the compiler (about
// 20 s on two cores). Either `npm run build` or `npm run build:all` leaves a stamp it accepts (see build-inputs.mjs).
// Several starts at once in one checkout (instances started together after an update) compile once: the first takes
// the build lock and compiles, the others wait for it, find build/ current and start from it.
import { dirname } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { staleReason } from './build-inputs.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
// Without the lock: the stamp is the last thing a build writes and the first it removes, so a current answer is true.
if (staleReason(root) !== null) {
  // Loaded only here: a start with a current build reads no more than the check needs.
  const { acquireBuildLock } = await import('./build-lock.mjs');
  const { compileAndSwap } = await import('./build-swap.mjs');
  const release = await acquireBuildLock(root, (owner) =>
    process.stderr.write(`gatehouse: waiting for the build in progress (pid ${owner?.pid ?? '?'})\n`),
  );
  try {
    // Asked again under the lock: the build we waited for may have made build/ current.
    const reason = staleReason(root);
    if (reason !== null) {
      process.stderr.write(`gatehouse: compiling (${reason})\n`);
      process.exitCode = await compileAndSwap(root, 'tsconfig.build.json');
    }
  } finally {
    release();
  }
}
