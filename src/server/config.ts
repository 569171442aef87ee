import { ConfigurationError } from '../errors/configuration-error';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { compileTrustedProxies } from '../limits/trusted-proxies';
import type { RateLimitOptions } from '../limits/rate-limit-options';
import { parseRateLimitSpec } from '../limits/rate-limit-spec';
import { DEFAULT_OUTBOX_OPTIONS, type OutboxOptions } from '../services/outbox-options';
import { DEFAULT_ACCOUNT_OPTIONS, MIN_SECRET_KEY_BYTES, type AccountOptions } from '../services/account-options';
import type { PasskeyOptions } from '../services/passkeys/relying-party';
import type { OidcOptions } from '../services/oidc/oidc-options';
import { parseApiKeys, type ApiKeyConfig } from './api-key-config';
import { parseOidc } from './oidc-config';
import { parseOrganizations } from './organization-config';
import type { OrganizationOptions } from '../services/organizations/organization-options';
import { parsePasskeys } from './passkey-config';

export type DatabaseConfig =
  | { kind: 'sqlite'; filename: string }
  /** `preparedStatements`: `GATEHOUSE_PG_PREPARED_STATEMENTS` (see `PostgresUserStoreOptions.preparedStatements`). */
  | { kind: 'postgres'; connectionString: string; preparedStatements: boolean };

export interface ServerConfig {
  port: number;
  host: string;
  prefix: string;
  secretKey: string;
  /** True when the key was generated for development rather than configured. */
  secretKeyGenerated: boolean;
  database: DatabaseConfig;
  /** `GATEHOUSE_CLEANUP_INTERVAL` in ms: how often expired sessions and tokens are removed; 0: never (use cron). */
  cleanupIntervalMs: number;
  /** `GATEHOUSE_UNVERIFIED_TTL` in ms: how long a registration may stay unconfirmed before it expires. */
  unverifiedRegistrationTtlMs: number;
  /**
   * `GATEHOUSE_REAUTH_WINDOW` in ms: how long a password proved at login or by re-authentication lets a session end
   * other sessions and change the email address.
   */
  reauthenticationWindowMs: number;
  /** `GATEHOUSE_EMAIL_CHANGE_TTL` in ms: how long the link confirming a new email address works. */
  emailChangeTokenTtlMs: number;
  /** `GATEHOUSE_AUDIT_RETENTION` in ms: how long audit events are kept before the clean-up removes them. */
  auditRetentionMs: number;
  smtpUrl?: string;
  emailFrom: string;
  publicUrl: string;
  production: boolean;
  /** Keep the rate limits in this Redis, shared by every instance; unset: in the process's memory. */
  redisUrl?: string;
  /** Prefix of the rate limits' Redis keys (`GATEHOUSE_REDIS_KEY_PREFIX`); unset: `gatehouse:rl`. */
  redisKeyPrefix?: string;
  /** Reverse proxies whose `X-Forwarded-For` is believed (proxy-addr syntax); empty: none. */
  trustedProxies: string[];
  /** `GATEHOUSE_RATE_LIMITS`, read: overrides of the defaults, or `{ enabled: false }`. */
  rateLimits: RateLimitOptions;
  /** `GATEHOUSE_PAGES`: serve the hosted pages under the prefix. */
  pages: boolean;
  /** `GATEHOUSE_API_DOCS`: serve `{prefix}/openapi.json` and the API reference page. */
  apiDocs: boolean;
  /**
   * `GATEHOUSE_VERIFY_URL` / `GATEHOUSE_RESET_URL` / `GATEHOUSE_EMAIL_CHANGE_URL`: the email links lead to the host's
   * own front end instead.
   */
  verifyUrl?: string;
  resetUrl?: string;
  emailChangeUrl?: string;
  /** `GATEHOUSE_OUTBOX_*`: how queued email is delivered (see docs/guides/email-delivery.md). */
  outbox: OutboxConfig;
  /** `GATEHOUSE_HASHING_NICE`: how far below the event loop libuv's pool (the hashes) is scheduled; 0: not at all. */
  hashingNice: number;
  /** `GATEHOUSE_WEBAUTHN_*` and the public URL: the passkeys' relying party; unset: passkeys are off. */
  passkeys?: PasskeyOptions;
  /** `GATEHOUSE_OIDC_*` and the public URL: the OpenID providers; unset: provider sign-in is off. */
  oidc?: OidcOptions;
  /** `GATEHOUSE_ORGANIZATIONS` and `GATEHOUSE_ORG_*`: organizations, or false when off. */
  organizations: OrganizationOptions | false;
  /** `GATEHOUSE_API_KEY_*`: the keys' prefix, lifetimes and count per account; unset ones keep the core's defaults. */
  apiKeys: ApiKeyConfig;
}

/** The outbox options the environment sets; the rest keep their defaults. */
export type OutboxConfig = Pick<
  OutboxOptions,
  'worker' | 'pollIntervalMs' | 'retryBaseMs' | 'retryMaxMs' | 'giveUpAfterMs' | 'leaseMs' | 'retentionMs'
>;

type Env = Record<string, string | undefined>;

/** The core's options the environment sets (the rest keep their defaults): for the server and the CLI alike. */
export function accountOptionsOf(config: ServerConfig): AccountOptions {
  return {
    secretKey: config.secretKey,
    outbox: config.outbox,
    unverifiedRegistrationTtlMs: config.unverifiedRegistrationTtlMs,
    reauthenticationWindowMs: config.reauthenticationWindowMs,
    emailChangeTokenTtlMs: config.emailChangeTokenTtlMs,
    auditRetentionMs: config.auditRetentionMs,
    passkeys: config.passkeys,
    oidc: config.oidc,
    organizations: config.organizations,
    ...config.apiKeys,
  };
}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/gatehouse.db';
/** Where a development secret key is kept between restarts, so sessions survive them. */
export const GENERATED_SECRET_FILE = './data/secret.key';

/**
 * Reads the environment once, validates every variable, and returns the configuration or throws a ConfigurationError
 * naming the variable and what to do. This module is the only reader of `process.env` (through `main` and the CLI).
 */
export interface LoadConfigOptions {
  cwd?: string;
  warn?: (message: string) => void;
  /**
   * For tools that never hash a token (the admin CLI): without a configured key, use a throwaway one instead of
   * generating and keeping a development key. A configured key is still validated.
   */
  ephemeralSecret?: boolean;
}

export function loadConfig(env: Env, options: LoadConfigOptions = {}): ServerConfig {
  const cwd = options.cwd ?? process.cwd();
  const production = env.NODE_ENV === 'production';
  const port = parsePort(env.PORT);
  const host = nonEmpty(env.HOST) ?? '127.0.0.1';
  const checked = {
    port,
    host,
    prefix: parsePrefix(env.GATEHOUSE_PREFIX),
    database: parseDatabaseUrl(
      nonEmpty(env.GATEHOUSE_DATABASE_URL) ?? DEFAULT_DATABASE_URL,
      cwd,
      parseSwitch('GATEHOUSE_PG_PREPARED_STATEMENTS', env.GATEHOUSE_PG_PREPARED_STATEMENTS, true),
    ),
    cleanupIntervalMs: parseCleanupInterval(env.GATEHOUSE_CLEANUP_INTERVAL),
    unverifiedRegistrationTtlMs: parseDuration(
      'GATEHOUSE_UNVERIFIED_TTL',
      env.GATEHOUSE_UNVERIFIED_TTL,
      DEFAULT_ACCOUNT_OPTIONS.unverifiedRegistrationTtlMs,
      SECOND,
      365 * DAY,
    ),
    // A day at most: the window is how long a stolen, unattended session can act as if its password were just typed.
    reauthenticationWindowMs: parseDuration(
      'GATEHOUSE_REAUTH_WINDOW',
      env.GATEHOUSE_REAUTH_WINDOW,
      DEFAULT_ACCOUNT_OPTIONS.reauthenticationWindowMs,
      SECOND,
      DAY,
    ),
    emailChangeTokenTtlMs: parseDuration(
      'GATEHOUSE_EMAIL_CHANGE_TTL',
      env.GATEHOUSE_EMAIL_CHANGE_TTL,
      DEFAULT_ACCOUNT_OPTIONS.emailChangeTokenTtlMs,
      MINUTE,
      7 * DAY,
    ),
    // At least a day, so a typo (`30` meaning days, read as seconds) cannot empty the trail at the next clean-up;
    // at most ten years, far past any retention rule.
    auditRetentionMs: parseDuration(
      'GATEHOUSE_AUDIT_RETENTION',
      env.GATEHOUSE_AUDIT_RETENTION,
      DEFAULT_ACCOUNT_OPTIONS.auditRetentionMs,
      DAY,
      3650 * DAY,
    ),
    smtpUrl: parseSmtpUrl(env.GATEHOUSE_SMTP_URL),
    emailFrom: parseEmailFrom(env.GATEHOUSE_EMAIL_FROM),
    publicUrl: parsePublicUrl(env.GATEHOUSE_PUBLIC_URL, host, port),
    production,
    redisUrl: parseRedisUrl(env.GATEHOUSE_REDIS_URL),
    redisKeyPrefix: parseRedisKeyPrefix(env.GATEHOUSE_REDIS_KEY_PREFIX),
    trustedProxies: parseTrustedProxies(env.GATEHOUSE_TRUSTED_PROXIES),
    rateLimits: parseRateLimits(env.GATEHOUSE_RATE_LIMITS),
    pages: parseSwitch('GATEHOUSE_PAGES', env.GATEHOUSE_PAGES, true),
    apiDocs: parseSwitch('GATEHOUSE_API_DOCS', env.GATEHOUSE_API_DOCS, true),
    verifyUrl: parseLinkUrl('GATEHOUSE_VERIFY_URL', env.GATEHOUSE_VERIFY_URL),
    resetUrl: parseLinkUrl('GATEHOUSE_RESET_URL', env.GATEHOUSE_RESET_URL),
    emailChangeUrl: parseLinkUrl('GATEHOUSE_EMAIL_CHANGE_URL', env.GATEHOUSE_EMAIL_CHANGE_URL),
    outbox: parseOutbox(env),
    hashingNice: parseHashingNice(env.GATEHOUSE_HASHING_NICE),
  };
  const passkeys = parsePasskeys(
    env,
    checked.publicUrl,
    nonEmpty(env.GATEHOUSE_PUBLIC_URL) !== undefined,
    options.warn,
  );
  const oidc = parseOidc(env, {
    publicUrl: checked.publicUrl,
    prefix: checked.prefix,
    // As the other durations; the core holds it to 1 to 30 minutes.
    flowTtlMs:
      nonEmpty(env.GATEHOUSE_OIDC_FLOW_TTL) === undefined
        ? undefined
        : parseDuration('GATEHOUSE_OIDC_FLOW_TTL', env.GATEHOUSE_OIDC_FLOW_TTL, 0, MINUTE, 30 * MINUTE),
  });
  const organizations = parseOrganizations(env, cwd, {
    enabled: parseSwitch('GATEHOUSE_ORGANIZATIONS', env.GATEHOUSE_ORGANIZATIONS, true),
    // As the other durations; the core holds it to 1 minute to 30 days.
    invitationTtlMs:
      nonEmpty(env.GATEHOUSE_ORG_INVITATION_TTL) === undefined
        ? undefined
        : parseDuration('GATEHOUSE_ORG_INVITATION_TTL', env.GATEHOUSE_ORG_INVITATION_TTL, 0, MINUTE, 30 * DAY),
  });
  const apiKeys = parseApiKeys(env);
  // Last, so that a configuration refused for another reason writes no key file and prints no warning.
  const { secretKey, generated } =
    options.ephemeralSecret && env.GATEHOUSE_SECRET_KEY === undefined
      ? { secretKey: randomBytes(48).toString('base64url'), generated: true }
      : loadSecretKey(env.GATEHOUSE_SECRET_KEY, production, cwd, options.warn);
  return { ...checked, passkeys, oidc, organizations, apiKeys, secretKey, secretKeyGenerated: generated };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function parsePort(raw: string | undefined): number {
  const value = nonEmpty(raw);
  if (value === undefined) return 8000;
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    throw new ConfigurationError(`PORT must be a number from 0 to 65535, got "${value}"`);
  }
  return Number(value);
}

function parsePrefix(raw: string | undefined): string {
  if (raw === undefined) return '/auth';
  const value = raw.trim().replace(/\/+$/, '');
  if (value !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(value)) {
    throw new ConfigurationError(
      `GATEHOUSE_PREFIX must be empty or a path like /auth (letters, digits, "._~-" segments), got "${raw}"`,
    );
  }
  return value;
}

function loadSecretKey(
  raw: string | undefined,
  production: boolean,
  cwd: string,
  warn: (message: string) => void = () => {},
): { secretKey: string; generated: boolean } {
  if (raw !== undefined && raw.trim() === '') {
    // Most often `GATEHOUSE_SECRET_KEY=$SOMETHING_UNSET`: a mistake to report, not a request for a generated key.
    throw new ConfigurationError(
      'GATEHOUSE_SECRET_KEY is set but empty; set it to at least 32 random bytes or unset it',
    );
  }
  if (raw !== undefined) {
    const bytes = Buffer.byteLength(raw);
    if (bytes < MIN_SECRET_KEY_BYTES) {
      throw new ConfigurationError(
        `GATEHOUSE_SECRET_KEY is ${bytes} bytes; it must be at least ${MIN_SECRET_KEY_BYTES} random bytes ` +
          '(generate one with: openssl rand -base64 48)',
      );
    }
    return { secretKey: raw, generated: false };
  }
  if (production) {
    throw new ConfigurationError(
      'GATEHOUSE_SECRET_KEY is required when NODE_ENV=production (generate one with: openssl rand -base64 48)',
    );
  }
  const file = resolve(cwd, GENERATED_SECRET_FILE);
  const kept = readKeptKey(file);
  if (kept) return { secretKey: kept, generated: true };
  const generated = randomBytes(48).toString('base64url');
  mkdirSync(dirname(file), { recursive: true });
  // Written whole under another name, then linked into place, which fails if the file exists: of several
  // instances starting at once in one folder exactly one key wins, and the others adopt it instead of each
  // keeping its own (their sessions would be invalid on each other).
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, generated + '\n', { mode: 0o600 });
    chmodSync(temp, 0o600);
    try {
      linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const winner = readKeptKey(file);
      if (winner) return { secretKey: winner, generated: true };
      renameSync(temp, file); // an unusable leftover (empty, truncated): replace it
    }
  } finally {
    rmSync(temp, { force: true });
  }
  warn(
    `GATEHOUSE_SECRET_KEY is not set: generated a development key in ${GENERATED_SECRET_FILE}; set it in production`,
  );
  return { secretKey: generated, generated: true };
}

/** The development key kept by an earlier start, or null when there is none or it is too short to be one. */
function readKeptKey(file: string): string | null {
  if (!existsSync(file)) return null;
  const kept = readFileSync(file, 'utf8').trim();
  return Buffer.byteLength(kept) >= MIN_SECRET_KEY_BYTES ? kept : null;
}

function parseDatabaseUrl(url: string, cwd: string, preparedStatements: boolean): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path)
      throw new ConfigurationError('GATEHOUSE_DATABASE_URL "sqlite:" needs a file, e.g. sqlite:./data/gatehouse.db');
    return { kind: 'sqlite', filename: path === ':memory:' ? path : resolve(cwd, path) };
  }
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', connectionString: url, preparedStatements };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  throw new ConfigurationError(
    `GATEHOUSE_DATABASE_URL has ${scheme ? `an unknown scheme "${scheme}:"` : 'no scheme'}; ` +
      'use sqlite:<file> (e.g. sqlite:./data/gatehouse.db) or postgres://user@host/db',
  );
}

/** Seconds, as a whole number; default one hour. At most a week: longer would overflow Node's timers. */
function parseCleanupInterval(raw: string | undefined): number {
  const value = nonEmpty(raw);
  if (value === undefined) return 3_600_000;
  if (!/^\d+$/.test(value) || Number(value) > 604_800) {
    throw new ConfigurationError(
      `GATEHOUSE_CLEANUP_INTERVAL must be whole seconds from 0 (off) to 604800, got "${value}"`,
    );
  }
  return Number(value) * 1000;
}

/** Default `GATEHOUSE_HASHING_NICE`: the hashes get about a tenth of a core the event loop wants (CFS weights 110:1024). */
const DEFAULT_HASHING_NICE = 10;

function parseHashingNice(raw: string | undefined): number {
  const value = nonEmpty(raw);
  if (value === undefined) return DEFAULT_HASHING_NICE;
  if (!/^\d+$/.test(value) || Number(value) > 19) {
    throw new ConfigurationError(`GATEHOUSE_HASHING_NICE must be a whole number from 0 (off) to 19, got "${value}"`);
  }
  return Number(value);
}

function parseSmtpUrl(raw: string | undefined): string | undefined {
  return parseServiceUrl(raw, 'GATEHOUSE_SMTP_URL', 'smtp', 'smtp://user:pass@host:port');
}

function parseRedisUrl(raw: string | undefined): string | undefined {
  return parseServiceUrl(raw, 'GATEHOUSE_REDIS_URL', 'redis', 'redis://[:password@]host:6379[/db]');
}

/** A URL of `scheme://` or its TLS form `schemes://`; the message never repeats the value (it may hold a password). */
function parseServiceUrl(
  raw: string | undefined,
  variable: string,
  scheme: string,
  example: string,
): string | undefined {
  const value = nonEmpty(raw);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(`${variable} is not a URL; use ${example} or ${scheme}s://...`);
  }
  if (url.protocol !== `${scheme}:` && url.protocol !== `${scheme}s:`) {
    throw new ConfigurationError(`${variable} must start with ${scheme}:// or ${scheme}s://, got "${url.protocol}//"`);
  }
  return value;
}

function parseEmailFrom(raw: string | undefined): string {
  const value = nonEmpty(raw) ?? 'Gatehouse <no-reply@localhost>';
  if (/[\r\n]/.test(value) || !value.includes('@')) {
    throw new ConfigurationError('GATEHOUSE_EMAIL_FROM must be one address such as "Gatehouse <no-reply@example.com>"');
  }
  return value;
}

function parsePublicUrl(raw: string | undefined, host: string, port: number): string {
  const configured = nonEmpty(raw);
  const value = configured ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(
      configured
        ? 'GATEHOUSE_PUBLIC_URL must be an absolute URL such as https://accounts.example.com'
        : `HOST "${host}" is not a valid host name or IP address`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError('GATEHOUSE_PUBLIC_URL must start with http:// or https://');
  }
  if (url.search || url.hash) throw new ConfigurationError('GATEHOUSE_PUBLIC_URL must not carry a query or fragment');
  return value.replace(/\/+$/, '');
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `GATEHOUSE_LOG_LEVEL`; read before the rest of the configuration, so that its warnings are logged at that level. */
export function parseLogLevel(raw: string | undefined): LogLevel {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined) return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigurationError(`GATEHOUSE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return value as LogLevel;
}

function parseRedisKeyPrefix(raw: string | undefined): string | undefined {
  const value = nonEmpty(raw);
  if (value !== undefined && !/^[\x21-\x7e]{1,100}$/.test(value)) {
    throw new ConfigurationError('GATEHOUSE_REDIS_KEY_PREFIX must be 1-100 printable ASCII characters without spaces');
  }
  return value;
}

function parseTrustedProxies(raw: string | undefined): string[] {
  const proxies = (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    compileTrustedProxies(proxies);
  } catch {
    const bad = proxies.find((entry) => {
      try {
        compileTrustedProxies([entry]);
        return false;
      } catch {
        return true;
      }
    });
    throw new ConfigurationError(
      `GATEHOUSE_TRUSTED_PROXIES: "${bad}" is not an IP, a CIDR (10.0.0.0/8) or loopback, linklocal, uniquelocal`,
    );
  }
  return proxies;
}

function parseRateLimits(raw: string | undefined): RateLimitOptions {
  const value = nonEmpty(raw);
  if (value === undefined) return {};
  try {
    return parseRateLimitSpec(value);
  } catch (error) {
    throw new ConfigurationError(
      `GATEHOUSE_RATE_LIMITS: ${error instanceof Error ? error.message : String(error)} ` +
        '(e.g. login.ip=60/1m,reset-request.email=3/1h, or off)',
    );
  }
}

function parseSwitch(name: string, raw: string | undefined, fallback: boolean): boolean {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined) return fallback;
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new ConfigurationError(`${name} must be on or off, got "${raw}"`);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 86_400 * SECOND;

/** `GATEHOUSE_OUTBOX_*`, each a duration: `500ms`, `5s`, `30m`, `24h`, `7d`, or whole seconds. */
function parseOutbox(env: Env): OutboxConfig {
  const defaults = DEFAULT_OUTBOX_OPTIONS;
  const duration = (name: string, fallback: number, min: number, max: number) =>
    parseDuration(`GATEHOUSE_OUTBOX_${name}`, env[`GATEHOUSE_OUTBOX_${name}`], fallback, min, max);
  const config: OutboxConfig = {
    worker: parseSwitch('GATEHOUSE_OUTBOX_WORKER', env.GATEHOUSE_OUTBOX_WORKER, defaults.worker),
    pollIntervalMs: duration('POLL_INTERVAL', defaults.pollIntervalMs, 10, DAY),
    retryBaseMs: duration('RETRY_BASE', defaults.retryBaseMs, 10, DAY),
    retryMaxMs: duration('RETRY_MAX', defaults.retryMaxMs, 10, 7 * DAY),
    giveUpAfterMs: duration('GIVE_UP', defaults.giveUpAfterMs, SECOND, 30 * DAY),
    leaseMs: duration('LEASE', defaults.leaseMs, 100, DAY),
    retentionMs: duration('RETENTION', defaults.retentionMs, SECOND, 365 * DAY),
  };
  if (config.retryMaxMs < config.retryBaseMs) {
    throw new ConfigurationError('GATEHOUSE_OUTBOX_RETRY_MAX must be at least GATEHOUSE_OUTBOX_RETRY_BASE');
  }
  return config;
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: SECOND,
  m: 60 * SECOND,
  h: 3600 * SECOND,
  d: DAY,
  '': SECOND,
};

function parseDuration(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  const value = nonEmpty(raw);
  if (value === undefined) return fallback;
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(value);
  const ms = match ? Number(match[1]) * DURATION_UNITS[match[2] ?? ''] : NaN;
  if (!(ms >= min && ms <= max)) {
    throw new ConfigurationError(
      `${name} must be a duration from ${describeMs(min)} to ${describeMs(max)} such as 500ms, 5s, 30m, 24h or 7d ` +
        `(bare numbers are seconds), got "${value}"`,
    );
  }
  return ms;
}

function describeMs(ms: number): string {
  if (ms % DAY === 0) return `${ms / DAY}d`;
  if (ms % SECOND === 0) return `${ms / SECOND}s`;
  return `${ms}ms`;
}

/** A link base for the host's front end; `token=` is appended to it (EmailLinks checks it again at start). */
function parseLinkUrl(name: string, raw: string | undefined): string | undefined {
  const value = nonEmpty(raw);
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigurationError(`${name} must be an absolute http(s) URL such as https://app.example.com/verify`);
  }
  return value;
}
