import type { LimitDecision } from '../services/attempt-limiter';
import type { Limit } from './rate-limit-options';

const ALLOWED: LimitDecision = Object.freeze({ allowed: true, retryAfterMs: 0 });
const MIN_SWEEP_SIZE = 1024;

interface Window {
  spent: number;
  endsAt: number;
}

/**
 * One budget's fixed windows in this process's memory, answered synchronously: rate-limiter-flexible's memory limiter
 * keeps the same windows (one starts with a key's first attempt) but answers with a promise, and the API-key guard
 * counts on every request of a key, where a promise would cost SQLite's synchronous check its point. Ended windows
 * are swept as the map grows, so it holds about the keys seen within one window.
 */
export class MemoryWindows {
  private readonly windows = new Map<string, Window>();
  private sweepAbove = MIN_SWEEP_SIZE;

  constructor(
    private readonly limit: Limit,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one attempt; refused, with the wait, once the window holds more than the budget. */
  consume(key: string): LimitDecision {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now >= window.endsAt) {
      window = { spent: 0, endsAt: now + this.limit.duration * 1000 };
      this.windows.set(key, window);
      if (this.windows.size > this.sweepAbove) this.sweep(now);
    }
    window.spent++;
    return window.spent > this.limit.points ? refused(window.endsAt - now) : ALLOWED;
  }

  /** Refused when the key has spent its whole budget in its current window (nothing counted). */
  peek(key: string): LimitDecision {
    const window = this.windows.get(key);
    if (!window) return ALLOWED;
    const now = this.now();
    return now < window.endsAt && window.spent >= this.limit.points ? refused(window.endsAt - now) : ALLOWED;
  }

  delete(key: string): void {
    this.windows.delete(key);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (now >= window.endsAt) this.windows.delete(key);
    this.sweepAbove = Math.max(MIN_SWEEP_SIZE, this.windows.size * 2);
  }
}

function refused(msBeforeNext: number): LimitDecision {
  return { allowed: false, retryAfterMs: Math.max(1000, msBeforeNext) };
}
