/**
 * Gatehouse's compiled code, for the peer bench: the server, and the bench helpers of `npm run bench`
 * (`build/scripts/bench/`), loaded from `build/` as `npm run build:all` leaves them, so that both benches measure
 * the same way with the same code.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const BUILD = fileURLToPath(new URL('../../build/', import.meta.url));
const require = createRequire(import.meta.url);

/** A CommonJS module of build/, by its path inside it. */
export function requireBuilt(path) {
  const file = BUILD + path;
  if (!existsSync(file))
    throw new Error(`${file} is missing: run \`npm run build:all\` first (npm run bench:peers does)`);
  return require(file);
}

export const { BenchProcess } = requireBuilt('scripts/bench/bench-process.js');
export const { runOnce, summarize, median } = requireBuilt('scripts/bench/measure.js');
export const { openBenchDatabase, seedAccounts, PASSWORD } = requireBuilt('scripts/bench/seed.js');
export const { measureArgon2Ceiling } = requireBuilt('scripts/bench/argon2-ceiling-run.js');
export const { resolveAccountOptions } = requireBuilt('src/services/account-options.js');
export const { startFlags } = requireBuilt('scripts/bench/start-flags.js');
