/**
 * The hashing ceiling of better-auth, as `argon2-ceiling.ts` is Gatehouse's: how many of better-auth's own password
 * hashes (`hashPassword` of `better-auth/crypto`) this machine computes a second, with one in flight per core.
 *
 * Run as a child process: prints one JSON line, `{ "concurrency", "rates": [...], "peakRssBytes" }`, one rate per
 * run after a warm-up. Arguments: warm-up seconds, run seconds, runs.
 */
import { availableParallelism } from 'node:os';
import { hashPassword } from 'better-auth/crypto';

const [warmupSeconds, runSeconds, runs] = process.argv.slice(2).map(Number);
const concurrency = availableParallelism();
const password = 'violet staircase 42 umbrella';

/** Hashes completed in `seconds` by `concurrency` loops, each starting the next hash when its last one ends. */
async function hashesIn(seconds) {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const loop = async () => {
    while (Date.now() < deadline) {
      await hashPassword(password);
      done += 1;
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, loop));
  return done / (Number(process.hrtime.bigint() - started) / 1e9);
}

await hashesIn(warmupSeconds);
const rates = [];
for (let run = 0; run < runs; run++) rates.push(await hashesIn(runSeconds));
process.stdout.write(
  JSON.stringify({ concurrency, rates, peakRssBytes: process.resourceUsage().maxRSS * 1024 }) + '\n',
);
