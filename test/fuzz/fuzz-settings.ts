import type { Parameters } from 'fast-check';

/**
 * Seed and run counts of the fuzz suite. The seed is random unless `FUZZ_SEED` is set, and it is printed in the
 * suite's title, so any failure seen in CI replays exactly with `FUZZ_SEED=<seed> npm test` (fast-check also prints
 * the failing case, its seed and path). `FUZZ_RUNS` multiplies every run count for a longer local session.
 */
export const FUZZ_SEED = readSeed(process.env.FUZZ_SEED);
const RUN_FACTOR = readFactor(process.env.FUZZ_RUNS);

/** fast-check parameters for one property: `runs` scaled by `FUZZ_RUNS`, the suite's seed. */
export function fuzzParameters<T>(runs: number): Parameters<T> {
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.round(runs * RUN_FACTOR)) };
}

function readSeed(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return (Math.random() * 2 ** 31) | 0;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got "${raw}"`);
  return seed;
}

function readFactor(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 1;
  const factor = Number(raw);
  if (!(factor > 0))
    throw new Error(`FUZZ_RUNS must be a positive number (a multiplier of the run counts), got "${raw}"`);
  return factor;
}
