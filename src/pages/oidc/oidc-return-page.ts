import { html } from '../html';
import { layout } from '../layout';
import { secondFactorStep } from '../second-factor-fields';
import type { PageContext } from '../views/page-context';

/**
 * GET {prefix}/oidc/return: where a provider's sign-in or link comes back to, with a one-time code (or an error) in
 * the fragment, which no server and no Referer ever sees. The script takes it out of the address bar at once, sends
 * the code to POST /oidc/exchange, and then opens the account page (signed in), shows the second step of a sign-in
 * (the same as the sign-in page's), goes back to the security page (linked), or says why not: an account already
 * holds the provider's address (`link_required`), or another refusal. Every text of an answer goes in as text.
 */
export function oidcReturnPage({ prefix, loginChallengeTtlMs, passkeys }: PageContext): string {
  const body = html`<section id="oidc-working">
<p>Finishing what you started at your provider…</p>
</section>
${secondFactorStep({ prefix, loginChallengeTtlMs, passkeys, lead: 'Your provider confirmed who you are.' })}
<section id="oidc-link-required" hidden aria-labelledby="oidc-link-required-title">
<h2 id="oidc-link-required-title" tabindex="-1">This address has an account already</h2>
<p id="oidc-link-required-text"></p>
<p>Nothing was linked and no account was created. The account’s owner has been sent a notice.</p>
<p><a href="${prefix}/login">Go to the sign-in page</a></p>
</section>
<section id="oidc-failed" hidden>
<p><a href="${prefix}/login">Back to the sign-in page</a></p>
</section>`;
  return layout({ prefix, title: 'Back from your provider', page: 'oidc-return', body, webauthn: passkeys });
}
