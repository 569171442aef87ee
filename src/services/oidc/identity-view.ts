import type { StoredIdentity } from './identity-records';
import type { OidcSettings } from './oidc-options';

/** A linked identity as its owner and the operator see it: never the subject or issuer's tokens. */
export interface IdentityView {
  /** The identity's id (a credential row's): what unlinking names. */
  id: string;
  /** The provider's id at link time. */
  provider: string;
  /** The provider's name now, or its id when it is no longer configured. */
  providerName: string;
  /** The address the provider gave when it was linked. */
  email: string | null;
  linkedAt: string;
  lastUsedAt: string | null;
  /** Whether its provider is configured now: an identity of a removed provider signs nobody in. */
  configured: boolean;
}

/** The view of a stored identity, named by its provider as configured now. */
export function identityView(identity: StoredIdentity, settings: OidcSettings | null): IdentityView {
  const provider = settings?.providers.get(identity.provider);
  return {
    id: identity.id,
    provider: identity.provider,
    providerName: provider?.name ?? identity.provider,
    email: identity.email,
    linkedAt: identity.createdAt.toISOString(),
    lastUsedAt: identity.lastUsedAt?.toISOString() ?? null,
    configured: provider !== undefined,
  };
}
