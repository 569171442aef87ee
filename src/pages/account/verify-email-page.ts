import { emailField, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import { durationText } from '../policy-text';
import type { PageContext } from '../views/page-context';

/**
 * What the server found for the link's token: the registration it would confirm, none (no token, or one that is
 * unknown, spent or expired), or nothing known because the lookup failed.
 */
export type VerificationLink =
  { state: 'pending'; username: string } | { state: 'none'; tokenGiven: boolean } | { state: 'unavailable' };

/**
 * GET {prefix}/verify-email[?token=...]: the landing page of the verification link. Opening it changes nothing: the
 * token is spent only when the person presses the button (a POST), so mail scanners that follow links cannot use
 * it up. The page names the account the link would confirm, rendered by the server from the token, with a warning
 * for a person who did not choose that username: a link confirms one registration, and anyone can register with
 * any address. Without a live token the page offers a new link.
 */
export function verifyEmailPage({ prefix, verificationTokenTtlMs }: PageContext, link: VerificationLink): string {
  const id = 'resend-form';
  const confirm =
    link.state === 'pending'
      ? html`<section id="verify-confirm" aria-labelledby="verify-confirm-title">
<h2 id="verify-confirm-title">Confirm this address for the account <strong>${link.username}</strong></h2>
<p>This link confirms that your email address belongs to the account <strong>${link.username}</strong>, and to no other.</p>
<p><strong>If you did not choose the username ${link.username}, do not press the button:</strong> confirming would give
that account your address. Close this page instead; you can still sign up with this address yourself.</p>
<button type="button" id="verify-button">Confirm for ${link.username}</button>
</section>`
      : '';
  const notice =
    link.state === 'unavailable'
      ? html`<p id="verify-unavailable" role="alert">This link cannot be checked right now. Reload the page in a moment.</p>`
      : link.state === 'none' && link.tokenGiven
        ? html`<p id="verify-dead" role="alert">This link does not work: it was already used, has expired, or was
replaced by a newer one. Ask for a new link below.</p>`
        : '';
  const body = html`${notice}${confirm}
<section id="verify-done" hidden aria-labelledby="verify-done-title">
<h2 id="verify-done-title" tabindex="-1">Your email address is confirmed</h2>
<p><a href="${prefix}/login">Sign in</a> to your account.</p>
</section>
<section id="resend" aria-labelledby="resend-title"${link.state === 'pending' ? html` hidden` : ''}>
<h2 id="resend-title">Get a new verification link</h2>
<p>Verification links work once and expire after ${durationText(verificationTokenTtlMs)}. Enter the address you signed
up with and we will send a new one if the account still needs it.</p>
${form({
  id,
  action: `${prefix}/resend-verification`,
  submit: 'Send a new link',
  fields: [emailField(id)],
})}
</section>`;
  return layout({ prefix, title: 'Confirm your email address', page: 'verify-email', body });
}
