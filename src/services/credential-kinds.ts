import type { AuthMethod } from './auth-methods';
import { KINDS_OF_FEATURES } from './kinds-of-features';

/** Read feature by feature: `keyof` of the union of their credentials would keep only the keys every feature has. */
export type CredentialKind = (typeof KINDS_OF_FEATURES)[number] extends infer Feature
  ? Feature extends { credentials: infer Kinds }
    ? keyof Kinds
    : never
  : never;

/**
 * Every kind of credential an account can hold, each with the methods (RFC 8176, `AUTH_METHODS`) a proof of it
 * records on the session, gathered from the features' kinds. A new way to sign in declares its kind in its slice's
 * kinds (passkeys `passkey`, with `hwk` or `swk`; provider identities `oidc`, with `fed`).
 */
export const CREDENTIAL_KINDS: { readonly [K in CredentialKind]: readonly AuthMethod[] } = Object.freeze(
  Object.assign({}, ...KINDS_OF_FEATURES.map((feature) => feature.credentials)),
);

/**
 * The methods a sign-in that proved these credentials records on its session: each kind's, in order, and `mfa` when
 * more than one kind was proved. Read from `CREDENTIAL_KINDS`, so a new kind's methods are written there only.
 */
export function provedBy(...kinds: CredentialKind[]): readonly AuthMethod[] {
  const methods: AuthMethod[] = kinds.flatMap((kind) => CREDENTIAL_KINDS[kind]);
  if (kinds.length > 1) methods.push('mfa');
  return Object.freeze(methods);
}
