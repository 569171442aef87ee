import { AccountError } from '../errors/account-error';
import { PasswordPolicyOptions } from './account-options';
import { isCommonPassword } from './common-passwords';

/** Words of the account a password must not be built on (NIST 800-63B: context-specific words). */
export interface PasswordContext {
  username?: string;
  email?: string;
}

/**
 * Control characters cannot be typed reliably, and U+FFFD is what undecodable input turns into: a password holding
 * either could be matched by bytes its owner never chose. An unpaired surrogate (`"\ud800"` is valid JSON) is
 * hashed as the UTF-8 of U+FFFD, so every unpaired surrogate would be the same password: refused too.
 */
const UNTYPABLE = /[\p{Cc}\p{Cs}\uFFFD]/u;

/** Context words shorter than this are too common inside real passphrases to refuse. */
const MIN_CONTEXT_WORD_LENGTH = 4;

/**
 * The one password policy (SECURITY-CHECKLIST P1-P6): NFKC normalization, length in code points, no composition
 * rules, a blocklist of common passwords and of the account's own words. Returns the normalized password, which is
 * what gets hashed and verified, so composed and decomposed accents are the same password everywhere.
 */
export class PasswordPolicy {
  constructor(private readonly options: PasswordPolicyOptions) {}

  /** Normalizes without judging; used at login and for the current password, where the policy may have changed. */
  normalize(password: string): string {
    return password.normalize('NFKC');
  }

  /**
   * True for input far past the maximum (more than 4x in UTF-16 units): no password we accepted can be that long,
   * so login and password checks refuse it without argon2 work. The margin keeps passwords set under a larger
   * earlier maximum usable.
   */
  isOverlong(password: string): boolean {
    return password.length > this.options.maxLength * 4;
  }

  /** Throws `weak_password` with a message the user can act on; returns the normalized password. */
  check(password: string, context: PasswordContext = {}): string {
    const { minLength, maxLength } = this.options;
    // Bail out before normalizing a huge string: composition shrinks text at most about threefold (Hangul jamo).
    if (this.isOverlong(password)) throw tooLong(maxLength);
    const normalized = this.normalize(password);
    const length = [...normalized].length;
    if (length < minLength) {
      throw new AccountError('weak_password', `Password must be at least ${minLength} characters long`);
    }
    if (length > maxLength) throw tooLong(maxLength);
    if (UNTYPABLE.test(normalized)) {
      throw new AccountError(
        'weak_password',
        'Password must not contain control characters, unpaired surrogates or U+FFFD',
      );
    }
    if (this.options.useBlocklist && isCommonPassword(normalized)) {
      throw new AccountError('weak_password', 'Password is too common; choose a less predictable one');
    }
    const lowered = normalized.toLowerCase();
    for (const word of this.contextWords(context)) {
      if (lowered.includes(word)) {
        throw new AccountError('weak_password', 'Password must not contain your username, email or the service name');
      }
    }
    return normalized;
  }

  private contextWords(context: PasswordContext): string[] {
    const words = [...this.options.contextWords];
    if (context.username) words.push(context.username);
    if (context.email) words.push(context.email.split('@')[0]);
    return words
      .map((word) => word.normalize('NFKC').toLowerCase())
      .filter((word) => [...word].length >= MIN_CONTEXT_WORD_LENGTH);
  }
}

function tooLong(maxLength: number): AccountError {
  return new AccountError('weak_password', `Password must be at most ${maxLength} characters long`);
}
