/**
 * The hashing ceiling of `npm run bench`: how many argon2id hashes a second this machine computes with every core
 * busy, with the server's own parameters (`DEFAULT_ACCOUNT_OPTIONS.hashing`) and as many hashes in flight as the
 * server's hashing queue runs (one per core). A login or a registration costs one such hash, so their rate is
 * reported as a share of this one.
 *
 * Run as a child process (its libuv pool sized as the server's): prints one JSON line, `{ "rates": [...] }`, one
 * rate per run after a warm-up. Arguments: warm-up seconds, run seconds, runs.
 */
import '../../src/server/threadpool-size';
import { availableParallelism } from 'node:os';
import * as argon2 from 'argon2';
import { DEFAULT_ACCOUNT_OPTIONS } from '../../src/services/account-options';

const [warmupSeconds, runSeconds, runs] = process.argv.slice(2).map(Number);
const concurrency = availableParallelism();
const password = 'violet staircase 42 umbrella';

/** Hashes completed in `seconds` by `concurrency` loops, each starting the next hash when its last one ends. */
async function hashesIn(seconds: number): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const loop = async () => {
    while (Date.now() < deadline) {
      await argon2.hash(password, { type: argon2.argon2id, ...DEFAULT_ACCOUNT_OPTIONS.hashing });
      done += 1;
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return done / elapsed;
}

async function main(): Promise<void> {
  await hashesIn(warmupSeconds);
  const rates: number[] = [];
  for (let run = 0; run < runs; run++) rates.push(await hashesIn(runSeconds));
  process.stdout.write(
    JSON.stringify({ concurrency, rates, peakRssBytes: process.resourceUsage().maxRSS * 1024 }) + '\n',
  );
}

void main();
