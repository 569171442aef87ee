import { MAX_PASSWORD } from '../controllers/dto/bounds';
import { field, form } from './fields';
import { html, type SafeHtml } from './html';
import { passkeyReauthenticationButton } from './passkey-fields';
import { durationText } from './policy-text';
import { RECOVERY_CODE_MAX } from './second-factor-fields';

/** The id of the prompt's form; the script's `reauthentication()` drives it by this and the ids below. */
const FORM_ID = 'reauth-form';

/**
 * "Confirm it is you": the one re-authentication prompt of the pages that send changes needing a recent proof (the
 * security page, the administration page). It asks for the password, and for a code as well (from the app, or a
 * recovery code) while the person has two-factor sign-in on, since then the password alone leaves the session not
 * recent: the code's field is hidden and optional here, and the script shows it and makes it required. `why` opens
 * the prompt with the page's reason; the window in force follows it. With `passkeys` (configured) it offers a
 * passkey instead (POST /passkeys/reauthentication-options, then /passkeys/reauthenticate), which the script shows
 * when the account has one.
 */
export function reauthenticationPrompt(prefix: string, windowMs: number, why: string, passkeys = false): SafeHtml {
  return html`<section id="reauth" hidden aria-labelledby="reauth-title">
<h2 id="reauth-title" tabindex="-1">Confirm it is you</h2>
<p>${why} For the next ${durationText(windowMs)} this browser is not
asked again.</p>
${form({
  id: FORM_ID,
  action: `${prefix}/reauthenticate`,
  submit: 'Confirm and continue',
  fields: [
    field({
      form: FORM_ID,
      name: 'password',
      label: 'Your password',
      type: 'password',
      autocomplete: 'current-password',
      missing: 'Enter your password',
      maxLength: MAX_PASSWORD,
    }),
    html`<div id="reauth-code" hidden>
${field({
  form: FORM_ID,
  name: 'code',
  label: 'Code from your authenticator app, or a recovery code',
  hint: 'With two-factor sign-in on, confirming it is you takes a code too. A recovery code used here is spent.',
  autocomplete: 'one-time-code',
  missing: 'Enter a code from your authenticator app, or one of your recovery codes',
  maxLength: RECOVERY_CODE_MAX,
  optional: true,
})}
</div>`,
  ],
})}
${passkeys ? passkeyReauthenticationButton() : ''}
<p><button type="button" id="reauth-cancel" class="secondary">Cancel</button></p>
</section>`;
}
