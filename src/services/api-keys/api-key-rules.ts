import { AccountError } from '../../errors/account-error';

// What a key may be called, what it may do and how long it lives: the core's own checks, for the routes, the CLI and
// a host's code alike (the HTTP layer's DTOs bound the same fields, this is what decides).

export const API_KEY_NAME_MAX_LENGTH = 64;
/** The most scopes one key may carry (a key needing more is better split). */
export const API_KEY_MAX_SCOPES = 64;
/** Gatehouse's own permissions never go on a key: a key never manages accounts (docs/api-keys.md). */
export const RESERVED_SCOPE_PREFIX = 'gatehouse.';

const DAY_MS = 24 * 60 * 60 * 1000;
// Control characters, and the line and paragraph separators a name would break a page or a log line with.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

/** A key's name as stored: NFC, trimmed, 1 to 64 characters (code points), no control characters. */
export function apiKeyName(raw: unknown): string {
  if (typeof raw !== 'string' || CONTROL.test(raw)) throw invalidName();
  const name = raw.normalize('NFC').trim();
  const length = [...name].length;
  if (length < 1 || length > API_KEY_NAME_MAX_LENGTH) throw invalidName();
  return name;
}

/**
 * The scopes asked for, checked for their shape only (the permissions held are judged in the creating transaction,
 * `heldScopes`): a non-empty array of at most 64 strings, none with `*`, none of Gatehouse's own. Duplicates collapse;
 * sorted (UTF-16 code units, as every permission list).
 */
export function requestedScopes(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new AccountError('invalid_scope', 'scopes must be a non-empty list of permission names');
  }
  if (raw.length > API_KEY_MAX_SCOPES) {
    throw new AccountError('invalid_scope', `A key carries at most ${API_KEY_MAX_SCOPES} scopes`);
  }
  for (const scope of raw) {
    if (typeof scope !== 'string' || scope.length === 0) {
      throw new AccountError('invalid_scope', 'Every scope must be a permission name');
    }
    if (scope.includes('*')) throw invalidScope(scope, 'wildcards are not allowed');
    if (isReservedScope(scope)) throw invalidScope(scope, "Gatehouse's own permissions cannot be given to a key");
  }
  return [...new Set(raw as string[])].sort();
}

/** Whether a permission may never be a key's scope (Gatehouse's own), whatever its case. */
export function isReservedScope(permission: string): boolean {
  return permission.toLowerCase().startsWith(RESERVED_SCOPE_PREFIX);
}

/**
 * Refuses (`invalid_scope`, naming the first) a scope that is not among `held`: what the owner holds now, read under
 * the owner's lock, and, for an administrator's key for a service account, what the administrator holds too.
 */
export function requireHeld(scopes: readonly string[], ...held: readonly (readonly string[])[]): void {
  for (const scope of scopes) {
    if (held.some((permissions) => !permissions.includes(scope))) {
      throw invalidScope(scope, 'not a permission held now');
    }
  }
}

/** The permissions a key could be given: those held, without Gatehouse's own or any wildcard, sorted. */
export function grantableScopes(held: Iterable<string>): string[] {
  return [...new Set(held)].filter((permission) => !permission.includes('*') && !isReservedScope(permission)).sort();
}

/**
 * The instant a key created at `now` expires: `expiresInDays` whole days later (`apiKeyDefaultLifetimeDays` when
 * absent), 1 to `apiKeyMaxLifetimeDays`, else `invalid_api_key_expiry`. Keys always expire (ASVS V13.3.4).
 */
export function apiKeyExpiry(
  expiresInDays: unknown,
  now: Date,
  options: { apiKeyMaxLifetimeDays: number; apiKeyDefaultLifetimeDays: number },
): Date {
  const days = expiresInDays ?? options.apiKeyDefaultLifetimeDays;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > options.apiKeyMaxLifetimeDays) {
    throw new AccountError(
      'invalid_api_key_expiry',
      `The lifetime must be a whole number of days from 1 to ${options.apiKeyMaxLifetimeDays}`,
    );
  }
  return new Date(now.getTime() + days * DAY_MS);
}

function invalidName(): AccountError {
  return new AccountError(
    'account_error',
    `An API key's name is 1 to ${API_KEY_NAME_MAX_LENGTH} characters, without control characters`,
  );
}

/** A run of characters as long as a key's random part: a key (or another secret) pasted where a scope goes. */
const SECRET_LIKE = /[0-9A-Za-z]{32}/;

/**
 * Names the scope, cut short and quoted: the detail is the client's own input, never anything stored. A scope that
 * looks like a secret is not repeated: an error may be logged, and no key may ever land in a log line.
 */
function invalidScope(scope: string, why: string): AccountError {
  if (SECRET_LIKE.test(scope)) return new AccountError('invalid_scope', `A scope that looks like a key: ${why}`);
  const shown = scope.length > 80 ? `${scope.slice(0, 80)}…` : scope;
  return new AccountError('invalid_scope', `Scope ${JSON.stringify(shown)}: ${why}`);
}
