import { LIMIT_NAMES, Limit, LimitName, RateLimitOptions } from '../../src/limits/rate-limit-options';

/**
 * Rate limits so high no ordinary test reaches them. The suites that are not about limits log in, register and
 * reset many times from one address (supertest's loopback) within seconds, which the defaults rightly refuse; they
 * run with these, explicitly, and test/limits proves the defaults. The limiter itself stays on, so these suites
 * still go through it.
 */
export function generousRateLimits(): RateLimitOptions {
  const limits = {} as Record<LimitName, Limit>;
  for (const name of LIMIT_NAMES) limits[name] = { points: 1_000_000, duration: 3600 };
  return { limits, loginBackoff: { freeFailures: 1_000_000 } };
}
