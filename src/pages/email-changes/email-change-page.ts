import { html } from '../html';
import { layout } from '../layout';
import type { PageContext } from '../views/page-context';

/**
 * What the server found for the link's token: the change it would make, none (no token, or one that is unknown,
 * spent, expired or superseded), or nothing known because the lookup failed.
 */
export type EmailChangeLink =
  | { state: 'pending'; username: string; newEmail: string }
  | { state: 'none'; tokenGiven: boolean }
  | { state: 'unavailable' };

/**
 * GET {prefix}/email-change/confirm[?token=...]: the landing page of the link sent to the new address. Opening it
 * changes nothing (mail scanners follow links): the page names the account and the address, and the change is made
 * by the POST its button sends.
 */
export function emailChangePage({ prefix }: PageContext, link: EmailChangeLink): string {
  const confirm =
    link.state === 'pending'
      ? html`<section id="email-change-confirm" aria-labelledby="email-change-confirm-title">
<h2 id="email-change-confirm-title">Make <strong>${link.newEmail}</strong> the address of <strong>${link.username}</strong></h2>
<p>Pressing the button makes <strong>${link.newEmail}</strong> the email address of the account
<strong>${link.username}</strong>. Messages about the account then go to this address, and the previous address is
told of the change.</p>
<p><strong>If you did not ask for this change, do not press the button.</strong> Close this page instead.</p>
<button type="button" id="email-change-button">Use ${link.newEmail}</button>
</section>`
      : '';
  const notice =
    link.state === 'unavailable'
      ? html`<p id="email-change-unavailable" role="alert">This link cannot be checked right now. Reload the page in a
moment.</p>`
      : link.state === 'none'
        ? html`<section id="email-change-dead">
<p${link.tokenGiven ? html` role="alert"` : ''}>${
            link.tokenGiven
              ? 'This link does not work: it was already used, has expired, or was replaced by a newer request.'
              : 'This page confirms a change of email address. Open the link in the email we sent to the new address.'
          }</p>
<p>To change your address, ask again from <a href="${prefix}/security">your security page</a>.</p>
</section>`
        : '';
  const body = html`${notice}${confirm}
<section id="email-change-done" hidden aria-labelledby="email-change-done-title">
<h2 id="email-change-done-title" tabindex="-1">Your email address is changed</h2>
<p>Go to <a href="${prefix}/account">your account</a>.</p>
</section>
<section id="email-change-failed" hidden>
<p>To change your address, ask again from <a href="${prefix}/security">your security page</a>.</p>
</section>`;
  return layout({ prefix, title: 'Confirm your new email address', page: 'email-change-confirm', body });
}
