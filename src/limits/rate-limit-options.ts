import { ConfigurationError } from '../errors/configuration-error';
import type { AccountLimit } from '../services/attempt-limiter';

/** Per-IP budgets, one per route, named for the action (so every spelling of a path shares one). */
export const IP_LIMITS = [
  'login.ip',
  'register.ip',
  'verify-email.ip',
  'resend-verification.ip',
  'reset-request.ip',
  'reset-confirm.ip',
  'password-change.ip',
  'reauthenticate.ip',
  'email-change.ip',
  'email-change-confirm.ip',
  // Listing and ending sessions (one budget for the three routes): cheap, but each reads the store.
  'sessions.ip',
  // Answering a login challenge: each code is a guess, held per account too (`login.account`); this stops floods.
  'second-factor.ip',
  // Reading, enrolling, confirming, regenerating and switching off the second factor (one budget for the five).
  'second-factor-manage.ip',
  // Adding, listing, renaming and removing passkeys (one budget for the five routes): the passwordless sign-in, the
  // second factor and re-authentication by passkey spend the budgets of their password and code counterparts.
  'passkeys.ip',
  // Starting a provider sign-in or link, and the provider's callback (one budget for the three routes): each start
  // stores a flow, each callback may call the provider's token endpoint.
  'oidc.ip',
  // Exchanging the one-time code of a provider sign-in's return page for the sign-in's answer.
  'oidc-exchange.ip',
  // Every organization route but the three below (one budget): creating, reading, renaming and deleting
  // organizations, their roster and their invitations' list.
  'organizations.ip',
  // Inviting and resending an invitation (each sends a mail to an address the caller chose); per user too.
  'org-invite.ip',
  // Previewing, accepting and declining an invitation: each names a token, which is random; this stops floods.
  'org-accept.ip',
  // Listing, creating and revoking one's API keys, and the scopes a key may have (one budget for the five routes).
  'api-keys.ip',
  // Revoking a key by holding it, without a session: each request is one keyed hash and one statement.
  'api-key-revoke.ip',
  // Every admin route (one budget): an administrator's pages read a list and a user on each visit.
  'admin.ip',
] as const;
export type IpLimit = (typeof IP_LIMITS)[number];

export const ACCOUNT_LIMITS = [
  'login.account',
  'register.email',
  'resend-verification.email',
  'reset-request.email',
  'email-change.email',
] as const satisfies readonly AccountLimit[];

/**
 * Per-user budgets, counted by the route once the session is known, keyed by the account's id: inviting sends mail
 * to addresses the caller picks, so one account may not spread it over many addresses (`org-invite.ip` holds many
 * accounts behind one address).
 */
export const USER_LIMITS = ['org-invite.user'] as const;
export type UserLimit = (typeof USER_LIMITS)[number];

/**
 * The host-route guards' budgets of API keys (`accountGuards`): each key's requests, keyed by the key's id, and the
 * invalid keys one address presents (bad checksum, unknown, revoked, expired), keyed by the address; once that one is
 * spent, the address's keys are refused before any read. Counted synchronously when they live in this process's
 * memory (`RateLimits.consumeNow`), so that a key's check on SQLite stays within the call.
 */
export const API_KEY_LIMITS = ['api-key.key', 'api-key-invalid.ip'] as const;
export type ApiKeyLimit = (typeof API_KEY_LIMITS)[number];

export type LimitName = IpLimit | AccountLimit | UserLimit | ApiKeyLimit;
export const LIMIT_NAMES: readonly LimitName[] = [...IP_LIMITS, ...ACCOUNT_LIMITS, ...USER_LIMITS, ...API_KEY_LIMITS];

/** At most `points` attempts per key in a fixed window of `duration` seconds (starting at the key's first one). */
export interface Limit {
  points: number;
  /** Seconds, a whole number of at least 1. */
  duration: number;
}

/**
 * Failed password guesses against one account: the first `freeFailures` of a window cost nothing, then each one
 * makes the next wait `initialDelay` seconds, doubling up to `maxDelay`. Counted in `login.account`'s window.
 */
export interface LoginBackoff {
  freeFailures: number;
  initialDelay: number;
  maxDelay: number;
}

/**
 * The subset of an ioredis client the limits use (rate-limiter-flexible defines its Lua command on it, then runs it
 * in a `multi()`); any ioredis `Redis` instance fits. Described here rather than imported from ioredis, because this
 * type is part of the main entry's declarations and ioredis is an optional peer: a host without Redis must be able
 * to compile against them (`skipLibCheck: false`) without installing it.
 */
export interface RedisClient {
  readonly status: string;
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
  multi(): unknown;
}

/**
 * What a host sets as the RATE_LIMITS token (every field optional; unset, the defaults below apply in this process's
 * memory). With `redis`, every instance sharing that Redis shares the budgets, and they survive restarts.
 *
 * @example
 * Container.set(RATE_LIMITS, {
 *   redis: new Redis(process.env.REDIS_URL!),
 *   limits: { 'login.ip': { points: 60, duration: 60 } },
 * });
 */
export interface RateLimitOptions {
  /** `false` turns every limit off (benchmarks, load tests); a warning is logged. Default `true`. */
  enabled?: boolean;
  /** Keep the counters in this Redis (ioredis). Default: this process's memory. */
  redis?: RedisClient;
  /** Prefix of the Redis keys; give each deployment sharing a Redis its own. Default `gatehouse:rl`. */
  keyPrefix?: string;
  /** How long one Redis call may take before the in-memory fallback answers instead. Default 500 ms. */
  redisTimeoutMs?: number;
  /**
   * After Redis failed or timed out, how long memory answers alone before Redis is tried again, so that a stalled
   * Redis costs one timeout, not one per request. Default 5000 ms.
   */
  redisRetryAfterMs?: number;
  /** Overrides of the default budgets, by name (see `DEFAULT_LIMITS`). */
  limits?: Partial<Record<LimitName, Limit>>;
  loginBackoff?: Partial<LoginBackoff>;
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;

/**
 * The defaults. Per IP they leave room for an office behind one NAT address (and for a test suite walking the API
 * from one machine): they stop floods, while guessing is held by the per-account budget, where the backoff holds a
 * guesser to a few dozen tries an hour, and the cap of 50 per (fixed) hour means no 60 minutes ever see more than
 * 100 failures, even with the backoff turned down (ASVS 2.2.1). Mail to one address: 5 an hour per kind.
 */
export const DEFAULT_LIMITS: Readonly<Record<LimitName, Limit>> = {
  'login.ip': { points: 100, duration: MINUTE },
  'register.ip': { points: 60, duration: HOUR },
  'verify-email.ip': { points: 120, duration: HOUR },
  'resend-verification.ip': { points: 60, duration: HOUR },
  'reset-request.ip': { points: 60, duration: HOUR },
  'reset-confirm.ip': { points: 60, duration: HOUR },
  'password-change.ip': { points: 60, duration: HOUR },
  'reauthenticate.ip': { points: 60, duration: HOUR },
  'email-change.ip': { points: 60, duration: HOUR },
  'email-change-confirm.ip': { points: 60, duration: HOUR },
  // A security page lists the sessions on every visit and after each End: room for that, not for a scraper.
  'sessions.ip': { points: 120, duration: MINUTE },
  // As `login.ip`: every password login of an account with a factor is followed by one answer, or a few.
  'second-factor.ip': { points: 100, duration: MINUTE },
  // A security page reads the status on every visit; enrolment and changes are a few requests each.
  'second-factor-manage.ip': { points: 60, duration: HOUR },
  // As `sessions.ip`: a security page lists the passkeys on every visit; adding one is two requests.
  'passkeys.ip': { points: 120, duration: MINUTE },
  // A sign-in is a start and a callback; room for an office behind one address signing in at nine, not for a flood
  // of stored flows or token requests made in our name.
  'oidc.ip': { points: 120, duration: MINUTE },
  // As `login.ip`: one exchange per provider sign-in (the code is random and single use: this stops floods).
  'oidc-exchange.ip': { points: 100, duration: MINUTE },
  // A members page lists the organization, its roster and its invitations on every visit, for several people of
  // one office: room for that, not for a scraper.
  'organizations.ip': { points: 600, duration: MINUTE },
  // Each invitation is a mail: room for several managers of one office filling an organization up to its default
  // pending-invitation limit (100), not for a mail cannon.
  'org-invite.ip': { points: 300, duration: HOUR },
  // Tokens are random and single use: this stops floods, not guesses. The invitation page previews on every visit.
  'org-accept.ip': { points: 300, duration: HOUR },
  // As `passkeys.ip`: a security page lists the keys and the scopes on every visit; a creation is one request.
  'api-keys.ip': { points: 120, duration: MINUTE },
  // Keys are random (190 bits), so this stops floods, not guesses; room for someone revoking a batch of leaked keys.
  'api-key-revoke.ip': { points: 300, duration: HOUR },
  // Room for an administrator paging through thousands of accounts and their events; the core checks each request.
  'admin.ip': { points: 600, duration: MINUTE },
  'login.account': { points: 50, duration: HOUR },
  'register.email': { points: 5, duration: HOUR },
  'resend-verification.email': { points: 5, duration: HOUR },
  'reset-request.email': { points: 5, duration: HOUR },
  'email-change.email': { points: 5, duration: HOUR },
  // One account's invitations and resends: past the default pending-invitation limit (100), so that the limit, not
  // the budget, is what a manager inviting a whole team meets.
  'org-invite.user': { points: 200, duration: HOUR },
  // A machine client's loop: ten requests a second per key, sustained, before 429 (ASVS V2.4.1); several keys of one
  // owner each have their own.
  'api-key.key': { points: 600, duration: MINUTE },
  // Keys are 190 random bits, so this stops floods of forged or stale keys (each a read), not guesses; room for a
  // client retrying with a revoked key and for tests walking the refusals from one address.
  'api-key-invalid.ip': { points: 60, duration: MINUTE },
};

export const DEFAULT_LOGIN_BACKOFF: Readonly<LoginBackoff> = {
  freeFailures: 10,
  initialDelay: 1,
  maxDelay: 5 * MINUTE,
};

export const DEFAULT_KEY_PREFIX = 'gatehouse:rl';
export const DEFAULT_REDIS_TIMEOUT_MS = 500;
export const DEFAULT_REDIS_RETRY_AFTER_MS = 5_000;

export interface ResolvedRateLimitOptions {
  enabled: boolean;
  redis?: RedisClient;
  keyPrefix: string;
  redisTimeoutMs: number;
  redisRetryAfterMs: number;
  limits: Record<LimitName, Limit>;
  loginBackoff: LoginBackoff;
}

/** Fills the defaults and refuses unusable values with a message naming the field. */
export function resolveRateLimitOptions(options: RateLimitOptions = {}): ResolvedRateLimitOptions {
  const limits = { ...DEFAULT_LIMITS } as Record<LimitName, Limit>;
  for (const [name, limit] of Object.entries(options.limits ?? {})) {
    if (!(LIMIT_NAMES as readonly string[]).includes(name)) {
      throw new ConfigurationError(
        `Gatehouse: RATE_LIMITS.limits has no limit "${name}"; known: ${LIMIT_NAMES.join(', ')}`,
      );
    }
    if (limit === undefined) continue;
    if (!isWhole(limit?.points, 1) || !isWhole(limit?.duration, 1)) {
      throw new ConfigurationError(
        `Gatehouse: RATE_LIMITS.limits["${name}"] needs whole numbers points >= 1 and duration >= 1 (seconds)`,
      );
    }
    limits[name as LimitName] = { points: limit.points, duration: limit.duration };
  }
  const loginBackoff = { ...DEFAULT_LOGIN_BACKOFF, ...options.loginBackoff };
  const { freeFailures, initialDelay, maxDelay } = loginBackoff;
  if (!isWhole(freeFailures, 0) || !isWhole(initialDelay, 1) || !isWhole(maxDelay, initialDelay)) {
    throw new ConfigurationError(
      'Gatehouse: RATE_LIMITS.loginBackoff needs whole numbers freeFailures >= 0, initialDelay >= 1 and ' +
        'maxDelay >= initialDelay (seconds)',
    );
  }
  const redisTimeoutMs = options.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  if (!isWhole(redisTimeoutMs, 1)) {
    throw new ConfigurationError('Gatehouse: RATE_LIMITS.redisTimeoutMs must be a whole number of milliseconds >= 1');
  }
  const redisRetryAfterMs = options.redisRetryAfterMs ?? DEFAULT_REDIS_RETRY_AFTER_MS;
  if (!isWhole(redisRetryAfterMs, 0)) {
    throw new ConfigurationError(
      'Gatehouse: RATE_LIMITS.redisRetryAfterMs must be a whole number of milliseconds >= 0',
    );
  }
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  if (typeof keyPrefix !== 'string' || keyPrefix === '') {
    throw new ConfigurationError('Gatehouse: RATE_LIMITS.keyPrefix must be a non-empty string');
  }
  return {
    enabled: options.enabled !== false,
    redis: options.redis,
    keyPrefix,
    redisTimeoutMs,
    redisRetryAfterMs,
    limits,
    loginBackoff,
  };
}

function isWhole(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min;
}
