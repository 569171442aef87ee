import { domainToASCII } from 'node:url';
import { AccountError } from '../errors/account-error';

/**
 * Canonical forms of usernames and emails. The `*Key` values are what uniqueness is judged on (DESIGN: NFKC,
 * case-folded), so `Alice` and `alice`, or `ALICE@Example.com` and `alice@example.com`, cannot both exist.
 */

export const USERNAME_MIN_LENGTH = 3;
export const USERNAME_MAX_LENGTH = 32;
/** ASCII letters, digits, `_`, `.`, `-`, starting with a letter or digit: no look-alike scripts, URL-safe. */
const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export interface CanonicalUsername {
  username: string;
  usernameKey: string;
}

export function canonicalUsername(raw: string): CanonicalUsername {
  const username = raw.normalize('NFKC');
  const length = [...username].length;
  if (length < USERNAME_MIN_LENGTH || length > USERNAME_MAX_LENGTH) {
    throw new AccountError(
      'invalid_username',
      `Username must be ${USERNAME_MIN_LENGTH} to ${USERNAME_MAX_LENGTH} characters long`,
    );
  }
  if (!USERNAME_PATTERN.test(username)) {
    throw new AccountError(
      'invalid_username',
      'Username may contain only letters A-Z, digits, "_", "." and "-", and must start with a letter or digit',
    );
  }
  return { username, usernameKey: username.toLowerCase() };
}

/** The lookup key of a username as typed at login; never throws, so a malformed name is just an unknown user. */
export function usernameKeyOf(raw: string): string {
  return raw.normalize('NFKC').toLowerCase();
}

/** RFC 5321: a path is at most 256 octets including the angle brackets, so an address at most 254. */
export const EMAIL_MAX_BYTES = 254;
const EMAIL_LOCAL_MAX_BYTES = 64;
/** Dot-atom local part (RFC 5322) without quoted strings: no spaces, quotes, commas, angle brackets or controls. */
const LOCAL_PART_PATTERN = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL_PATTERN = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** C0 and C1 controls (CR, LF, TAB, NUL, NEL...) and the Unicode line and paragraph separators. */
const LINE_BREAK_OR_CONTROL = /[\p{Cc}\u2028\u2029]/u;

export interface CanonicalEmail {
  email: string;
  emailKey: string;
}

const invalidEmail = () => new AccountError('invalid_email', 'Email address is invalid');

/**
 * NFKC first (so a fullwidth `＠` becomes `@` and is then judged like any other), then strict validation: no
 * control character or line break anywhere, surrounding spaces trimmed, exactly one `@`, an ASCII dot-atom local
 * part, a domain with at least two labels (internationalized domains are accepted and stored in their ASCII form),
 * at most 254 bytes in that canonical form. Quoted local parts are refused on purpose: they allow the commas, quotes
 * and spaces that mail-header injection relies on.
 */
export function canonicalEmail(raw: string): CanonicalEmail {
  const folded = raw.normalize('NFKC');
  // Before trimming, which would quietly drop a trailing CR/LF: a line break anywhere is refused, not repaired.
  if (LINE_BREAK_OR_CONTROL.test(folded)) throw invalidEmail();
  const normalized = folded.trim();
  const at = normalized.indexOf('@');
  if (at <= 0 || at !== normalized.lastIndexOf('@')) throw invalidEmail();
  const local = normalized.slice(0, at);
  const rawDomain = normalized.slice(at + 1);
  if (Buffer.byteLength(local) > EMAIL_LOCAL_MAX_BYTES || !LOCAL_PART_PATTERN.test(local)) throw invalidEmail();
  if (/[\s\p{Cc}]/u.test(rawDomain)) throw invalidEmail();
  const domain = domainToASCII(rawDomain.toLowerCase());
  const labels = domain.split('.');
  if (!domain || labels.length < 2 || !labels.every((label) => DOMAIN_LABEL_PATTERN.test(label))) throw invalidEmail();
  if (/^[0-9]+$/.test(labels[labels.length - 1])) throw invalidEmail();
  const email = `${local}@${domain}`;
  if (Buffer.byteLength(email) > EMAIL_MAX_BYTES) throw invalidEmail();
  return { email, emailKey: email.toLowerCase() };
}

/** The lookup key of an email as typed in a reset or resend request; null when it cannot be an address we hold. */
export function emailKeyOf(raw: string): string | null {
  try {
    return canonicalEmail(raw).emailKey;
  } catch {
    return null;
  }
}

/** The longest role or permission name. */
export const ACCESS_NAME_MAX_LENGTH = 64;
/**
 * Role and permission names: the one rule, which the core checks (`checkRoleName`, `checkPermissionName`), the HTTP
 * layer checks in paths, and the API document states as the names' `pattern`.
 */
export const ACCESS_NAME_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,${ACCESS_NAME_MAX_LENGTH - 1}}$`);

/** Whether `name` may be a role or permission name. */
export function isAccessName(name: unknown): name is string {
  return typeof name === 'string' && ACCESS_NAME_PATTERN.test(name);
}

/** Role and permission names: 1 to 64 characters of letters, digits, `_`, `.`, `:` and `-` (e.g. `posts.write`). */
export function checkRoleName(name: string): string {
  if (!isAccessName(name)) {
    throw new AccountError('invalid_role', 'Role name is invalid');
  }
  return name;
}

export function checkPermissionName(name: string): string {
  if (!isAccessName(name)) {
    throw new AccountError('invalid_permission', 'Permission name is invalid');
  }
  return name;
}
