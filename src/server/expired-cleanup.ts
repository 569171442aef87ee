import { DEFAULT_OUTBOX_OPTIONS } from '../outbox/outbox-options';
import { DEFAULT_ACCOUNT_OPTIONS } from '../services/account-options';
import { Clock, systemClock } from '../services/clock';
import type { Logger } from '../services/logger';
import { isStoreUnavailable } from '../stores/store-unavailable-error';
import type { UserStore } from '../stores/user-store';

/**
 * Removes the sessions and tokens that can no longer be used: past their absolute expiry, or (sessions) idle for
 * `idleTimeoutMs`, the core's `sessionIdleTimeoutMs` (the standalone server and the CLI use its default). Expired rows
 * are already refused on use; removing them only keeps the tables small. Sent and failed outbox messages go
 * `outboxRetentionMs` after their last change (pending ones never). Returns how many rows went.
 */
export function removeExpired(
  store: UserStore,
  now: Date = new Date(),
  idleTimeoutMs: number = DEFAULT_ACCOUNT_OPTIONS.sessionIdleTimeoutMs,
  outboxRetentionMs: number = DEFAULT_OUTBOX_OPTIONS.retentionMs,
): Promise<number> {
  const time = now.getTime();
  return store.deleteExpired(now, new Date(time - idleTimeoutMs), new Date(time - outboxRetentionMs));
}

export interface ExpiredCleanupOptions {
  store: UserStore;
  intervalMs: number;
  idleTimeoutMs?: number;
  /** How long sent and failed outbox messages are kept; default 7 days. */
  outboxRetentionMs?: number;
  logger: Logger;
  clock?: Clock;
}

export interface ExpiredCleanup {
  /** Stops the timer and waits for a run in progress, so the store can be closed after it. */
  stop(): Promise<void>;
}

/**
 * Runs `removeExpired` every `intervalMs`, off the request path: the timer does not keep the process alive, a run
 * still going when the next is due makes that one skip, and a failure (the database restarting) is logged and
 * retried at the next tick. Several instances may each run it; their batches do not wait on each other.
 */
export function startExpiredCleanup(options: ExpiredCleanupOptions): ExpiredCleanup {
  const clock = options.clock ?? systemClock;
  let running: Promise<void> | undefined;

  const run = async () => {
    try {
      const removed = await removeExpired(options.store, clock.now(), options.idleTimeoutMs, options.outboxRetentionMs);
      if (removed > 0) options.logger.info({ event: 'cleanup', removed }, 'removed expired sessions, tokens and old mail');
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
