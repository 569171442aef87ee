import { MAX_PASSWORD } from '../../controllers/dto/bounds';
import { revokeApiKeysCheckbox } from '../api-key-fields';
import { field, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import { passwordHint } from '../policy-text';
import type { PageContext } from '../views/page-context';

/**
 * GET {prefix}/account: who is signed in (GET /me, whatever shape the host's serializer gives it), and the actions
 * on the account: change password, log out, log out everywhere, delete the account (the security page lists the
 * sessions one by one and changes the address), and, where organizations are on, a link to the person's
 * organizations (the organizations slice's page, `/my-organizations`). Without a session in this tab it offers to
 * sign in.
 */
export function accountPage({ prefix, passwordPolicy, organizations }: PageContext): string {
  const changeId = 'change-form';
  const deleteId = 'delete-form';
  const body = html`<section id="signed-out" hidden>
<p>You are not signed in.</p>
<p><a href="${prefix}/login">Sign in</a> or <a href="${prefix}/register">create an account</a>.</p>
</section>
<div id="signed-in" hidden>
<section aria-labelledby="me-title">
<h2 id="me-title">Your details</h2>
<dl id="me"></dl>
</section>
<section aria-labelledby="sessions-title">
<h2 id="sessions-title">Sessions</h2>
<p>Log out here, or on every device and browser where you are signed in. To see each of them, end one, or change
your email address, go to <a href="${prefix}/security">sessions and security</a>.</p>
<div class="actions">
<button type="button" id="logout-button">Log out</button>
<button type="button" id="logout-all-button">Log out everywhere</button>
</div>
</section>
${
  organizations
    ? html`<section aria-labelledby="organizations-title">
<h2 id="organizations-title">Organizations</h2>
<p>See the organizations you belong to, create one, and manage their members on
<a href="${prefix}/my-organizations">your organizations</a>.</p>
</section>`
    : ''
}
<section aria-labelledby="change-title">
<h2 id="change-title">Change your password</h2>
<p>Changing your password signs you out everywhere, this browser included. Your API keys keep working unless you
revoke them too.</p>
${form({
  id: changeId,
  action: `${prefix}/password/change`,
  submit: 'Change password',
  fields: [
    field({
      form: changeId,
      name: 'old_password',
      label: 'Current password',
      type: 'password',
      autocomplete: 'current-password',
      missing: 'Enter your current password',
      maxLength: MAX_PASSWORD,
    }),
    field({
      form: changeId,
      name: 'new_password',
      label: 'New password',
      type: 'password',
      autocomplete: 'new-password',
      hint: `${passwordHint(passwordPolicy)} It must differ from the current one.`,
      missing: 'Enter a new password',
      maxLength: MAX_PASSWORD,
    }),
    field({
      form: changeId,
      name: 'new_password_again',
      label: 'New password again',
      type: 'password',
      autocomplete: 'new-password',
      missing: 'Enter the new password a second time',
      sameAs: { name: 'new_password', message: 'The two new passwords are not the same' },
      maxLength: MAX_PASSWORD,
    }),
    revokeApiKeysCheckbox(changeId),
  ],
})}
</section>
<section aria-labelledby="delete-title">
<h2 id="delete-title">Delete your account</h2>
<p>This deletes your account and signs you out everywhere. It cannot be undone.</p>
${form({
  id: deleteId,
  action: `${prefix}/account`,
  submit: 'Delete my account',
  buttonClass: 'danger',
  fields: [
    field({
      form: deleteId,
      name: 'password',
      label: 'Your password, to confirm',
      type: 'password',
      autocomplete: 'current-password',
      missing: 'Enter your password to confirm the deletion',
      maxLength: MAX_PASSWORD,
    }),
  ],
})}
</section>
</div>`;
  return layout({ prefix, title: 'Your account', page: 'account', body });
}
