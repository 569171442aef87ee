import { EMAIL_MAX_BYTES } from '../services/identity';

// Controls (CR and LF above all) would end a header and start another; the others would make one recipient field
// name several addresses or a display name.
const CONTROL = /\p{Cc}/u;
const ADDRESS_BREAKERS = /[\s,;<>"()[\]\\]/u;

/**
 * Why `address` cannot be used as the single recipient of a message, or null when it can. Only what makes a header
 * unsafe is judged here; whether the address is a valid account email is the core's business.
 */
export function unsafeRecipientReason(address: unknown): string | null {
  if (typeof address !== 'string' || address === '') return 'the recipient address is empty';
  if (CONTROL.test(address)) return 'the recipient address contains a line break or control character';
  if (ADDRESS_BREAKERS.test(address)) {
    return 'the recipient address contains whitespace, a comma, a semicolon, quotes, brackets or a backslash';
  }
  const at = address.indexOf('@');
  if (at <= 0 || at !== address.lastIndexOf('@') || at === address.length - 1) {
    return "the recipient address does not have exactly one '@' between a local part and a domain";
  }
  if (Buffer.byteLength(address) > EMAIL_MAX_BYTES) {
    return `the recipient address is longer than ${EMAIL_MAX_BYTES} bytes`;
  }
  return null;
}

/** Refuses a configured header value (product name, From) that could break out of its header. */
export function checkHeaderText(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(`Gatehouse: ${name} must be a non-empty string`);
  }
  if (CONTROL.test(value)) {
    throw new TypeError(`Gatehouse: ${name} must not contain line breaks or other control characters`);
  }
  return value;
}

/** True when a built subject is safe as a header; a host template may have put user text in it. */
export function isSafeHeaderText(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && !CONTROL.test(value);
}
