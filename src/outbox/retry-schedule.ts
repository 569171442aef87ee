/**
 * When the next attempt of a message comes: exponential backoff with jitter. After attempt `n` failed, the next
 * waits `min(maxDelayMs, baseDelayMs * 2^(n-1))`, spread by ±20% so that messages that failed together (an SMTP
 * outage) do not all come back in the same second. With the defaults: about 5 s, 10 s, 20 s, ... 21 min, then every
 * 30 min, until the message's give-up time.
 */
export class RetrySchedule {
  constructor(
    readonly baseDelayMs: number,
    readonly maxDelayMs: number,
    /** Uniform in [0, 1); injectable so tests can pin the jitter. */
    private readonly random: () => number = Math.random,
  ) {}

  /** Milliseconds to wait after the `attempt`-th attempt (1-based) failed. */
  delayAfter(attempt: number): number {
    const exponent = Math.min(Math.max(attempt, 1) - 1, 30);
    const plain = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** exponent);
    const jittered = plain * (0.8 + 0.4 * this.random());
    return Math.round(Math.min(this.maxDelayMs, jittered));
  }
}
