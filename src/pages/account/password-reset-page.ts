import { MAX_PASSWORD } from '../../controllers/dto/bounds';
import { revokeApiKeysCheckbox } from '../api-key-fields';
import { emailField, field, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import { durationText, passwordHint } from '../policy-text';
import type { PageContext } from '../views/page-context';

/**
 * GET {prefix}/password-reset[?token=...]: without a token, the form that asks for a reset link; with the token of
 * the emailed link, the form that sets the new password (typed twice), and may revoke every API key with it (kept by
 * default: the success text says so and points to the security page). Opening the link changes nothing.
 */
export function passwordResetPage({ prefix, passwordPolicy, resetTokenTtlMs }: PageContext): string {
  const requestId = 'reset-request-form';
  const confirmId = 'reset-confirm-form';
  const body = html`<section id="reset-confirm" hidden aria-labelledby="reset-confirm-title">
<h2 id="reset-confirm-title">Choose a new password</h2>
${form({
  id: confirmId,
  action: `${prefix}/password-reset/confirm`,
  submit: 'Set the new password',
  fields: [
    field({
      form: confirmId,
      name: 'new_password',
      label: 'New password',
      type: 'password',
      autocomplete: 'new-password',
      hint: passwordHint(passwordPolicy),
      missing: 'Enter a new password',
      maxLength: MAX_PASSWORD,
    }),
    field({
      form: confirmId,
      name: 'new_password_again',
      label: 'New password again',
      type: 'password',
      autocomplete: 'new-password',
      missing: 'Enter the new password a second time',
      sameAs: { name: 'new_password', message: 'The two passwords are not the same' },
      maxLength: MAX_PASSWORD,
    }),
    revokeApiKeysCheckbox(confirmId),
  ],
})}
<p class="aside">Setting a new password signs you out everywhere.</p>
</section>
<section id="reset-done" hidden aria-labelledby="reset-done-title">
<h2 id="reset-done-title" tabindex="-1">Your password has been changed</h2>
<p><a href="${prefix}/login">Sign in</a> with the new password.</p>
<p id="reset-done-keys-kept">Your API keys keep working unless you revoke them. If one may have leaked, revoke it
on the <a href="${prefix}/security">security page</a> once you are signed in.</p>
<p id="reset-done-keys-revoked" hidden>Your API keys are revoked: programs using them are refused from now on. You
can create new ones on the <a href="${prefix}/security">security page</a>.</p>
</section>
<section id="reset-request" aria-labelledby="reset-request-title">
<h2 id="reset-request-title">Get a password reset link</h2>
<p>Enter the email address of your account. If it has one, we send it a link that works once, for
${durationText(resetTokenTtlMs)}. Your current password keeps working until you use the link.</p>
${form({
  id: requestId,
  action: `${prefix}/password-reset/request`,
  submit: 'Send the link',
  fields: [emailField(requestId)],
})}
</section>`;
  return layout({ prefix, title: 'Reset your password', page: 'password-reset', body });
}
