import { Clock, systemClock } from '../services/clock';
import type { Logger } from '../services/logger';
import { isStoreUnavailable } from '../errors/store-unavailable-error';

export interface ExpiredCleanupOptions {
  /** What removes the expired rows: `AccountService.removeExpired`, which applies the options in force. */
  accounts: { removeExpired(now?: Date): Promise<number> };
  intervalMs: number;
  logger: Logger;
  clock?: Clock;
}

export interface ExpiredCleanup {
  /** Stops the timer and waits for a run in progress, so the store can be closed after it. */
  stop(): Promise<void>;
}

/**
 * Runs `accounts.removeExpired()` every `intervalMs`, off the request path: the timer does not keep the process alive, a run
 * still going when the next is due makes that one skip, and a failure (the database restarting) is logged and
 * retried at the next tick. Several instances may each run it; their batches do not wait on each other.
 */
export function startExpiredCleanup(options: ExpiredCleanupOptions): ExpiredCleanup {
  const clock = options.clock ?? systemClock;
  let running: Promise<void> | undefined;

  const run = async () => {
    try {
      const removed = await options.accounts.removeExpired(clock.now());
      if (removed > 0)
        options.logger.info(
          { event: 'cleanup', removed },
          'removed expired sessions, tokens, registrations and old mail',
        );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const log = isStoreUnavailable(error) ? options.logger.warn : options.logger.error;
      log.call(options.logger, { event: 'cleanup', outcome: 'failed', reason }, 'expired cleanup failed');
    }
  };

  const timer = setInterval(() => {
    running ??= run().finally(() => (running = undefined));
  }, options.intervalMs);
  timer.unref();

  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
