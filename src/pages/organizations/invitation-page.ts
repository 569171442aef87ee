import { html } from '../html';
import { layout } from '../layout';
import type { PageContext } from '../views/page-context';
import { ORGANIZATIONS_PAGE_PATH, organizationsOff } from './organizations-page';

/**
 * GET {prefix}/invitation?token=...: the landing page of an invitation's link. Opening it changes nothing: the
 * script takes the token out of the address bar, keeps it for this tab only (sessionStorage, never in a URL), shows
 * what the invitation is (POST /invitations/preview: the organization, the role, who invited, until when), and the
 * person chooses: Accept or Decline, each a POST with the session of the account that owns the invited address. A
 * newcomer is led to create that account and confirm the address first; signing in in this tab brings them back
 * here. The organization's name and the inviter's username are written in as text.
 */
export function invitationPage({ prefix, organizations }: PageContext): string {
  if (!organizations) return organizationsOff(prefix, 'Invitation');
  const body = html`<section id="invitation-working">
<p>Looking up your invitation…</p>
</section>
<section id="invitation-dead" hidden aria-labelledby="invitation-dead-title">
<h2 id="invitation-dead-title" tabindex="-1">This invitation does not work</h2>
<p>It was already accepted or declined, has expired, was cancelled, or was replaced by a newer one. Ask the person
who invited you to send a new one.</p>
<p><a href="${prefix}${ORGANIZATIONS_PAGE_PATH}">Your organizations</a></p>
</section>
<section id="invitation" hidden aria-labelledby="invitation-title">
<h2 id="invitation-title" tabindex="-1">You are invited to join <strong id="invitation-organization"></strong></h2>
<dl>
<dt>Role</dt><dd id="invitation-role"></dd>
<dt>Invited by</dt><dd id="invitation-by"></dd>
<dt>Answer by</dt><dd id="invitation-expires"></dd>
</dl>
<div id="invitation-signed-out" hidden>
<p>To accept, sign in with the account of the address this invitation was sent to.</p>
<div class="actions">
<a class="button" href="${prefix}/login">Sign in</a>
<a class="button secondary" href="${prefix}/register">Create an account</a>
</div>
<p>New here? Create an account with the address the invitation was sent to, and confirm it from the email we send
you. Then sign in in this tab: you come back to this page. Or open the invitation link from your email again.</p>
</div>
<div id="invitation-signed-in" hidden>
<p id="invitation-account"></p>
<div class="actions">
<button type="button" id="accept-button">Accept and join</button>
<button type="button" id="decline-button" class="secondary">Decline</button>
</div>
<p><button type="button" id="switch-account-button" class="secondary">Sign in with another account</button></p>
</div>
</section>
<section id="invitation-declined" hidden aria-labelledby="invitation-declined-title">
<h2 id="invitation-declined-title" tabindex="-1">You declined the invitation</h2>
<p>Nothing changed for your account. <a href="${prefix}${ORGANIZATIONS_PAGE_PATH}">Your organizations</a></p>
</section>`;
  return layout({ prefix, title: 'Invitation', page: 'invitation', body });
}
