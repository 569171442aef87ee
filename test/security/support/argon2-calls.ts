// The argon2 module object itself: the hasher reads its functions through it on every call, so replacing them here
// lets a test watch the calls without a seam in the production code.
type Argon2Function = (...args: unknown[]) => Promise<unknown>;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS module object itself, not a copy of its bindings
const argon2 = require('argon2') as { hash: Argon2Function; verify: Argon2Function };

/** Counts argon2 hash and verify calls, and the most ever running at once, until `restore()`. */
export function watchArgon2(): { readonly count: number; readonly maxRunning: number; restore(): void } {
  const { hash, verify } = argon2;
  let count = 0;
  let running = 0;
  let maxRunning = 0;
  const watched =
    (work: Argon2Function): Argon2Function =>
    async (...args) => {
      count += 1;
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      try {
        return await work(...args);
      } finally {
        running -= 1;
      }
    };
  argon2.hash = watched(hash);
  argon2.verify = watched(verify);
  return {
    get count() {
      return count;
    },
    get maxRunning() {
      return maxRunning;
    },
    restore() {
      argon2.hash = hash;
      argon2.verify = verify;
    },
  };
}
