import type { AuthMethod } from './auth-methods';

/**
 * Every kind of credential an account can hold, each with the methods (RFC 8176, `AUTH_METHODS`) a proof of it
 * records on the session: the one list of them. A new way to sign in adds its kind here (passkeys `passkey`, with
 * `hwk` or `swk`; provider identities `oidc`, with `fed`) and names it in its feature's entry (`src/app/features.ts`).
 */
export const CREDENTIAL_KINDS = {
  password: ['pwd'],
  totp: ['otp'],
  recovery_code: ['lookup_secret'],
} as const satisfies Record<string, readonly AuthMethod[]>;

export type CredentialKind = keyof typeof CREDENTIAL_KINDS;

/**
 * The methods a sign-in that proved these credentials records on its session: each kind's, in order, and `mfa` when
 * more than one kind was proved. Read from `CREDENTIAL_KINDS`, so a new kind's methods are written there only.
 */
export function provedBy(...kinds: CredentialKind[]): readonly AuthMethod[] {
  const methods: AuthMethod[] = kinds.flatMap((kind) => CREDENTIAL_KINDS[kind]);
  if (kinds.length > 1) methods.push('mfa');
  return Object.freeze(methods);
}
