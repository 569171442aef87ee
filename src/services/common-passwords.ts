type LanguageCommon = typeof import('@zxcvbn-ts/language-common');

let blocklist: Set<string> | undefined;

/**
 * The bundled list of common passwords (zxcvbn-ts' ranked list, about 49,000 entries from public breach corpora),
 * lower-cased. Loaded and built on first use, not with the package: the package decompresses its lists when it is
 * required (about 100 ms, the largest single cost of a start), so an app that never sets a password pays nothing for
 * it, and a server pays it at its first registration or password change instead of before its first answer.
 */
export function isCommonPassword(password: string): boolean {
  if (!blocklist) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use on purpose (see above)
    const { dictionary } = require('@zxcvbn-ts/language-common') as LanguageCommon;
    blocklist = new Set((dictionary['passwords-common'] as string[]).map((entry) => entry.toLowerCase()));
  }
  return blocklist.has(password.toLowerCase());
}
