import { checkedApiKeyPrefix, DEFAULT_API_KEY_PREFIX } from './api-keys/api-key-format';
import { availableParallelism } from 'node:os';
import { ConfigurationError } from '../errors/configuration-error';
import { resolveOutboxOptions, type OutboxOptions } from './outbox-options';
import { resolveOidcSettings, type OidcOptions, type OidcSettings } from './oidc/oidc-options';
import { resolveRelyingParty, type PasskeyOptions, type RelyingParty } from './passkeys/relying-party';
import {
  resolveOrganizationSettings,
  type OrganizationOptions,
  type OrganizationSettings,
} from './organizations/organization-options';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** argon2id cost parameters; the defaults are OWASP's (m = 19 MiB, t = 2, p = 1). */
export interface HashingOptions {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/**
 * How much password hashing may run at once and wait. Each running hash holds `memoryCost` KiB (19 MiB by default)
 * and a thread of libuv's pool; waiting ones hold almost nothing, but make later callers wait longer.
 */
export interface HashingQueueOptions {
  /** Hashes computed at once; default: the number of cores (`os.availableParallelism()`). */
  concurrency: number;
  /** Hashes allowed to wait for a slot; past it, 503 with `Retry-After`. Default 64 per running slot. */
  maxQueued: number;
}

export interface PasswordPolicyOptions {
  /** Minimum length in code points after NFKC. NIST asks 15 for single-factor use; 12 is ASVS's floor. */
  minLength: number;
  /** Maximum length in code points; longer passwords are refused before any hashing, never truncated. */
  maxLength: number;
  /** Refuse the bundled list of common passwords. */
  useBlocklist: boolean;
  /** Extra words refused as passwords or inside passwords (for example the name of the product). */
  contextWords: string[];
}

/** Everything tunable in the account core. Only `secretKey` is required. */
export interface AccountOptions {
  /** Key of the HMAC that hashes every token before storage; at least 32 bytes, long and random. */
  secretKey: string | Buffer;
  sessionLifetimeMs?: number;
  sessionIdleTimeoutMs?: number;
  /** How often an active session's idle window moves; bounds writes on the hot path to one per interval. */
  sessionRefreshIntervalMs?: number;
  verificationTokenTtlMs?: number;
  /**
   * How long a registration may stay unconfirmed: past it the registration has expired (it cannot sign in, be
   * confirmed or be sent a new link, and its username is free again) and the clean-up removes it. Default 7 days.
   */
  unverifiedRegistrationTtlMs?: number;
  resetTokenTtlMs?: number;
  /** How long the link of an email change works. Default 1 hour. */
  emailChangeTokenTtlMs?: number;
  /**
   * How long a proved password counts as recent, at login or by re-authentication: changing the email address and
   * ending other sessions need it within this window. Default 10 minutes.
   */
  reauthenticationWindowMs?: number;
  /** How long the challenge a right password gives an account with a second factor can be answered. Default 5 minutes. */
  loginChallengeTtlMs?: number;
  /** Answers one login challenge allows before it dies (each wrong code also counts against the account). Default 5. */
  loginChallengeMaxAttempts?: number;
  /** Name shown in authenticator apps beside the username (the `issuer` of the otpauth URI). Default `'Gatehouse'`. */
  totpIssuer?: string;
  /** How long audit events are kept before the clean-up removes them. Default 365 days. */
  auditRetentionMs?: number;
  hashing?: Partial<HashingOptions>;
  hashingQueue?: Partial<HashingQueueOptions>;
  password?: Partial<PasswordPolicyOptions>;
  /**
   * Email delivery through the outbox: retries, give-up time, the in-process worker, the recipient's language. See
   * `OutboxOptions`; every field has a default.
   */
  outbox?: Partial<OutboxOptions>;
  /**
   * Passkeys (WebAuthn): the relying party and the origins ceremonies may come from, checked at start. Without it
   * passkeys are off and their routes answer 404 `passkeys_not_configured`.
   */
  passkeys?: PasskeyOptions;
  /**
   * Sign-in with OpenID providers (and GitHub): each provider, where they redirect back to, and where a flow may
   * return. Checked at start; without it the providers' routes answer 404 `unknown_provider`.
   */
  oidc?: OidcOptions;
  /**
   * Organizations: one role template for all of them, who may create one, invitations' lifetime, and the limits.
   * On by default with the default template; `false` turns the feature off (its routes answer 404
   * `organization_not_found`, and an `'org'` guard fails at start).
   */
  organizations?: OrganizationOptions | false;
  /**
   * What every API key starts with, before `_`: 3 to 24 of `a-z 0-9 _` (default `gatehouse`). Pick one your secret
   * scanners can look for (docs/api-keys.md); changing it makes every existing key unrecognisable.
   */
  apiKeyPrefix?: string;
  /** The longest lifetime a key may be created with, in days (default 366). */
  apiKeyMaxLifetimeDays?: number;
  /** The lifetime of a key created without one, in days (default 30; at most `apiKeyMaxLifetimeDays`). */
  apiKeyDefaultLifetimeDays?: number;
  /** How many unexpired keys one account may hold (default 50). */
  apiKeyMaxPerUser?: number;
}

export type ResolvedAccountOptions = Required<
  Omit<
    AccountOptions,
    'hashing' | 'hashingQueue' | 'password' | 'secretKey' | 'outbox' | 'passkeys' | 'oidc' | 'organizations'
  >
> & {
  /** Organizations' template and limits, or null when they are off. */
  organizations: OrganizationSettings | null;
  /** The relying party of passkeys, or null when they are off. */
  passkeys: RelyingParty | null;
  /** The OpenID providers, or null when there are none. */
  oidc: OidcSettings | null;
  secretKey: Buffer;
  hashing: HashingOptions;
  hashingQueue: HashingQueueOptions;
  password: PasswordPolicyOptions;
  outbox: OutboxOptions;
};

export const MIN_SECRET_KEY_BYTES = 32;

export const DEFAULT_ACCOUNT_OPTIONS = {
  sessionLifetimeMs: 30 * DAY,
  sessionIdleTimeoutMs: 7 * DAY,
  sessionRefreshIntervalMs: HOUR,
  verificationTokenTtlMs: DAY,
  unverifiedRegistrationTtlMs: 7 * DAY,
  resetTokenTtlMs: HOUR,
  emailChangeTokenTtlMs: HOUR,
  reauthenticationWindowMs: 10 * MINUTE,
  loginChallengeTtlMs: 5 * MINUTE,
  loginChallengeMaxAttempts: 5,
  totpIssuer: 'Gatehouse',
  auditRetentionMs: 365 * DAY,
  apiKeyPrefix: DEFAULT_API_KEY_PREFIX,
  apiKeyMaxLifetimeDays: 366,
  apiKeyDefaultLifetimeDays: 30,
  apiKeyMaxPerUser: 50,
  hashing: { memoryCost: 19_456, timeCost: 2, parallelism: 1 } satisfies HashingOptions,
  password: {
    minLength: 12,
    maxLength: 128,
    useBlocklist: true,
    contextWords: ['gatehouse'],
  } satisfies PasswordPolicyOptions,
};

/** API keys' lifetimes and count: whole numbers, the default within the maximum. */
function checkApiKeyLimits(resolved: ResolvedAccountOptions): void {
  for (const key of ['apiKeyMaxLifetimeDays', 'apiKeyDefaultLifetimeDays', 'apiKeyMaxPerUser'] as const) {
    if (!Number.isInteger(resolved[key]) || resolved[key] < 1) {
      throw new ConfigurationError(`Gatehouse: ACCOUNT_OPTIONS.${key} must be a whole number >= 1`);
    }
  }
  if (resolved.apiKeyDefaultLifetimeDays > resolved.apiKeyMaxLifetimeDays) {
    throw new ConfigurationError(
      'Gatehouse: ACCOUNT_OPTIONS.apiKeyDefaultLifetimeDays must not exceed apiKeyMaxLifetimeDays',
    );
  }
}

/** Fills defaults and refuses unusable options once, at start, with a message that says what to fix. */
export function resolveAccountOptions(options: AccountOptions): ResolvedAccountOptions {
  if (!options || options.secretKey === undefined || options.secretKey === null) {
    throw new ConfigurationError('Gatehouse: ACCOUNT_OPTIONS.secretKey is required (at least 32 random bytes)');
  }
  const secretKey = Buffer.isBuffer(options.secretKey) ? options.secretKey : Buffer.from(options.secretKey, 'utf8');
  if (secretKey.length < MIN_SECRET_KEY_BYTES) {
    throw new ConfigurationError(
      `Gatehouse: the secret key is ${secretKey.length} bytes; it must be at least ${MIN_SECRET_KEY_BYTES} random bytes`,
    );
  }
  const resolved: ResolvedAccountOptions = {
    secretKey,
    sessionLifetimeMs: options.sessionLifetimeMs ?? DEFAULT_ACCOUNT_OPTIONS.sessionLifetimeMs,
    sessionIdleTimeoutMs: options.sessionIdleTimeoutMs ?? DEFAULT_ACCOUNT_OPTIONS.sessionIdleTimeoutMs,
    sessionRefreshIntervalMs: options.sessionRefreshIntervalMs ?? DEFAULT_ACCOUNT_OPTIONS.sessionRefreshIntervalMs,
    verificationTokenTtlMs: options.verificationTokenTtlMs ?? DEFAULT_ACCOUNT_OPTIONS.verificationTokenTtlMs,
    unverifiedRegistrationTtlMs:
      options.unverifiedRegistrationTtlMs ?? DEFAULT_ACCOUNT_OPTIONS.unverifiedRegistrationTtlMs,
    resetTokenTtlMs: options.resetTokenTtlMs ?? DEFAULT_ACCOUNT_OPTIONS.resetTokenTtlMs,
    emailChangeTokenTtlMs: options.emailChangeTokenTtlMs ?? DEFAULT_ACCOUNT_OPTIONS.emailChangeTokenTtlMs,
    reauthenticationWindowMs: options.reauthenticationWindowMs ?? DEFAULT_ACCOUNT_OPTIONS.reauthenticationWindowMs,
    loginChallengeTtlMs: options.loginChallengeTtlMs ?? DEFAULT_ACCOUNT_OPTIONS.loginChallengeTtlMs,
    loginChallengeMaxAttempts: options.loginChallengeMaxAttempts ?? DEFAULT_ACCOUNT_OPTIONS.loginChallengeMaxAttempts,
    totpIssuer: options.totpIssuer ?? DEFAULT_ACCOUNT_OPTIONS.totpIssuer,
    auditRetentionMs: options.auditRetentionMs ?? DEFAULT_ACCOUNT_OPTIONS.auditRetentionMs,
    hashing: { ...DEFAULT_ACCOUNT_OPTIONS.hashing, ...options.hashing },
    hashingQueue: resolveHashingQueue(options.hashingQueue),
    password: { ...DEFAULT_ACCOUNT_OPTIONS.password, ...options.password },
    outbox: resolveOutboxOptions(options.outbox),
    passkeys: resolveRelyingParty(options.passkeys),
    oidc: resolveOidcSettings(options.oidc),
    organizations: resolveOrganizationSettings(options.organizations),
    apiKeyPrefix: checkedApiKeyPrefix(options.apiKeyPrefix ?? DEFAULT_ACCOUNT_OPTIONS.apiKeyPrefix),
    apiKeyMaxLifetimeDays: options.apiKeyMaxLifetimeDays ?? DEFAULT_ACCOUNT_OPTIONS.apiKeyMaxLifetimeDays,
    apiKeyDefaultLifetimeDays: options.apiKeyDefaultLifetimeDays ?? DEFAULT_ACCOUNT_OPTIONS.apiKeyDefaultLifetimeDays,
    apiKeyMaxPerUser: options.apiKeyMaxPerUser ?? DEFAULT_ACCOUNT_OPTIONS.apiKeyMaxPerUser,
  };
  checkApiKeyLimits(resolved);
  for (const key of [
    'sessionLifetimeMs',
    'sessionIdleTimeoutMs',
    'sessionRefreshIntervalMs',
    'verificationTokenTtlMs',
    'unverifiedRegistrationTtlMs',
    'resetTokenTtlMs',
    'emailChangeTokenTtlMs',
    'reauthenticationWindowMs',
    'loginChallengeTtlMs',
    'auditRetentionMs',
  ] as const) {
    if (!Number.isFinite(resolved[key]) || resolved[key] <= 0) {
      throw new ConfigurationError(`Gatehouse: ACCOUNT_OPTIONS.${key} must be a positive number of milliseconds`);
    }
  }
  if (!Number.isInteger(resolved.loginChallengeMaxAttempts) || resolved.loginChallengeMaxAttempts < 1) {
    throw new ConfigurationError('Gatehouse: ACCOUNT_OPTIONS.loginChallengeMaxAttempts must be a whole number >= 1');
  }
  if (typeof resolved.totpIssuer !== 'string' || !/^[^:\p{Cc}]{1,64}$/u.test(resolved.totpIssuer)) {
    throw new ConfigurationError('Gatehouse: ACCOUNT_OPTIONS.totpIssuer must be 1 to 64 characters, without ":"');
  }
  const { minLength, maxLength } = resolved.password;
  if (!Number.isInteger(minLength) || !Number.isInteger(maxLength) || minLength < 8 || maxLength < minLength) {
    throw new ConfigurationError(
      'Gatehouse: password.minLength must be an integer >= 8 and password.maxLength >= minLength',
    );
  }
  return resolved;
}

function resolveHashingQueue(options: Partial<HashingQueueOptions> = {}): HashingQueueOptions {
  const concurrency = options.concurrency ?? Math.max(1, availableParallelism());
  const maxQueued = options.maxQueued ?? 64 * concurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1 || !Number.isInteger(maxQueued) || maxQueued < 0) {
    throw new ConfigurationError(
      'Gatehouse: hashingQueue.concurrency must be an integer >= 1 and maxQueued an integer >= 0',
    );
  }
  return { concurrency, maxQueued };
}
