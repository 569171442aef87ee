import { ConfigurationError } from '../errors/configuration-error';
import {
  Limit,
  LIMIT_NAMES,
  LimitName,
  LoginBackoff,
  RateLimitOptions,
  resolveRateLimitOptions,
} from './rate-limit-options';

const DURATION = /^(\d+)([smh]?)$/;
const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600 };

/**
 * Reads rate limits written as text (the standalone server's `GATEHOUSE_RATE_LIMITS`): `off`, or a comma list of
 * `<name>=<points>/<duration>` and `login.backoff=<free failures>/<first delay>/<longest delay>`, durations in
 * seconds or with `s`, `m` or `h`. Names not listed keep their defaults.
 *
 * @example
 * parseRateLimitSpec('login.ip=60/1m,reset-request.email=3/1h,login.backoff=3/2s/10m');
 */
export function parseRateLimitSpec(text: string): RateLimitOptions {
  const spec = text.trim();
  if (spec.toLowerCase() === 'off') return { enabled: false };
  const limits: Partial<Record<LimitName, Limit>> = {};
  let loginBackoff: LoginBackoff | undefined;
  for (const entry of spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [name, value, extra] = entry.split('=').map((part) => part.trim());
    if (value === undefined || extra !== undefined) throw invalid(`"${entry}" is not <name>=<value>`);
    const parts = value.split('/');
    if (name === 'login.backoff') {
      if (parts.length !== 3) {
        throw invalid(`login.backoff takes <free failures>/<first delay>/<longest delay>, got "${value}"`);
      }
      loginBackoff = {
        freeFailures: count(parts[0], entry),
        initialDelay: seconds(parts[1], entry),
        maxDelay: seconds(parts[2], entry),
      };
    } else if ((LIMIT_NAMES as readonly string[]).includes(name)) {
      if (parts.length !== 2) throw invalid(`${name} takes <points>/<duration>, got "${value}"`);
      limits[name as LimitName] = { points: count(parts[0], entry), duration: seconds(parts[1], entry) };
    } else {
      throw invalid(`unknown limit "${name}"; known: ${LIMIT_NAMES.join(', ')}, login.backoff`);
    }
  }
  const options: RateLimitOptions = { limits, ...(loginBackoff ? { loginBackoff } : {}) };
  try {
    resolveRateLimitOptions(options);
  } catch (error) {
    throw invalid(error instanceof Error ? error.message.replace(/^Gatehouse: RATE_LIMITS\./, '') : String(error));
  }
  return options;
}

function count(text: string, entry: string): number {
  if (!/^\d+$/.test(text.trim())) throw invalid(`"${entry}": "${text}" is not a whole number`);
  return Number(text);
}

function seconds(text: string, entry: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw invalid(`"${entry}": "${text}" is not a duration such as 30, 30s, 15m or 1h`);
  return Number(match[1]) * UNIT_SECONDS[match[2]];
}

function invalid(reason: string): ConfigurationError {
  return new ConfigurationError(reason);
}
