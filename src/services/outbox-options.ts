import { ConfigurationError } from '../errors/configuration-error';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Who a message goes to, as the locale hook sees it. */
export interface Recipient {
  userId: string;
  username: string;
  email: string;
}

/**
 * The language of a message for its recipient: a locale tag such as `fr` or `pt-BR`, or nothing for the default
 * (English, or the host's default templates). Called at delivery; a hook that throws counts as no answer.
 */
export type LocaleResolver = (recipient: Recipient) => string | null | undefined | Promise<string | null | undefined>;

/** How queued email is delivered. Every field has a default; see docs/guides/email-delivery.md. */
export interface OutboxOptions {
  /**
   * Run the delivery worker inside the process that holds the `AccountService` (default true): it is nudged right
   * after each change that queues a message. Set false when `gatehouse worker` (or your own `OutboxWorker`) delivers.
   */
  worker: boolean;
  /** How often a started worker looks for due messages (left by another process, retries). Default 2 s. */
  pollIntervalMs: number;
  /** First retry delay; it doubles per attempt. Default 5 s. */
  retryBaseMs: number;
  /** Longest retry delay. Default 30 min. */
  retryMaxMs: number;
  /** Give up this long after the message was queued, or when its token expires if that is sooner. Default 24 h. */
  giveUpAfterMs: number;
  /**
   * How long a claim holds a message: another worker may take it over only after this, so it must be well above the
   * longest send (the SMTP sender times out within 20 s). Default 60 s.
   */
  leaseMs: number;
  /** Messages claimed (and sent concurrently) at once by one worker. Default 5. */
  batchSize: number;
  /**
   * How long a nudge waits before the worker looks (0: at once). Messages queued meanwhile then go in the same claim:
   * under a stream of registrations each claim is one statement fewer per message (docs/performance.md). Default
   * 50 ms, well inside what a person waiting for a mail notices.
   */
  nudgeDelayMs: number;
  /** Sent and failed messages are removed this long after their last change (by the expired cleanup). Default 7 days. */
  retentionMs: number;
  /** The recipient's language; unset: every message in the default language. */
  locale?: LocaleResolver;
}

export const DEFAULT_OUTBOX_OPTIONS: Readonly<Omit<OutboxOptions, 'locale'>> = {
  worker: true,
  pollIntervalMs: 2 * SECOND,
  retryBaseMs: 5 * SECOND,
  retryMaxMs: 30 * MINUTE,
  giveUpAfterMs: DAY,
  leaseMs: MINUTE,
  batchSize: 5,
  nudgeDelayMs: 50,
  retentionMs: 7 * DAY,
};

/** Node's timers hold at most 2^31-1 ms (about 24.8 days); longer delays would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** A nudge is about mail someone waits for: a longer wait belongs to `pollIntervalMs`. */
const MAX_NUDGE_DELAY_MS = 10 * SECOND;

/** Fills the defaults and refuses unusable values once, at start, naming the option. */
export function resolveOutboxOptions(options: Partial<OutboxOptions> = {}): OutboxOptions {
  const resolved: OutboxOptions = { ...DEFAULT_OUTBOX_OPTIONS, ...withoutUndefined(options) };
  if (typeof resolved.worker !== 'boolean') throw invalid('worker must be true or false');
  for (const key of ['pollIntervalMs', 'retryBaseMs', 'retryMaxMs', 'leaseMs'] as const) {
    const value = resolved[key];
    if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
      throw invalid(`${key} must be a positive number of milliseconds, at most ${MAX_TIMER_MS}`);
    }
  }
  for (const key of ['giveUpAfterMs', 'retentionMs'] as const) {
    if (!Number.isFinite(resolved[key]) || resolved[key] <= 0) {
      throw invalid(`${key} must be a positive number of milliseconds`);
    }
  }
  if (resolved.retryMaxMs < resolved.retryBaseMs) throw invalid('retryMaxMs must be at least retryBaseMs');
  if (!Number.isInteger(resolved.batchSize) || resolved.batchSize < 1 || resolved.batchSize > 100) {
    throw invalid('batchSize must be a whole number from 1 to 100');
  }
  if (
    !Number.isFinite(resolved.nudgeDelayMs) ||
    resolved.nudgeDelayMs < 0 ||
    resolved.nudgeDelayMs > MAX_NUDGE_DELAY_MS
  ) {
    throw invalid(`nudgeDelayMs must be a number of milliseconds from 0 to ${MAX_NUDGE_DELAY_MS}`);
  }
  if (resolved.locale !== undefined && typeof resolved.locale !== 'function') {
    throw invalid('locale must be a function (recipient) => locale tag');
  }
  return resolved;
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function invalid(reason: string): ConfigurationError {
  return new ConfigurationError(`Gatehouse: ACCOUNT_OPTIONS.outbox.${reason}`);
}
