import { RateLimiterMemory, rateLimiterRedis, RateLimiterRes } from './rate-limiter-classes';
import type { AttemptLimiter, LimitDecision } from '../services/attempt-limiter';
import { Logger, silentLogger } from '../services/logger';
import { FailoverLimiter, StoreHealth } from './failover-limiter';
import { MemoryWindows } from './memory-windows';
import type { Awaitable } from '../services/awaitable';
import {
  API_KEY_LIMITS,
  type ApiKeyLimit,
  Limit,
  LIMIT_NAMES,
  LimitName,
  RateLimitOptions,
  ResolvedRateLimitOptions,
  resolveRateLimitOptions,
} from './rate-limit-options';

const ALLOWED: LimitDecision = Object.freeze({ allowed: true, retryAfterMs: 0 });

/**
 * Every budget of Gatehouse (see `DEFAULT_LIMITS`), kept with rate-limiter-flexible in this process's memory or,
 * given an ioredis client, in Redis, where every instance shares them and they outlive restarts. It is the core's
 * `AttemptLimiter` and the per-IP limiter of the HTTP routes alike.
 *
 * `login.account` adds a progressive backoff to its hourly cap: past the free failures of its window, each attempt
 * makes the next one wait (doubling up to `maxDelay`). The wait starts when an attempt is let through, before its
 * password is checked, so attempts cannot slip in while a guess is being verified. A correct password or a reset
 * (`reset`) clears both.
 *
 * Never throws: Redis failing or slow falls back to memory (see `FailoverLimiter`), and anything else lets the
 * request through with an error logged, so the limits can weaken in an outage but never cause one.
 *
 * @example
 * const limits = new RateLimits({ redis, keyPrefix: 'myapp:rl' });
 * await limits.consume('login.ip', '203.0.113.7');   // { allowed: true, retryAfterMs: 0 }
 */
export class RateLimits implements AttemptLimiter {
  readonly options: ResolvedRateLimitOptions;
  private readonly budgets = new Map<LimitName, FailoverLimiter>();
  private readonly backoff: FailoverLimiter;
  /** The API-key budgets when they live in this process's memory (no Redis): counted without a promise. */
  private readonly windows = new Map<LimitName, MemoryWindows>();

  constructor(
    options: RateLimitOptions = {},
    private readonly logger: Logger = silentLogger,
  ) {
    this.options = resolveRateLimitOptions(options);
    const health = new StoreHealth(logger, this.options.redisRetryAfterMs);
    for (const name of LIMIT_NAMES) this.budgets.set(name, this.limiter(name, this.options.limits[name], health));
    // A key backs off while it holds a block; with one point, `block` is what takes it over its budget.
    if (!this.options.redis) {
      for (const name of API_KEY_LIMITS) this.windows.set(name, new MemoryWindows(this.options.limits[name]));
    }
    this.backoff = this.limiter('login.backoff', { points: 1, duration: this.options.loginBackoff.maxDelay }, health);
    if (!this.options.enabled) {
      logger.warn({ event: 'config' }, 'rate limits are OFF (RATE_LIMITS.enabled = false): benchmarks and tests only');
    }
  }

  /** Counts one attempt of `key` against the budget `name`; refused when over it (or, for logins, backing off). */
  async consume(name: LimitName, key: string): Promise<LimitDecision> {
    if (!this.options.enabled) return ALLOWED;
    const windows = this.windows.get(name);
    if (windows) return windows.consume(key);
    try {
      if (name === 'login.account') {
        const blocked = await this.backoff.get(key);
        // A memory record may outlive its expiry by a timer tick, hence the check of the time left.
        if (blocked && blocked.consumedPoints > 1 && blocked.msBeforeNext > 0) return refused(blocked.msBeforeNext);
      }
      const counted = await this.budget(name).consume(key);
      if (name === 'login.account') await this.startBackoff(key, counted.consumedPoints);
      return ALLOWED;
    } catch (error) {
      if (error instanceof RateLimiterRes) return refused(error.msBeforeNext);
      this.logger.error({ event: 'rate_limit_store', outcome: 'error', limit: name }, 'rate limit check failed');
      return ALLOWED;
    }
  }

  /**
   * `consume` for the API-key budgets, answered in the call when they live in this process's memory (a promise only
   * with Redis): the guard counts every request of a key, and on SQLite the rest of its check needs no promise.
   */
  consumeNow(name: ApiKeyLimit, key: string): Awaitable<LimitDecision> {
    if (!this.options.enabled) return ALLOWED;
    return this.windows.get(name)?.consume(key) ?? this.consume(name, key);
  }

  /**
   * Refused when `key` has spent its whole budget `name` in the current window, without counting an attempt: the
   * guard asks before reading a key whether its address has presented too many invalid ones. In the call with memory.
   */
  exhaustedNow(name: ApiKeyLimit, key: string): Awaitable<LimitDecision> {
    if (!this.options.enabled) return ALLOWED;
    const windows = this.windows.get(name);
    return windows ? windows.peek(key) : this.spent(name, key);
  }

  private async spent(name: LimitName, key: string): Promise<LimitDecision> {
    try {
      const counted = await this.budget(name).get(key);
      const { points } = this.options.limits[name];
      return counted && counted.consumedPoints >= points && counted.msBeforeNext > 0
        ? refused(counted.msBeforeNext)
        : ALLOWED;
    } catch {
      this.logger.error({ event: 'rate_limit_store', outcome: 'error', limit: name }, 'rate limit check failed');
      return ALLOWED;
    }
  }

  /** Forgets the key's attempts in the budget (and, for `login.account`, its backoff). */
  async reset(name: LimitName, key: string): Promise<void> {
    if (!this.options.enabled) return;
    this.windows.get(name)?.delete(key);
    try {
      await this.budget(name).delete(key);
      if (name === 'login.account') await this.backoff.delete(key);
    } catch {
      this.logger.error({ event: 'rate_limit_store', outcome: 'error', limit: name }, 'rate limit reset failed');
    }
  }

  /** The wait after the `attempt`-th attempt of a window: none for the free ones, then doubling up to the cap. */
  backoffSeconds(attempt: number): number {
    const { freeFailures, initialDelay, maxDelay } = this.options.loginBackoff;
    if (attempt <= freeFailures) return 0;
    const doublings = Math.min(attempt - freeFailures - 1, 30);
    return Math.min(maxDelay, initialDelay * 2 ** doublings);
  }

  private async startBackoff(key: string, attempt: number): Promise<void> {
    const seconds = this.backoffSeconds(attempt);
    if (seconds > 0) await this.backoff.block(key, seconds);
  }

  private budget(name: LimitName): FailoverLimiter {
    const budget = this.budgets.get(name);
    if (!budget) throw new TypeError(`unknown rate limit ${name}`);
    return budget;
  }

  private limiter(name: string, limit: Limit, health: StoreHealth): FailoverLimiter {
    const keyPrefix = `${this.options.keyPrefix}:${name}`;
    const settings = { keyPrefix, points: limit.points, duration: limit.duration };
    const { redis } = this.options;
    // Not ready (reconnecting) fails at once instead of queueing, so the memory stand-in answers without delay.
    const primary = redis
      ? new (rateLimiterRedis())({ ...settings, storeClient: redis, rejectIfRedisNotReady: true })
      : undefined;
    return new FailoverLimiter(primary, new RateLimiterMemory(settings), this.options.redisTimeoutMs, health);
  }
}

function refused(msBeforeNext: number): LimitDecision {
  // A key without an expiry would report -1; never answer "retry now" for a refusal.
  return { allowed: false, retryAfterMs: msBeforeNext > 0 ? msBeforeNext : 1000 };
}
