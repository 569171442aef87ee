import type { FeatureKinds } from '../feature-kinds';

/**
 * An API key is a credential of its own table (`api_keys`), not a sign-in method: it makes no session, so it records
 * no authentication method and is no `credentials` kind. Its owner is told by notice when a key is created and when
 * one is revoked by anyone but the owner (possession, an administrator). Every creation and revocation is audited with
 * the key's id and the actor; never the key or its hash.
 */
export const API_KEY_KINDS = {
  credentials: {},
  links: [],
  notices: ['apiKeyCreated', 'apiKeyRevoked'],
  audit: ['api_key_created', 'api_key_revoked', 'service_account_created', 'admin.api_keys_listed'],
} as const satisfies FeatureKinds;
