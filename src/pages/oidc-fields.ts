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
