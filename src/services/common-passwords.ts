import { dictionary } from '@zxcvbn-ts/language-common';

let blocklist: Set<string> | undefined;

/**
 * The bundled list of common passwords (zxcvbn-ts' ranked list, about 49,000 entries from public breach corpora),
 * lower-cased. Built on first use, so an app that never sets a password pays nothing for it.
 */
export function isCommonPassword(password: string): boolean {
  blocklist ??= new Set((dictionary['passwords-common'] as string[]).map((entry) => entry.toLowerCase()));
  return blocklist.has(password.toLowerCase());
}
