import type { ApiKeyView, CreatedApiKey, ServiceAccountView } from '../../services/api-keys/api-key-views';

// The API keys' answers: instants as ISO strings; never a key's hash, and the key itself only in a creation's answer.
// Field names are the design's (docs/api-keys.md), the same the security page's script reads.

export interface ApiKeyAnswer {
  id: string;
  name: string;
  lastFour: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string;
  expired: boolean;
  lastUsedAt: string | null;
  lastUsedIp: string | null;
  createdBy: { id: string; username: string } | null;
}

const iso = (value: Date | string): string => (value instanceof Date ? value.toISOString() : value);
const isoOrNull = (value: Date | string | null): string | null => (value === null ? null : iso(value));
const person = (who: { id: string; username: string } | null) => (who ? { id: who.id, username: who.username } : null);

/** One key as listings show it, field by field (so a field the view may gain later is not sent unseen). */
export function apiKeyAnswer(view: ApiKeyView): ApiKeyAnswer {
  return {
    id: view.id,
    name: view.name,
    lastFour: view.lastFour,
    scopes: [...view.scopes],
    createdAt: iso(view.createdAt),
    expiresAt: iso(view.expiresAt),
    expired: view.expired,
    lastUsedAt: isoOrNull(view.lastUsedAt),
    lastUsedIp: view.lastUsedIp,
    createdBy: person(view.createdBy),
  };
}

/** `GET /api-keys`, `GET /admin/users/:id/api-keys`. */
export function apiKeyListAnswer(views: readonly ApiKeyView[]): { apiKeys: ApiKeyAnswer[] } {
  return { apiKeys: views.map(apiKeyAnswer) };
}

/** A creation's answer: the key, shown this once, and its listing. */
export function createdApiKeyAnswer(created: CreatedApiKey): { key: string; apiKey: ApiKeyAnswer } {
  return { key: created.key, apiKey: apiKeyAnswer(created.apiKey) };
}

export interface ServiceAccountAnswer {
  id: string;
  username: string;
  roles: string[];
  createdAt: string;
  createdBy: { id: string; username: string } | null;
  disabled: boolean;
}

export function serviceAccountAnswer(view: ServiceAccountView): ServiceAccountAnswer {
  return {
    id: view.id,
    username: view.username,
    roles: [...view.roles],
    createdAt: iso(view.createdAt),
    createdBy: person(view.createdBy),
    disabled: view.disabled,
  };
}

export function serviceAccountListAnswer(views: readonly ServiceAccountView[]): {
  serviceAccounts: ServiceAccountAnswer[];
} {
  return { serviceAccounts: views.map(serviceAccountAnswer) };
}

/** A revocation of every key: how many went. */
export function revokedAnswer(revoked: number): { detail: string; revoked: number } {
  return { detail: revoked === 1 ? '1 API key revoked' : `${revoked} API keys revoked`, revoked };
}
