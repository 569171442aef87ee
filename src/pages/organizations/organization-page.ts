import { MAX_EMAIL } from '../../controllers/dto/bounds';
import { field, form } from '../fields';
import { html, type SafeHtml } from '../html';
import { layout } from '../layout';
import { durationText } from '../policy-text';
import { reauthenticationPrompt } from '../reauthentication-prompt';
import type { OrganizationRoleName, PageContext } from '../views/page-context';
import { MAX_ORGANIZATION_NAME, ORGANIZATIONS_PAGE_PATH, organizationsOff } from './organizations-page';

/** Why the prompt opens: handing the ownership over and deleting need a recent proof. */
const CHANGE_NEEDS = 'Handing the ownership over and deleting an organization need your password.';

/**
 * GET {prefix}/organization#id=<id>: one organization of the person signed in. The id rides in the fragment, which
 * no server, log or Referer sees, and which stays for a reload. The script reads the organization
 * (GET /organizations/{id}: the caller's role and permissions there), its members (with `gatehouse.members.read`)
 * and its pending invitations (with `gatehouse.members.manage`), and shows only the actions the caller's
 * permissions allow: changing a role (to the roles the caller may give: the template's, rendered here), removing a
 * member, inviting, resending and cancelling invitations, renaming, handing the ownership over (owners), leaving,
 * and deleting. The API decides each one again; the page only spares the person buttons that would be refused.
 * Transfer and deletion open the "confirm it is you" prompt when the API asks for a recent proof. Names, usernames
 * and addresses are written in as text.
 */
export function organizationPage({ prefix, reauthenticationWindowMs, organizations, passkeys }: PageContext): string {
  if (!organizations) return organizationsOff(prefix, 'Organization');
  const renameId = 'rename-form';
  const inviteId = 'invite-form';
  const body = html`<section id="signed-out" hidden>
<p>You are not signed in.</p>
<p><a href="${prefix}/login">Sign in</a> or <a href="${prefix}/register">create an account</a>.</p>
</section>
<section id="missing" hidden>
<p>There is no such organization, or you are not one of its members.</p>
<p><a href="${prefix}${ORGANIZATIONS_PAGE_PATH}">Your organizations</a></p>
</section>
${roleTemplate(organizations.roles)}
<div id="signed-in" hidden>
<p><a href="${prefix}${ORGANIZATIONS_PAGE_PATH}">Back to your organizations</a></p>
${reauthenticationPrompt(prefix, reauthenticationWindowMs, CHANGE_NEEDS, passkeys)}
<section aria-labelledby="organization-name">
<h2 id="organization-name" tabindex="-1"></h2>
<p id="organization-summary"></p>
<div id="rename" hidden>
${form({
  id: renameId,
  action: `${prefix}/organizations`,
  submit: 'Rename',
  buttonClass: 'secondary',
  fields: [
    field({
      form: renameId,
      name: 'name',
      label: 'New name',
      autocomplete: 'organization',
      missing: 'Enter the new name',
      maxLength: MAX_ORGANIZATION_NAME,
    }),
  ],
})}
</div>
</section>
<section id="members-section" hidden aria-labelledby="members-title">
<h2 id="members-title" tabindex="-1">Members</h2>
<table id="members">
<thead><tr><th scope="col">Username</th><th scope="col" id="members-email-column" hidden>Email address</th>
<th scope="col">Role</th><th scope="col">Joined</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody id="members-body"></tbody>
</table>
</section>
<section id="invite-section" hidden aria-labelledby="invite-title">
<h2 id="invite-title" tabindex="-1">Invite someone</h2>
<p>We email them a link that works for ${durationText(organizations.invitationTtlMs)}. Only an account with that
address, once the address is confirmed, can accept it. Inviting the same address again replaces the earlier link.</p>
<form id="${inviteId}" method="post" action="${prefix}/organizations" novalidate>
${field({
  form: inviteId,
  name: 'email',
  label: 'Their email address',
  type: 'email',
  autocomplete: 'off',
  missing: 'Enter the address to invite',
  maxLength: MAX_EMAIL,
})}
<div class="field">
<label for="${inviteId}-role">Role</label>
<p class="hint" id="${inviteId}-role-hint">Only the roles you may give are listed.</p>
<select id="${inviteId}-role" name="role" aria-describedby="${inviteId}-role-hint"></select>
</div>
<button type="submit">Send the invitation</button>
</form>
</section>
<section id="invitations-section" hidden aria-labelledby="invitations-title">
<h2 id="invitations-title" tabindex="-1">Pending invitations</h2>
<table id="invitations">
<thead><tr><th scope="col">Email address</th><th scope="col">Role</th><th scope="col">Invited by</th>
<th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody id="invitations-body"></tbody>
</table>
<p id="invitations-empty" hidden>No invitation is waiting for an answer.</p>
</section>
<section aria-labelledby="leave-title">
<h2 id="leave-title">Leave or delete</h2>
<p id="leave-text">Leaving takes away your access to this organization at once. An organization keeps at least one
owner: the last owner hands the ownership to another member first, or deletes the organization.</p>
<div class="actions">
<button type="button" id="leave-button" class="secondary">Leave the organization</button>
<button type="button" id="delete-button" class="danger" hidden>Delete the organization</button>
</div>
<section id="delete-confirm" hidden aria-labelledby="delete-confirm-title">
<h3 id="delete-confirm-title" tabindex="-1">Delete this organization?</h3>
<p id="delete-confirm-text"></p>
<div class="actions">
<button type="button" id="delete-confirm-button" class="danger">Delete it for good</button>
<button type="button" id="delete-cancel-button" class="secondary">Cancel</button>
</div>
</section>
<section id="transfer-confirm" hidden aria-labelledby="transfer-confirm-title">
<h3 id="transfer-confirm-title" tabindex="-1">Hand the ownership over?</h3>
<p id="transfer-confirm-text"></p>
<div class="actions">
<button type="button" id="transfer-confirm-button" class="danger">Make them the owner</button>
<button type="button" id="transfer-cancel-button" class="secondary">Cancel</button>
</div>
</section>
</section>
</div>`;
  return layout({ prefix, title: 'Organization', page: 'organization', body, wide: true, webauthn: passkeys });
}

/**
 * The role template in force, for the script: which roles there are and what each may do, so that it offers only
 * the roles the signed-in member may give. Not shown.
 */
function roleTemplate(roles: readonly OrganizationRoleName[]): SafeHtml {
  return html`<ul id="organization-roles" hidden>
${roles.map(
  (role) => html`<li data-role="${role.name}" data-permissions="${role.permissions.join(' ')}">${role.name}</li>
`,
)}</ul>`;
}
