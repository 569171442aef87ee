import { MAX_EMAIL } from '../../controllers/dto/bounds';
import { apiKeysSection } from '../api-key-fields';
import { checkbox, field, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import { linkedProvidersSection } from '../oidc-fields';
import { durationText } from '../policy-text';
import { passkeysSection } from '../passkey-fields';
import { reauthenticationPrompt } from '../reauthentication-prompt';
import { proofField, totpField } from '../second-factor-fields';
import type { PageContext } from '../views/page-context';

/**
 * GET {prefix}/security: where the account is signed in (GET /sessions), each session with a button that ends it,
 * one that ends all the others, and the change of email address. Ending another session and changing the address
 * need the password proved recently: when the API answers `reauthentication_required`, the page asks for the
 * password (POST /reauthenticate), and a code too when two-factor sign-in is on (`reauthenticationPrompt`, shared
 * with the administration page), and then repeats what the person asked for. The table's rows are written by the
 * script, as text. Two-factor sign-in is set up, renewed and turned off here too (`secondFactorSection`), and, when
 * passkeys are configured, passkeys are listed, added, renamed and removed (`passkeysSection`, shared markup),
 * and, when OpenID providers are configured, the linked providers are listed, linked and unlinked
 * (`linkedProvidersSection`). API keys are listed, created (the key shown this once), and revoked one or all
 * (`apiKeysSection`, shared markup).
 */
export function securityPage({
  prefix,
  emailChangeTokenTtlMs,
  reauthenticationWindowMs,
  passkeys,
  oidcProviders = [],
  apiKeys = { defaultDays: 30, maxDays: 366 },
}: PageContext): string {
  const emailId = 'email-form';
  const body = html`<section id="signed-out" hidden>
<p>You are not signed in.</p>
<p><a href="${prefix}/login">Sign in</a> or <a href="${prefix}/register">create an account</a>.</p>
</section>
<div id="signed-in" hidden>
<p><a href="${prefix}/account">Back to your account</a></p>
${reauthenticationPrompt(prefix, reauthenticationWindowMs, 'Enter your password to continue.', passkeys)}
<section aria-labelledby="sessions-title">
<h2 id="sessions-title">Where you are signed in</h2>
<p>Each row is a browser or app signed in to your account. End any you do not recognise, then change your
password.</p>
<table id="sessions">
<thead><tr><th scope="col">Device</th><th scope="col">IP address</th><th scope="col">Last used</th>
<th scope="col">Signed in</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody id="sessions-body"></tbody>
</table>
<div class="actions">
<button type="button" id="end-others-button" class="danger">End all other sessions</button>
</div>
</section>
${passkeys ? passkeysSection(prefix) : ''}
${oidcProviders.length > 0 ? linkedProvidersSection(oidcProviders) : ''}
${secondFactorSection(prefix)}
${apiKeysSection(prefix, apiKeys)}
<section aria-labelledby="email-title">
<h2 id="email-title">Change your email address</h2>
<p>We send a link to the new address; nothing changes until you open it and confirm, within
${durationText(emailChangeTokenTtlMs)}. Your current address is told of the request, and keeps working until then.</p>
${form({
  id: emailId,
  action: `${prefix}/email-change`,
  submit: 'Send the confirmation link',
  fields: [
    field({
      form: emailId,
      name: 'new_email',
      label: 'New email address',
      type: 'email',
      autocomplete: 'email',
      missing: 'Enter the new email address',
      maxLength: MAX_EMAIL,
    }),
    checkbox({
      form: emailId,
      name: 'end_other_sessions',
      label: 'Sign out my other devices',
      hint: 'When the change is confirmed, every other session ends; this one stays.',
      checked: true,
    }),
  ],
})}
</section>
</div>`;
  return layout({ prefix, title: 'Sessions and security', page: 'security', body, wide: true, webauthn: passkeys });
}

/**
 * Two-factor sign-in: its state (GET /second-factor) and, when off, the set-up: the QR code and the secret as text
 * (POST /second-factor/totp), the first code to confirm, then the recovery codes, shown this once. When on: how many
 * recovery codes are left, new ones, and turning it off, each proved with a code. The script decides which part
 * shows and writes every value in as text (the QR code as an image's data: URL, never as markup).
 */
function secondFactorSection(prefix: string) {
  const confirmId = 'totp-confirm-form';
  const renewId = 'recovery-codes-form';
  const disableId = 'second-factor-disable-form';
  return html`<section id="second-factor" aria-labelledby="second-factor-title">
<h2 id="second-factor-title" tabindex="-1">Two-factor sign-in</h2>
<p id="second-factor-status"></p>
<div id="second-factor-off" hidden>
<p>With two-factor sign-in, signing in takes your password and a code from an authenticator app on your phone, so a
stolen password alone is not enough.</p>
<div class="actions">
<button type="button" id="second-factor-setup-button">Set up two-factor sign-in</button>
</div>
</div>
<section id="second-factor-enrol" hidden aria-labelledby="second-factor-enrol-title">
<h3 id="second-factor-enrol-title" tabindex="-1">Scan this code with your authenticator app</h3>
<p><img id="second-factor-qr" class="qr" alt="QR code to add this account to an authenticator app" width="200"
height="200" hidden></p>
<p>Cannot scan it? Enter this key in the app instead:</p>
<p><code id="second-factor-secret"></code></p>
${form({
  id: confirmId,
  action: `${prefix}/second-factor/totp/confirm`,
  submit: 'Turn on two-factor sign-in',
  fields: [
    totpField(confirmId, 'Then enter the code the app shows'),
    checkbox({
      form: confirmId,
      name: 'end_other_sessions',
      label: 'End my other sessions',
      hint: 'Every other device signed in to this account is signed out as two-factor sign-in goes on; this one stays.',
      checked: true,
    }),
  ],
})}
</section>
<section id="recovery-codes" hidden aria-labelledby="recovery-codes-title">
<h3 id="recovery-codes-title" tabindex="-1">Your recovery codes</h3>
<p><strong>Store these codes somewhere safe now: they are shown only this once.</strong> If you lose your phone, each
one signs you in once instead of a code from the app.</p>
<ul id="recovery-codes-list" class="codes"></ul>
<div class="actions">
<button type="button" id="recovery-codes-done">I have stored them</button>
</div>
</section>
<div id="second-factor-on" hidden>
<p id="recovery-codes-left"></p>
<h3 id="renew-title">New recovery codes</h3>
<p>New codes replace every code you have now.</p>
${form({ id: renewId, action: `${prefix}/second-factor/recovery-codes`, submit: 'New recovery codes', fields: [proofField(renewId)] })}
<h3 id="disable-title">Turn off two-factor sign-in</h3>
<p>Signing in then takes your password alone.</p>
${form({
  id: disableId,
  action: `${prefix}/second-factor/disable`,
  submit: 'Turn off',
  buttonClass: 'danger',
  fields: [proofField(disableId)],
})}
</div>
</section>`;
}
