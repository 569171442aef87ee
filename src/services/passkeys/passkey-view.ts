import type { StoredPasskey } from './passkey-records';

/** A passkey's name: what a person types to tell their passkeys apart. */
export const MAX_PASSKEY_NAME = 64;

/**
 * A passkey as its owner (and an administrator) sees it: never its public key, credential id or the account's user
 * handle, which are the relying party's business only.
 */
export interface PasskeyView {
  /** Its public name in the API (the credential row's id). */
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** `synced` for a passkey that may live on several devices (backup-eligible), `device_bound` otherwise. */
  deviceType: 'synced' | 'device_bound';
}

export function passkeyView(passkey: StoredPasskey): PasskeyView {
  return {
    id: passkey.id,
    name: passkey.name,
    createdAt: new Date(passkey.createdAt),
    lastUsedAt: passkey.lastUsedAt && new Date(passkey.lastUsedAt),
    deviceType: passkey.backupEligible ? 'synced' : 'device_bound',
  };
}
