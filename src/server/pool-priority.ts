import { readlink } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';

/** Node's default when `UV_THREADPOOL_SIZE` is unset; libuv's own bounds on the variable. */
const DEFAULT_POOL_SIZE = 4;
const MAX_POOL_SIZE = 1024;

/** Rounds of probes before the search settles for the threads it has found (a thread busy throughout is missed). */
const MAX_ROUNDS = 50;

/** What `lowerPoolPriority` did: the nice value it set, and on how many of the pool's threads. */
export interface PoolPriority {
  nice: number;
  threads: number;
  poolSize: number;
}

/** The size libuv gives its pool for this environment, read as libuv reads it (`atoi`, then clamped). */
export function poolSizeOf(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.UV_THREADPOOL_SIZE;
  if (raw === undefined) return DEFAULT_POOL_SIZE;
  const parsed = Number.parseInt(raw, 10);
  if (!Number.isFinite(parsed) || parsed === 0) return 1;
  return parsed < 0 || parsed > MAX_POOL_SIZE ? MAX_POOL_SIZE : parsed;
}

/**
 * The thread ids of libuv's pool, found by asking it. libuv runs every `fs.readlink` on one of the pool's threads, and
 * the kernel answers a read of `/proc/thread-self` with the id of the thread that reads it; enough probes at once
 * reach every idle thread. Linux only (`/proc/thread-self` is from Linux 3.17).
 */
export async function poolThreadIds(poolSize: number): Promise<Set<number>> {
  const found = new Set<number>();
  for (let round = 0; round < MAX_ROUNDS && found.size < poolSize; round++) {
    const links = await Promise.all(Array.from({ length: poolSize * 4 }, () => readlink('/proc/thread-self')));
    for (const link of links) found.add(Number(link.slice(link.lastIndexOf('/') + 1)));
  }
  return found;
}

/**
 * Lowers the scheduling priority of libuv's pool threads, where argon2 hashes, by `nice` below the event loop's.
 *
 * Why: every hash holds a core for tens of milliseconds, and the pool runs one per core. At equal priority the
 * kernel shares the cores between the hashes and the event loop, so under a login flood a session check waits for
 * the loop's turn (`GET /me`'s p99 rose from 6 to 10-12 ms with hashing saturated, Node 20, 2 cores). Niced, the
 * hashes yield a core the moment the loop has work, and take it back when the loop waits: the same CPU goes to them
 * when nothing else wants it, so the hashing rate holds (docs/performance.md). Linux keeps a nice value per thread
 * (setpriority(2), "Bugs"), so the loop and Node's other threads keep theirs. Raising a nice value needs no
 * privilege; a refusal (a sandbox without `setpriority`, no `/proc`) rejects, and leaves the threads as they were.
 * Null when there was nothing to do (`nice` 0, or not Linux).
 */
export async function lowerPoolPriority(
  nice: number,
  poolSize: number = poolSizeOf(),
  platform: NodeJS.Platform = process.platform,
): Promise<PoolPriority | null> {
  if (nice === 0 || platform !== 'linux') return null;
  // Relative to the loop's own, so that a server started under `nice` keeps its hashes below its loop.
  const target = Math.min(19, getPriority() + nice);
  let threads = 0;
  for (const tid of await poolThreadIds(poolSize)) {
    setPriority(tid, target);
    threads += 1;
  }
  return { nice: target, threads, poolSize };
}
