import { MAX_EMAIL } from '../../controllers/dto/bounds';
import { field, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import { reauthenticationPrompt } from '../reauthentication-prompt';
import type { PageContext } from '../views/page-context';

/** Why the prompt opens: an administrator with two-factor sign-in on is asked for a code as well. */
const CHANGE_NEEDS =
  'Changing an account needs your password, and a code as well while you have two-factor sign-in on.';

/** A role's name is at most 64 characters (the core's rule, `services/identity.ts`). */
const MAX_ROLE_NAME = 64;

/**
 * GET {prefix}/admin: the administration of accounts, for a signed-in person whose roles give the admin permissions.
 * It renders no account data: the script fills the user list (GET /admin/users, by prefix, a page at a time), the
 * picked user's details, the actions on them and their audit events from the JSON admin API, each value as text.
 * Without a session it offers to sign in; without the permission it shows the API's refusal and nothing else.
 * Every action that changes something needs the administrator proved recently: when the API answers
 * `reauthentication_required`, the page asks for the password, and a code too when the administrator's two-factor
 * sign-in is on (POST /reauthenticate, the prompt the security page shows: `reauthenticationPrompt`), and repeats
 * the action.
 */
export function adminPage({ prefix, reauthenticationWindowMs }: PageContext): string {
  const searchId = 'user-search-form';
  const roleId = 'role-form';
  const body = html`<section id="signed-out" hidden>
<p>You are not signed in.</p>
<p><a href="${prefix}/login">Sign in</a> with an administrator account to manage accounts.</p>
</section>
<section id="denied" hidden>
<p><a href="${prefix}/account">Back to your account</a></p>
</section>
<div id="signed-in" hidden>
<p><a href="${prefix}/account">Back to your account</a></p>
${reauthenticationPrompt(prefix, reauthenticationWindowMs, CHANGE_NEEDS)}
<section aria-labelledby="users-title">
<h2 id="users-title" tabindex="-1">Accounts</h2>
${form({
  id: searchId,
  action: `${prefix}/admin/users`,
  submit: 'Search',
  fields: [
    field({
      form: searchId,
      name: 'prefix',
      label: 'Username or email address starts with',
      hint: 'Leave it empty to list every account, newest first.',
      autocomplete: 'off',
      missing: 'Enter the start of a username or email address',
      maxLength: MAX_EMAIL,
      optional: true,
    }),
  ],
})}
<table id="users">
<thead><tr><th scope="col">Username</th><th scope="col">Email address</th><th scope="col">Verified</th>
<th scope="col">Disabled</th><th scope="col">Created</th></tr></thead>
<tbody id="users-body"></tbody>
</table>
<p id="users-empty" hidden>No account matches.</p>
<div class="actions">
<button type="button" id="users-next-button" class="secondary" hidden>Next page</button>
</div>
</section>
<section id="user" hidden aria-labelledby="user-title">
<h2 id="user-title" tabindex="-1"></h2>
<dl id="user-details"></dl>
<h3>Actions</h3>
<div class="actions">
<button type="button" id="disable-button" class="danger">Disable the account</button>
<button type="button" id="enable-button" hidden>Enable the account</button>
<button type="button" id="end-sessions-button">End all sessions</button>
<button type="button" id="verify-button">Mark the address verified</button>
<button type="button" id="resend-button" class="secondary">Resend the verification link</button>
<button type="button" id="delete-button" class="danger">Delete the account</button>
</div>
<section id="delete-confirm" hidden aria-labelledby="delete-confirm-title">
<h3 id="delete-confirm-title" tabindex="-1">Delete this account?</h3>
<p id="delete-confirm-text"></p>
<div class="actions">
<button type="button" id="delete-confirm-button" class="danger">Delete it for good</button>
<button type="button" id="delete-cancel-button" class="secondary">Cancel</button>
</div>
</section>
<h3 id="roles-title">Roles</h3>
<form id="${roleId}" method="post" action="${prefix}/admin/users" novalidate>
${field({
  form: roleId,
  name: 'role',
  label: 'Role name',
  hint: 'Granting needs an existing role; revoking takes the role away.',
  autocomplete: 'off',
  missing: 'Enter the name of a role',
  maxLength: MAX_ROLE_NAME,
})}
<div class="actions">
<button type="submit">Grant the role</button>
<button type="button" id="revoke-role-button" class="secondary">Revoke the role</button>
</div>
</form>
<h3 id="events-title" tabindex="-1">Audit events</h3>
<p>What was done by or to this account, newest first.</p>
<table id="events">
<thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Outcome</th>
<th scope="col">By</th><th scope="col">IP address</th><th scope="col">Details</th></tr></thead>
<tbody id="events-body"></tbody>
</table>
<p id="events-empty" hidden>No events.</p>
<div class="actions">
<button type="button" id="events-next-button" class="secondary" hidden>Older events</button>
</div>
</section>
</div>`;
  return layout({ prefix, title: 'Administration', page: 'admin', body, wide: true });
}
