import { AccountError } from '../../errors/account-error';

export const ORGANIZATION_NAME_MAX_LENGTH = 100;

// Control characters, and the line and paragraph separators a name would break a page or a log line with.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

/**
 * An organization's name as stored: NFC, trimmed, 1 to 100 characters (code points), no control characters. The
 * HTTP layer checks the same in its DTO; this is the core's own check, for every other caller.
 */
export function organizationName(raw: unknown): string {
  if (typeof raw !== 'string') throw invalidName();
  const name = raw.normalize('NFC').trim();
  const length = [...name].length;
  if (length < 1 || length > ORGANIZATION_NAME_MAX_LENGTH || CONTROL.test(name)) throw invalidName();
  return name;
}

function invalidName(): AccountError {
  return new AccountError(
    'account_error',
    `An organization's name is 1 to ${ORGANIZATION_NAME_MAX_LENGTH} characters, without control characters`,
  );
}
