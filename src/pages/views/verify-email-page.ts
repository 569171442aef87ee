import { emailField, form } from '../fields';
import { html } from '../html';
import { layout } from '../layout';
import { durationText } from '../policy-text';
import type { PageContext } from './page-context';

/**
 * GET {prefix}/verify-email[?token=...]: the landing page of the verification link. Opening it changes nothing: the
 * token is spent only when the person presses the button (a POST), so mail scanners that follow links cannot use
 * it up. Without a token, or when it fails, the page offers a new link.
 */
export function verifyEmailPage({ prefix, verificationTokenTtlMs }: PageContext): string {
  const id = 'resend-form';
  const body = html`<section id="verify-confirm" hidden>
<p>Press the button to confirm that this email address is yours.</p>
<button type="button" id="verify-button">Confirm my email address</button>
</section>
<section id="verify-done" hidden aria-labelledby="verify-done-title">
<h2 id="verify-done-title" tabindex="-1">Your email address is confirmed</h2>
<p><a href="${prefix}/login">Sign in</a> to your account.</p>
</section>
<section id="resend" aria-labelledby="resend-title">
<h2 id="resend-title">Get a new verification link</h2>
<p>Verification links work once and expire after ${durationText(verificationTokenTtlMs)}. Enter the address you signed
up with and we will send a new one if the account still needs it.</p>
${form({
  id,
  action: `${prefix}/resend-verification`,
  submit: 'Send a new link',
  fields: [
    emailField(id),
  ],
})}
</section>`;
  return layout({ prefix, title: 'Confirm your email address', page: 'verify-email', body });
}
