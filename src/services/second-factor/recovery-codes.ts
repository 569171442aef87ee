import { randomBytes } from 'node:crypto';

// Recovery codes: the way back in when the authenticator is lost. Each is 80 random bits, written as 16 base32
// characters in four groups; only a keyed hash of each is stored (see `recoveryCodeKey`), and using one marks it used.

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const GROUPS = 4;
const GROUP_LENGTH = 4;

/** A fresh set of codes, as shown to the person once: `abcd-efgh-ijkl-mnop`. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(GROUPS * GROUP_LENGTH);
    // 256 is a multiple of 32, so each byte maps to a letter without bias.
    const letters = [...bytes].map((byte) => ALPHABET[byte % ALPHABET.length]).join('');
    return letters.match(new RegExp(`.{${GROUP_LENGTH}}`, 'g'))!.join('-');
  });
}

/**
 * The code as typed, in its one stored form: case, spaces and dashes do not matter. Null when it cannot be a code
 * (so it is refused without a lookup).
 */
export function normalizeRecoveryCode(typed: string): string | null {
  if (typeof typed !== 'string' || typed.length > 64) return null;
  const code = typed.toLowerCase().replace(/[\s-]/g, '');
  return new RegExp(`^[${ALPHABET}]{${GROUPS * GROUP_LENGTH}}$`).test(code) ? code : null;
}

/** What is hashed for a user's code: bound to the user, so a code (or its hash) means nothing for anyone else. */
export function recoveryCodeKey(userId: string, normalizedCode: string): string {
  return `recovery:${userId}:${normalizedCode}`;
}
