import { ref, type JsonObject } from '../schema-ref';

const ISO_INSTANT = { type: 'string', format: 'date-time' };
const PERSON: JsonObject = {
  type: ['object', 'null'],
  required: ['id', 'username'],
  properties: { id: { type: 'string' }, username: { type: 'string' } },
};

/**
 * The API keys' answers (`controllers/api-keys/api-key-answer.ts` writes them): a key as listings show it, never the
 * key or its hash; the creation's answer, the one place the key appears; and the service accounts.
 */
export function apiKeySchemas(): Record<string, JsonObject> {
  return {
    ApiKey: {
      type: 'object',
      description: 'An API key as its owner and administrators see it: never the key itself, never its hash.',
      required: [
        'id',
        'name',
        'last_four',
        'scopes',
        'created_at',
        'expires_at',
        'expired',
        'last_used_at',
        'last_used_ip',
        'created_by',
      ],
      properties: {
        id: { type: 'string', description: 'Its id, for `DELETE /api-keys/{keyId}`.' },
        name: { type: 'string' },
        last_four: { type: 'string', minLength: 4, maxLength: 4, description: 'The key’s last four characters.' },
        scopes: {
          type: 'array',
          items: { type: 'string' },
          description: 'The permissions it may use, sorted; a host route still needs the owner to hold them.',
        },
        created_at: ISO_INSTANT,
        expires_at: { ...ISO_INSTANT, description: 'It is refused from this instant on.' },
        expired: { type: 'boolean', description: 'True once `expires_at` has passed; the clean-up removes it.' },
        last_used_at: {
          type: ['string', 'null'],
          format: 'date-time',
          description: 'Its last accepted use, written at most once per refresh interval; null until then.',
        },
        last_used_ip: { type: ['string', 'null'], description: 'The client address of that use.' },
        created_by: {
          ...PERSON,
          description:
            'Who created it: the owner, or the administrator who made it for a service account; null once deleted.',
        },
      },
    },
    ApiKeyList: {
      type: 'object',
      required: ['api_keys'],
      properties: { api_keys: { type: 'array', items: ref('ApiKey') } },
    },
    CreatedApiKey: {
      type: 'object',
      required: ['key', 'api_key'],
      properties: {
        key: {
          type: 'string',
          pattern: '^[a-z0-9_]{3,24}_[0-9A-Za-z]{38}$',
          description:
            'The key, shown this once: `{prefix}_`, 32 random base62 characters and 6 of checksum (docs/api-keys.md). ' +
            'Send it as `Authorization: Bearer <key>` to the host’s routes.',
        },
        api_key: ref('ApiKey'),
      },
    },
    ApiKeyScopes: {
      type: 'object',
      required: ['scopes'],
      properties: {
        scopes: {
          type: 'array',
          items: { type: 'string' },
          description: 'The permissions a new key of the caller may have, sorted.',
        },
      },
    },
    ApiKeysRevoked: {
      type: 'object',
      required: ['detail', 'revoked'],
      properties: {
        detail: { type: 'string' },
        revoked: { type: 'integer', minimum: 0, description: 'How many keys went.' },
      },
    },
    ServiceAccount: {
      type: 'object',
      description:
        'An account for a machine: no password, no mailbox, no sign-in; only administrators manage its keys.',
      required: ['id', 'username', 'roles', 'created_at', 'created_by', 'disabled'],
      properties: {
        id: { type: 'string', description: 'Its account id, for the admin user routes and its keys’ routes.' },
        username: { type: 'string' },
        roles: { type: 'array', items: { type: 'string' }, description: 'Its global roles, sorted.' },
        created_at: ISO_INSTANT,
        created_by: {
          ...PERSON,
          description: 'The administrator who created it; null for the operator’s CLI or once deleted.',
        },
        disabled: { type: 'boolean' },
      },
    },
    ServiceAccountList: {
      type: 'object',
      required: ['service_accounts'],
      properties: { service_accounts: { type: 'array', items: ref('ServiceAccount') } },
    },
  };
}
