import { field, form } from './fields';
import { html, type SafeHtml } from './html';
import { passkeySecondFactorButton } from './passkey-fields';
import { durationText } from './policy-text';

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

/**
 * The second step of a sign-in, hidden until the first step (the password on the sign-in page, a provider on the
 * provider's return page) is answered with a challenge: a code from the app or, one click away, a recovery code, and
 * a passkey where passkeys are configured. One markup for both pages, which the script's `secondFactorStep` drives
 * by these ids. `lead` says what the first step proved.
 */
export function secondFactorStep({
  prefix,
  loginChallengeTtlMs,
  passkeys,
  lead,
}: {
  prefix: string;
  loginChallengeTtlMs: number;
  passkeys?: boolean;
  lead: string;
}): SafeHtml {
  const codeId = 'second-factor-form';
  const recoveryId = 'recovery-form';
  return html`<section id="second-factor" hidden aria-labelledby="second-factor-title">
<h2 id="second-factor-title" tabindex="-1">Two-factor sign-in</h2>
<p>${lead} Finish signing in within ${durationText(loginChallengeTtlMs)}.</p>
${form({
  id: codeId,
  action: `${prefix}/login/second-factor`,
  submit: 'Continue',
  fields: [totpField(codeId)],
})}
${form({
  id: recoveryId,
  action: `${prefix}/login/second-factor`,
  submit: 'Continue',
  hidden: true,
  fields: [
    field({
      form: recoveryId,
      name: 'recovery_code',
      label: 'Recovery code',
      hint: 'One of the codes you stored when you set up two-factor sign-in. Each works once.',
      autocomplete: 'one-time-code',
      missing: 'Enter one of your recovery codes',
      maxLength: RECOVERY_CODE_MAX,
    }),
  ],
})}
<div class="actions">
<button type="button" id="use-recovery-button" class="secondary">Use a recovery code</button>
<button type="button" id="use-totp-button" class="secondary" hidden>Use the code from my app</button>
${passkeys ? passkeySecondFactorButton() : ''}
<button type="button" id="second-factor-cancel" class="secondary">Start again</button>
</div>
</section>`;
}
