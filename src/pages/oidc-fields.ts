import { html, type SafeHtml } from './html';
import type { OidcProviderName } from './views/page-context';

/*
 * The OpenID provider parts of the pages other slices own (the sign-in and sign-up pages, the security page): shared,
 * like passkey-fields.ts, since a slice never imports another feature's folder. Each is rendered only when providers
 * are configured; a provider's name is the deployer's text and goes in escaped, as every value of `html` does.
 */

/**
 * "Continue with <name>", one link per provider, to GET {prefix}/oidc/{id}/start: a plain link, since the start is
 * a redirect to the provider, and it works before the script runs. Not "Sign in with...": the password form's button
 * keeps the name "Sign in" to itself.
 */
export function providerSignIn(prefix: string, providers: readonly OidcProviderName[]): SafeHtml {
  if (providers.length === 0) return html``;
  return html`<div id="oidc-sign-in" class="actions oidc-sign-in">
${providers.map(
  ({
    id,
    name,
  }) => html`<a class="button secondary" id="oidc-start-${id}" href="${prefix}/oidc/${id}/start" data-provider-name="${name}">Continue with ${name}</a>
`,
)}</div>`;
}

/**
 * The security page's linked providers (GET /oidc/identities): a table the script writes as text (provider, the
 * address it gave when linked, linked, last used, and Unlink), and "Link <name>" for each configured provider, which
 * the script hides for those linked already. Linking (POST /oidc/{id}/link, then the provider) and unlinking need a
 * recent proof: the page's "confirm it is you" prompt asks for it when the API says so.
 */
export function linkedProvidersSection(providers: readonly OidcProviderName[]): SafeHtml {
  return html`<section id="oidc-identities" aria-labelledby="oidc-identities-title">
<h2 id="oidc-identities-title" tabindex="-1">Linked sign-in providers</h2>
<p>Each provider linked here can sign you in to this account. A provider is linked only from here, after you
confirm it is you: signing in with a provider never joins an account that already uses its address.</p>
<p id="oidc-identities-none" hidden>No provider is linked to your account.</p>
<table id="oidc-identities-table" hidden>
<thead><tr><th scope="col">Provider</th><th scope="col">Address it gave</th><th scope="col">Linked</th>
<th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody id="oidc-identities-body"></tbody>
</table>
<div class="actions" id="oidc-link-buttons">
${providers.map(
  ({
    id,
    name,
  }) => html`<button type="button" id="oidc-link-${id}" class="secondary" data-provider="${id}" data-provider-name="${name}" hidden>Link ${name}</button>
`,
)}</div>
</section>`;
}
