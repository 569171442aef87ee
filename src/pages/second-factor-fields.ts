import { field } from './fields';
import type { SafeHtml } from './html';

/** Digits of an authenticator app's code (RFC 6238 as Gatehouse uses it). */
export const TOTP_CODE_LENGTH = 6;

/**
 * A generous bound on what a recovery code field takes: long enough for the codes the core hands out, however they
 * are grouped, and short enough that a paste of something else is cut rather than sent.
 */
export const RECOVERY_CODE_MAX = 64;

/**
 * The field of a change to two-factor sign-in (new recovery codes, turning it off), which the core accepts with
 * either a code from the app or a recovery code: so no number pad and no six-digit bound.
 */
export function proofField(form: string): SafeHtml {
  return field({
    form,
    name: 'code',
    label: 'Code from your authenticator app, or a recovery code',
    autocomplete: 'one-time-code',
    missing: 'Enter a code from your authenticator app, or one of your recovery codes',
    maxLength: RECOVERY_CODE_MAX,
  });
}

/**
 * The six-digit field of the app's code, with the number pad on phones. No `maxlength`: apps show the code as
 * "123 456", and a bound of 6 would cut that paste to "123 45"; the script sends the digits without the space.
 */
export function totpField(form: string, label = 'Code from your authenticator app'): SafeHtml {
  return field({
    form,
    name: 'code',
    label,
    hint: `The ${TOTP_CODE_LENGTH} digits the app shows for this account now.`,
    autocomplete: 'one-time-code',
    inputMode: 'numeric',
    missing: 'Enter the code from your authenticator app',
  });
}
