import type { FeatureKinds } from '../feature-kinds';

/**
 * Sign-in with OpenID providers: an identity (issuer, subject) is a credential of kind `oidc`, whose proof records
 * `fed` (RFC 8176: federated); a sign-in by one is the `login` event with `method: 'oidc'`. Each link and unlink is mailed to the owner and audited, and so is a provider sign-in
 * refused because the address belongs to an account (`oidcLinkRequired`: the owner learns someone tried).
 */
export const OIDC_KINDS = {
  credentials: { oidc: ['fed'] },
  links: [],
  notices: ['oidcLinked', 'oidcUnlinked', 'oidcLinkRequired'],
  audit: ['oidc_linked', 'oidc_unlinked', 'oidc_account_created', 'oidc_link_required', 'admin.oidc_unlinked'],
} as const satisfies FeatureKinds;
