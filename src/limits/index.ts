/** Rate limits: the budgets and their defaults, the limiter (memory or Redis), and a Redis client set up for it. */
export {
  ACCOUNT_LIMITS,
  API_KEY_LIMITS,
  DEFAULT_LIMITS,
  DEFAULT_LOGIN_BACKOFF,
  IP_LIMITS,
  LIMIT_NAMES,
  USER_LIMITS,
  type ApiKeyLimit,
  type IpLimit,
  type Limit,
  type LimitName,
  type LoginBackoff,
  type RateLimitOptions,
  type RedisClient,
  type UserLimit,
} from './rate-limit-options';
export { RateLimits } from './rate-limits';
export { parseRateLimitSpec } from './rate-limit-spec';
export type { AccountLimit, AttemptLimiter, LimitDecision } from '../services/attempt-limiter';
