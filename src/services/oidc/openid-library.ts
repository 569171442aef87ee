import type * as OpenIdClient from 'openid-client';

// Loaded on the first provider flow, not at start, as the passkeys' library is: a deployment without providers never
// pays for it. openid-client is ESM; Node >= 20.19 `require()`s it from our CommonJS build.
let loading: Promise<typeof OpenIdClient> | undefined;

/** `openid-client`, which builds every request and validates every answer: Gatehouse writes no JWT, JWKS or PKCE code. */
export function openidLibrary(): Promise<typeof OpenIdClient> {
  loading ??= import('openid-client');
  return loading;
}
