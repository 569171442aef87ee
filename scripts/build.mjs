// `npm run build` (`node scripts/build.mjs package`: src/ alone, tsconfig.build.json), `npm run build:all` (`all`:
// with the tests, scripts and examples, tsconfig.json) and `npm run clean` (`clean`). Each waits for a build in
// progress in this checkout (another `npm start`, `npm pack`...), then compiles beside build/ and swaps the result
// in (build-swap.mjs): running or starting servers never see build/ missing or half-written.
import { dirname } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { acquireBuildLock } from './build-lock.mjs';
import { clean, compileAndSwap } from './build-swap.mjs';

const CONFIGS = { package: 'tsconfig.build.json', all: 'tsconfig.json' };
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const command = process.argv[2];

if (!(command in CONFIGS) && command !== 'clean') {
  process.stderr.write('usage: node scripts/build.mjs package|all|clean\n');
  process.exit(2);
}
const release = await acquireBuildLock(root, (owner) =>
  process.stderr.write(`gatehouse: waiting for the build in progress (pid ${owner?.pid ?? '?'})\n`),
);
try {
  if (command === 'clean') clean(root);
  else process.exitCode = await compileAndSwap(root, CONFIGS[command]);
} finally {
  release();
}
