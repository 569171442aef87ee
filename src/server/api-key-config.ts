import { ConfigurationError } from '../errors/configuration-error';
import type { AccountOptions } from '../services/account-options';
import { DEFAULT_API_KEY_PREFIX } from '../services/api-keys/api-key-format';

type Env = Record<string, string | undefined>;

/** What the environment sets of the API keys; the rest keep the core's defaults. */
export type ApiKeyConfig = Pick<
  AccountOptions,
  'apiKeyPrefix' | 'apiKeyMaxLifetimeDays' | 'apiKeyDefaultLifetimeDays' | 'apiKeyMaxPerUser'
>;

/** The prefix's rule (the core's, `checkedApiKeyPrefix`): secret scanners match it, so it is plain and short. */
const PREFIX = /^[a-z0-9_]{3,24}$/;
/** Ten years: a key living longer is a key nobody remembers; the core's own bound is only "at least one day". */
const MAX_DAYS = 3650;
/** Far past any sane count of live keys of one account; only keeps a typo from meaning "unlimited". */
const MAX_KEYS_PER_USER = 100_000;
/** The core's defaults, repeated for the message that compares the two lifetimes. */
const DEFAULT_MAX_LIFETIME_DAYS = 366;

/**
 * API keys from the environment (docs/api-keys.md, docs/reference/configuration.md): `GATEHOUSE_API_KEY_PREFIX`,
 * `GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS`, `GATEHOUSE_API_KEY_DEFAULT_LIFETIME_DAYS`, `GATEHOUSE_API_KEY_MAX_PER_USER`.
 * Each variable set wrong stops the start with a message naming it, so a typo never leaves the defaults running
 * unnoticed; unset or empty leaves the core's default.
 */
export function parseApiKeys(env: Env): ApiKeyConfig {
  const config: ApiKeyConfig = {};
  const prefix = nonEmpty(env.GATEHOUSE_API_KEY_PREFIX);
  if (prefix !== undefined) {
    if (!PREFIX.test(prefix)) {
      throw new ConfigurationError(
        `GATEHOUSE_API_KEY_PREFIX must be 3 to 24 of a-z, 0-9 and _ (default ${DEFAULT_API_KEY_PREFIX}), got "${prefix}"`,
      );
    }
    config.apiKeyPrefix = prefix;
  }
  const maxDays = count('GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS', env.GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS, MAX_DAYS);
  if (maxDays !== undefined) config.apiKeyMaxLifetimeDays = maxDays;
  const days = count('GATEHOUSE_API_KEY_DEFAULT_LIFETIME_DAYS', env.GATEHOUSE_API_KEY_DEFAULT_LIFETIME_DAYS, MAX_DAYS);
  if (days !== undefined) {
    const max = maxDays ?? DEFAULT_MAX_LIFETIME_DAYS;
    if (days > max) {
      throw new ConfigurationError(
        `GATEHOUSE_API_KEY_DEFAULT_LIFETIME_DAYS (${days}) must not exceed GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS ` +
          `(${max}${maxDays === undefined ? ', the default' : ''})`,
      );
    }
    config.apiKeyDefaultLifetimeDays = days;
  } else if (maxDays !== undefined && maxDays < 30) {
    // The default lifetime (30 days) would be longer than the maximum: say so, naming what to set.
    throw new ConfigurationError(
      `GATEHOUSE_API_KEY_MAX_LIFETIME_DAYS (${maxDays}) is below the default lifetime of 30 days; set ` +
        'GATEHOUSE_API_KEY_DEFAULT_LIFETIME_DAYS too',
    );
  }
  const perUser = count('GATEHOUSE_API_KEY_MAX_PER_USER', env.GATEHOUSE_API_KEY_MAX_PER_USER, MAX_KEYS_PER_USER);
  if (perUser !== undefined) config.apiKeyMaxPerUser = perUser;
  return config;
}

function count(name: string, raw: string | undefined, max: number): number | undefined {
  const value = nonEmpty(raw);
  if (value === undefined) return undefined;
  const number = /^\d{1,7}$/.test(value) ? Number(value) : NaN;
  if (!(number >= 1 && number <= max)) {
    throw new ConfigurationError(`${name} must be a whole number from 1 to ${max}, got "${value}"`);
  }
  return number;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === '' ? undefined : trimmed;
}
