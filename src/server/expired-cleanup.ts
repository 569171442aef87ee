import { DEFAULT_OUTBOX_OPTIONS } from '../services/outbox-options';
import { DEFAULT_ACCOUNT_OPTIONS } from '../services/account-options';
import { Clock, systemClock } from '../services/clock';
import { expiryCutoffs, type ExpiryRules } from '../services/expiry-rules';
import type { Logger } from '../services/logger';
import { isStoreUnavailable } from '../errors/store-unavailable-error';
import type { UserStore } from '../services/user-store';

/** The rules of the core's defaults, for a process that has no `AccountService` of its own (the CLI). */
export const DEFAULT_EXPIRY_RULES: ExpiryRules = {
  sessionIdleTimeoutMs: DEFAULT_ACCOUNT_OPTIONS.sessionIdleTimeoutMs,
  unverifiedRegistrationTtlMs: DEFAULT_ACCOUNT_OPTIONS.unverifiedRegistrationTtlMs,
  outboxRetentionMs: DEFAULT_OUTBOX_OPTIONS.retentionMs,
};

/**
 * Removes what can no longer be used under `rules` (see `ExpiryRules`; `AccountService.removeExpired` does the same
 * with the options in force): sessions and tokens past their expiry or idle, registrations never confirmed in time,
 * old sent and failed mail. Returns how many rows went.
 */
export function removeExpired(store: UserStore, now: Date = new Date(), rules: Partial<ExpiryRules> = {}): Promise<number> {
  return store.deleteExpired(expiryCutoffs(now, { ...DEFAULT_EXPIRY_RULES, ...rules }));
}

export interface ExpiredCleanupOptions {
  store: UserStore;
  intervalMs: number;
  /** Default: `DEFAULT_EXPIRY_RULES`, field by field. */
  rules?: Partial<ExpiryRules>;
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
      const removed = await removeExpired(options.store, clock.now(), options.rules);
      if (removed > 0) options.logger.info({ event: 'cleanup', removed }, 'removed expired sessions, tokens, registrations and old mail');
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
