import type { FeatureKinds } from '../feature-kinds';

/**
 * Passkeys: a WebAuthn credential of kind `passkey`, whose proof records `hwk` (a key bound to one authenticator) or
 * `swk` (a key that may be synced, WebAuthn's backup-eligible flag), and `mfa` when the authenticator verified the
 * person (something held and something known or are, in one gesture). Each change is mailed to the owner and audited;
 * a sign-in, second factor or re-authentication by passkey is the `login`, `login_second_factor` or `reauthenticate`
 * event with `method: 'passkey'`.
 */
export const PASSKEY_KINDS = {
  credentials: { passkey: ['hwk', 'swk'] },
  links: [],
  notices: ['passkeyAdded', 'passkeyRemoved', 'passkeyCloneSuspected'],
  audit: [
    'passkey_added',
    'passkey_renamed',
    'passkey_removed',
    'passkey_clone_suspected',
    'admin.passkeys_listed',
    'admin.passkey_removed',
  ],
} as const satisfies FeatureKinds;
