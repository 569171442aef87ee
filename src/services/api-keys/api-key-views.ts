/** A key as its owner and administrators see it: never the key, never its hash. */
export interface ApiKeyView {
  id: string;
  name: string;
  /** The key's last four characters. */
  lastFour: string;
  scopes: readonly string[];
  createdAt: Date;
  expiresAt: Date;
  /** True once `expiresAt` has passed (the key is refused; `cleanup` removes it). */
  expired: boolean;
  lastUsedAt: Date | null;
  lastUsedIp: string | null;
  /** Who created it (the owner, or an administrator for a service account); null once that account is deleted. */
  createdBy: { id: string; username: string } | null;
}

/** The answer to a creation: the key itself, shown this once, and its listing. */
export interface CreatedApiKey {
  key: string;
  apiKey: ApiKeyView;
}

/** What creating a key asks: the owner's words for it, its scopes, and how many days it lives. */
export interface ApiKeyInput {
  name: string;
  scopes: readonly string[];
  /** Whole days, 1 to `apiKeyMaxLifetimeDays`; `apiKeyDefaultLifetimeDays` when absent. */
  expiresInDays?: number;
}

/** A service account as administrators see it. */
export interface ServiceAccountView {
  id: string;
  username: string;
  roles: readonly string[];
  createdAt: Date;
  createdBy: { id: string; username: string } | null;
  disabled: boolean;
}

/** What a request authenticated with a key carries (`@CurrentCredential()` gives it with `kind: 'api_key'`). */
export interface ApiKeyCredential {
  kind: 'api_key';
  keyId: string;
  scopes: readonly string[];
}

/** Why a key was revoked, as its audit event records it. */
export type ApiKeyRevocationReason =
  'owner' | 'owner_all' | 'password_reset' | 'password_change' | 'possession' | 'administrator' | 'account_disabled';
