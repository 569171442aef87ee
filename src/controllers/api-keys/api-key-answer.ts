import type { ApiKeyView, CreatedApiKey, ServiceAccountView } from '../../services/api-keys/api-key-views';

// The API keys' answers: snake_case like the rest of the API, instants as ISO strings; never a key's hash, and the key
// itself only in a creation's answer. Field names are the design's (docs/api-keys.md), the same the security page's
// script reads.

export interface ApiKeyAnswer {
  id: string;
  name: string;
  last_four: string;
  scopes: string[];
  created_at: string;
  expires_at: string;
  expired: boolean;
  last_used_at: string | null;
  last_used_ip: string | null;
  created_by: { id: string; username: string } | null;
}

const iso = (value: Date | string): string => (value instanceof Date ? value.toISOString() : value);
const isoOrNull = (value: Date | string | null): string | null => (value === null ? null : iso(value));
const person = (who: { id: string; username: string } | null) => (who ? { id: who.id, username: who.username } : null);

/** One key as listings show it, field by field (so a field the view may gain later is not sent unseen). */
export function apiKeyAnswer(view: ApiKeyView): ApiKeyAnswer {
  return {
    id: view.id,
    name: view.name,
    last_four: view.lastFour,
    scopes: [...view.scopes],
    created_at: iso(view.createdAt),
    expires_at: iso(view.expiresAt),
    expired: view.expired,
    last_used_at: isoOrNull(view.lastUsedAt),
    last_used_ip: view.lastUsedIp,
    created_by: person(view.createdBy),
  };
}

/** `GET /api-keys`, `GET /admin/users/:id/api-keys`. */
export function apiKeyListAnswer(views: readonly ApiKeyView[]): { api_keys: ApiKeyAnswer[] } {
  return { api_keys: views.map(apiKeyAnswer) };
}

/** A creation's answer: the key, shown this once, and its listing. */
export function createdApiKeyAnswer(created: CreatedApiKey): { key: string; api_key: ApiKeyAnswer } {
  return { key: created.key, api_key: apiKeyAnswer(created.apiKey) };
}

export interface ServiceAccountAnswer {
  id: string;
  username: string;
  roles: string[];
  created_at: string;
  created_by: { id: string; username: string } | null;
  disabled: boolean;
}

export function serviceAccountAnswer(view: ServiceAccountView): ServiceAccountAnswer {
  return {
    id: view.id,
    username: view.username,
    roles: [...view.roles],
    created_at: iso(view.createdAt),
    created_by: person(view.createdBy),
    disabled: view.disabled,
  };
}

export function serviceAccountListAnswer(views: readonly ServiceAccountView[]): {
  service_accounts: ServiceAccountAnswer[];
} {
  return { service_accounts: views.map(serviceAccountAnswer) };
}

/** A revocation of every key: how many went. */
export function revokedAnswer(revoked: number): { detail: string; revoked: number } {
  return { detail: revoked === 1 ? '1 API key revoked' : `${revoked} API keys revoked`, revoked };
}
