import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { ConfigurationError } from '../../errors/configuration-error';

// The format of an API key, after GitHub's tokens (github.blog, 2021-04-05, "Behind GitHub's new authentication token
// formats"): `{prefix}_{32 random base62}{6 base62: CRC32 of everything before}`. The prefix lets secret scanners find
// keys; the checksum lets them, and us, tell a real key from a random string offline, so a mistyped or forged key is
// refused before any database read.

/** Digits, then upper case, then lower case: the order the checksum's digits use (docs/api-keys.md). */
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 32 base62 characters: about 190 bits, far above ASVS V11.5.1's 128. */
export const API_KEY_RANDOM_LENGTH = 32;
/** 62^6 > 2^32: any CRC32 fits in six base62 digits. */
export const API_KEY_CHECKSUM_LENGTH = 6;
/** What follows `{prefix}_`. */
export const API_KEY_BODY_LENGTH = API_KEY_RANDOM_LENGTH + API_KEY_CHECKSUM_LENGTH;

export const DEFAULT_API_KEY_PREFIX = 'gatehouse';
const PREFIX_PATTERN = /^[a-z0-9_]{3,24}$/;
const BODY_PATTERN = new RegExp(`^[0-9A-Za-z]{${API_KEY_BODY_LENGTH}}$`);

/** The configured prefix, or a ConfigurationError saying what a prefix may be. */
export function checkedApiKeyPrefix(prefix: unknown, name = 'ACCOUNT_OPTIONS.apiKeyPrefix'): string {
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new ConfigurationError(
      `Gatehouse: ${name} must be 3 to 24 of a-z, 0-9 and _ (got ${JSON.stringify(prefix)})`,
    );
  }
  return prefix;
}

/** The six base62 digits of the CRC32 of `text`, most significant first, padded with `0`. */
export function apiKeyChecksum(text: string): string {
  let value = crc32(text);
  let digits = '';
  for (let index = 0; index < API_KEY_CHECKSUM_LENGTH; index++) {
    digits = BASE62[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

/** A new key: the random part from the CSPRNG, each character by rejection sampling (no modulo bias). */
export function mintApiKey(prefix: string, random: (size: number) => Buffer = randomBytes): string {
  let body = '';
  while (body.length < API_KEY_RANDOM_LENGTH) {
    for (const byte of random(API_KEY_RANDOM_LENGTH)) {
      // 248 = 4 * 62: bytes at or above it would favour the first eight characters.
      if (byte < 248 && body.length < API_KEY_RANDOM_LENGTH) body += BASE62[byte % 62];
    }
  }
  const unsigned = `${prefix}_${body}`;
  return unsigned + apiKeyChecksum(unsigned);
}

/**
 * Whether `token` has the shape of a key of this prefix (prefix, `_`, 38 base62 characters), whatever its checksum:
 * how the guards tell a key from a session token (43 base64url characters) without reading anything.
 */
export function isApiKeyShaped(token: string, prefix: string): boolean {
  return (
    token.length === prefix.length + 1 + API_KEY_BODY_LENGTH &&
    token.startsWith(prefix) &&
    token.charCodeAt(prefix.length) === 95 /* _ */ &&
    BODY_PATTERN.test(token.slice(prefix.length + 1))
  );
}

/**
 * Whether a key-shaped `token`'s last six characters are the checksum of the rest: compared digit by digit from the
 * end, without building the expected string (this runs on every request made with a key).
 */
export function hasValidChecksum(token: string): boolean {
  const split = token.length - API_KEY_CHECKSUM_LENGTH;
  if (split <= 0) return false;
  let value = crc32(token.slice(0, split));
  for (let index = token.length - 1; index >= split; index--) {
    if (token.charCodeAt(index) !== BASE62.charCodeAt(value % 62)) return false;
    value = Math.floor(value / 62);
  }
  return true;
}

/** `isApiKeyShaped` and `hasValidChecksum`: a string that may be one of our keys. */
export function isWellFormedApiKey(token: unknown, prefix: string): token is string {
  return typeof token === 'string' && isApiKeyShaped(token, prefix) && hasValidChecksum(token);
}

/** The last four characters, which listings show so that a person can tell their keys apart. */
export function lastFourOf(key: string): string {
  return key.slice(-4);
}
