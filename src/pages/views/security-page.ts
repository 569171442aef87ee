import { MAX_EMAIL, MAX_PASSWORD } from '../../controllers/dto/bounds';
import { checkbox, field, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import { durationText } from '../policy-text';
import type { PageContext } from './page-context';

/**
 * GET {prefix}/security: where the account is signed in (GET /sessions), each session with a button that ends it,
 * one that ends all the others, and the change of email address. Ending another session and changing the address
 * need the password proved recently: when the API answers `reauthentication_required`, the page asks for the
 * password (POST /reauthenticate) and then repeats what the person asked for. The table's rows are written by the
 * script, as text.
 */
export function securityPage({ prefix, emailChangeTokenTtlMs, reauthenticationWindowMs }: PageContext): string {
  const reauthId = 'reauth-form';
  const emailId = 'email-form';
  const body = html`<section id="signed-out" hidden>
<p>You are not signed in.</p>
<p><a href="${prefix}/login">Sign in</a> or <a href="${prefix}/register">create an account</a>.</p>
</section>
<div id="signed-in" hidden>
<p><a href="${prefix}/account">Back to your account</a></p>
<section id="reauth" hidden aria-labelledby="reauth-title">
<h2 id="reauth-title" tabindex="-1">Confirm it is you</h2>
<p>Enter your password to continue. For the next ${durationText(reauthenticationWindowMs)} this browser is not
asked again.</p>
${form({
  id: reauthId,
  action: `${prefix}/reauthenticate`,
  submit: 'Confirm and continue',
  fields: [
    field({
      form: reauthId,
      name: 'password',
      label: 'Your password',
      type: 'password',
      autocomplete: 'current-password',
      missing: 'Enter your password',
      maxLength: MAX_PASSWORD,
    }),
  ],
})}
<p><button type="button" id="reauth-cancel" class="secondary">Cancel</button></p>
</section>
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
  return layout({ prefix, title: 'Sessions and security', page: 'security', body, wide: true });
}
