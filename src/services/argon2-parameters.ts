import type { HashingOptions } from './account-options';

/** The cost parameters written in an argon2 PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`). */
export interface Argon2Parameters {
  type: string;
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** The parameters of a stored hash, or null when it is not an argon2 PHC string at all. */
export function parseArgon2Parameters(phc: string): Argon2Parameters | null {
  const match = /^\$(argon2(?:id|i|d))\$(?:v=\d+\$)?([^$]+)\$/.exec(phc);
  if (!match) return null;
  const params = new Map(
    match[2].split(',').map((pair) => {
      const [key, value] = pair.split('=');
      return [key, /^\d{1,10}$/.test(value ?? '') ? Number(value) : NaN] as const;
    }),
  );
  const memoryCost = params.get('m');
  const timeCost = params.get('t');
  const parallelism = params.get('p');
  if (memoryCost === undefined || timeCost === undefined || parallelism === undefined) return null;
  if ([memoryCost, timeCost, parallelism].some((n) => !Number.isSafeInteger(n))) return null;
  return { type: match[1], memoryCost, timeCost, parallelism };
}

/**
 * Whether verifying against a stored hash costs an acceptable amount. A hash planted or corrupted with m = 4 GiB or
 * t = 10,000 would let one login exhaust memory or a core; anything up to four times the current parameters (or the
 * floors below, whichever is larger) still verifies, so lowering the parameters later does not lock anyone out.
 */
export function isAffordable(stored: Argon2Parameters, current: HashingOptions): boolean {
  return (
    stored.memoryCost <= Math.max(4 * current.memoryCost, 65_536) &&
    stored.timeCost <= Math.max(4 * current.timeCost, 10) &&
    stored.parallelism <= Math.max(4 * current.parallelism, 8)
  );
}
