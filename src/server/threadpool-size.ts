import { availableParallelism } from 'node:os';

/**
 * Threads libuv's pool keeps for everything that is not password hashing: file system calls, `dns.lookup` (a
 * PostgreSQL or SMTP host name), zlib (gzip request bodies). Node's default pool is 4 threads in all.
 */
export const THREADS_BESIDE_HASHING = 4;

/**
 * The libuv pool size the server runs with: one thread per concurrent hash (the hashing queue's default concurrency,
 * one per core) plus `THREADS_BESIDE_HASHING`.
 *
 * Why: argon2 runs on libuv's pool, and each hash holds its thread for tens of milliseconds. With Node's default of
 * 4 threads, a machine of 4 cores or more would have every thread hashing under a login burst, and a `dns.lookup`
 * or file read would wait behind the hashes; with fewer than 4 cores nothing is lost, but the spare threads are
 * then said out loud instead of being an accident of the default.
 */
export function threadpoolSize(cores: number = availableParallelism()): number {
  return Math.max(1, cores) + THREADS_BESIDE_HASHING;
}

/**
 * Sets `UV_THREADPOOL_SIZE` unless the environment already does. libuv reads it once, when the pool is first used
 * (the first asynchronous file, DNS, zlib or argon2 call), so this must run before any of them: it is the first
 * import of the server's entry (`main.ts`), and nothing above it does asynchronous I/O at load time.
 */
export function sizeThreadpool(env: NodeJS.ProcessEnv = process.env): void {
  if (env.UV_THREADPOOL_SIZE === undefined || env.UV_THREADPOOL_SIZE.trim() === '') {
    env.UV_THREADPOOL_SIZE = String(threadpoolSize());
  }
}

sizeThreadpool();
