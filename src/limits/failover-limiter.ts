import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from './rate-limiter-classes';
import type { Logger } from '../services/logger';

/**
 * Whether the shared store (Redis) answers. Logs once when it stops and once when it is back, not on every request
 * of an outage. After a failure the store is left alone for `retryAfterMs`: a stalled Redis would otherwise cost
 * every request the full timeout of each of its budgets (a login checks three).
 */
export class StoreHealth {
  private down = false;
  private retryAt = 0;

  constructor(
    private readonly logger: Logger,
    private readonly retryAfterMs: number,
  ) {}

  /** True while the store failed recently: go straight to memory. */
  get resting(): boolean {
    return this.down && Date.now() < this.retryAt;
  }

  failed(error: unknown): void {
    this.retryAt = Date.now() + this.retryAfterMs;
    if (this.down) return;
    this.down = true;
    const name = error instanceof Error ? error.name : typeof error;
    const code = (error as { code?: unknown })?.code;
    const described = { name, ...(code !== undefined ? { code: String(code) } : {}) };
    this.logger.warn(
      { event: 'rate_limit_store', outcome: 'unavailable', error: described },
      'rate limit store (Redis) unavailable: counting in this process only until it is back',
    );
  }

  ok(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.info({ event: 'rate_limit_store', outcome: 'recovered' }, 'rate limit store (Redis) is back');
  }
}

/**
 * One budget kept in a shared store with an in-memory stand-in: when the store fails or takes longer than
 * `timeoutMs`, this process's memory answers instead, so an outage weakens the limits to per-process ones rather than
 * turning into errors or hung requests. A refusal (RateLimiterRes) is an answer, not a failure, and passes through.
 */
export class FailoverLimiter {
  constructor(
    private readonly primary: RateLimiterAbstract | undefined,
    private readonly fallback: RateLimiterMemory,
    private readonly timeoutMs: number,
    private readonly health: StoreHealth,
  ) {}

  consume(key: string): Promise<RateLimiterRes> {
    return this.run((limiter) => limiter.consume(key));
  }

  get(key: string): Promise<RateLimiterRes | null> {
    return this.run((limiter) => limiter.get(key));
  }

  /** Refuses the key for `seconds` (whole, at least 1: Redis would otherwise keep the block forever). */
  block(key: string, seconds: number): Promise<RateLimiterRes> {
    return this.run((limiter) => limiter.block(key, Math.max(1, Math.ceil(seconds))));
  }

  delete(key: string): Promise<boolean> {
    return this.run((limiter) => limiter.delete(key));
  }

  private async run<T>(operation: (limiter: RateLimiterAbstract) => Promise<T>): Promise<T> {
    if (!this.primary || this.health.resting) return operation(this.fallback);
    try {
      const result = await withTimeout(operation(this.primary), this.timeoutMs);
      this.health.ok();
      return result;
    } catch (error) {
      if (error instanceof RateLimiterRes) {
        this.health.ok();
        throw error;
      }
      this.health.failed(error);
      return operation(this.fallback);
    }
  }
}

class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
  readonly code = 'ETIMEDOUT';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(`no answer within ${ms} ms`)), ms);
  });
  // A late answer (or failure) of the store after the timeout must not surface as an unhandled rejection.
  promise.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
