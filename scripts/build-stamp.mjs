// `node scripts/build-stamp.mjs begin`, then the compiler, then `node scripts/build-stamp.mjs commit`: the stamp that
// `build-if-stale.mjs` trusts. The hash is taken before the compiler reads the sources, so a file edited during the
// build leaves a stamp that no longer matches; it becomes the stamp only after the compiler has succeeded, so a
// failed, killed or crashed build leaves none.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { inputsHash, PENDING, STAMP } from './build-inputs.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const build = join(root, 'build');
const step = process.argv[2];

if (step === 'begin') {
  mkdirSync(build, { recursive: true });
  writeFileSync(join(build, PENDING), inputsHash(root) + '\n');
} else if (step === 'commit') {
  renameSync(join(build, PENDING), join(build, STAMP));
} else {
  process.stderr.write('usage: node scripts/build-stamp.mjs begin|commit\n');
  process.exit(2);
}
