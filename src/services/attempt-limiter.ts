/**
 * The budgets the account core counts itself, because only it knows the account or address a request is about:
 * - `login.account`: password guesses against one account (login, and the current-password check of a change or a
 *   deletion), with a progressive backoff and a hard cap; a correct password clears it, and so does a reset.
 * - `register.email`, `resend-verification.email`, `reset-request.email`: mail sent to one address. Over budget,
 *   the mail is silently skipped, so the answer still says nothing about the address.
 */
export type AccountLimit =
  'login.account' | 'register.email' | 'resend-verification.email' | 'reset-request.email' | 'email-change.email';

export interface LimitDecision {
  allowed: boolean;
  /** When refused: milliseconds before the key may try again. 0 when allowed. */
  retryAfterMs: number;
}

/**
 * The core's port to a rate limiter: counts attempts per budget and key, and answers whether one more is allowed.
 * The budgets' sizes, the backoff and the storage (this process's memory, or Redis shared by every instance) are the
 * implementation's business (`RateLimits` in `src/limits`). Keys are opaque to it: the core passes keyed hashes,
 * never an address or a username.
 *
 * Implementations never throw: when their storage fails they decide for themselves (and log) rather than turn an
 * outage into errors for users.
 */
export interface AttemptLimiter {
  /** Counts one attempt; refused when the key is over its budget (or backing off). */
  consume(limit: AccountLimit, key: string): Promise<LimitDecision>;
  /** Forgets the key's attempts, e.g. after the right password. */
  reset(limit: AccountLimit, key: string): Promise<void>;
}

/** Counts nothing and allows everything: the core's default when built without a limiter (scripts, the CLI). */
export const noAttemptLimits: AttemptLimiter = {
  consume: async () => ({ allowed: true, retryAfterMs: 0 }),
  reset: async () => {},
};
