import { ref, type JsonObject } from '../schema-ref';

const ISO_INSTANT = { type: 'string', format: 'date-time' };
const BASE64URL = { type: 'string', pattern: '^[A-Za-z0-9_-]*$' };

/** A credential the options name (`excludeCredentials`, `allowCredentials`): its id and how to reach it. */
const CREDENTIAL_DESCRIPTOR: JsonObject = {
  type: 'object',
  required: ['id', 'type'],
  additionalProperties: true,
  properties: {
    id: { ...BASE64URL, description: 'The WebAuthn credential id, base64url.' },
    type: { type: 'string', const: 'public-key' },
    transports: { type: 'array', items: { type: 'string' } },
  },
};

const USER_VERIFICATION = { enum: ['required', 'preferred', 'discouraged'] };

/**
 * The passkeys' answers: the WebAuthn options as `@simplewebauthn/server` makes them (the JSON its browser library's
 * `startRegistration()` / `startAuthentication()` take as `optionsJSON`), described by their main fields and left
 * open, since the library and the WebAuthn specification add fields; and the passkeys as their owner sees them.
 */
export function passkeySchemas(): Record<string, JsonObject> {
  return {
    PasskeyCreationOptions: {
      type: 'object',
      description:
        'WebAuthn `PublicKeyCredentialCreationOptionsJSON`: hand it to `startRegistration({ optionsJSON })` of ' +
        '`@simplewebauthn/browser` (or `PublicKeyCredential.parseCreationOptionsFromJSON()`), then send the result ' +
        'to `POST /passkeys`. Its challenge is single-use and dies after a few minutes.',
      required: ['rp', 'user', 'challenge', 'pubKeyCredParams'],
      additionalProperties: true,
      properties: {
        rp: {
          type: 'object',
          required: ['name'],
          additionalProperties: true,
          properties: {
            id: { type: 'string', description: 'The RP ID, from configuration only.' },
            name: { type: 'string' },
          },
        },
        user: {
          type: 'object',
          required: ['id', 'name', 'displayName'],
          additionalProperties: true,
          properties: {
            id: { ...BASE64URL, description: 'The account’s user handle: random, never its id or address.' },
            name: { type: 'string' },
            displayName: { type: 'string' },
          },
        },
        challenge: { ...BASE64URL, description: '32 random bytes, base64url.' },
        pubKeyCredParams: {
          type: 'array',
          items: {
            type: 'object',
            required: ['type', 'alg'],
            properties: { type: { type: 'string', const: 'public-key' }, alg: { type: 'integer' } },
          },
        },
        timeout: { type: 'integer', minimum: 0 },
        excludeCredentials: {
          type: 'array',
          description: 'The account’s passkeys, so one authenticator does not hold two of the same account.',
          items: CREDENTIAL_DESCRIPTOR,
        },
        authenticatorSelection: {
          type: 'object',
          additionalProperties: true,
          properties: {
            residentKey: { enum: ['required', 'preferred', 'discouraged'] },
            userVerification: USER_VERIFICATION,
          },
        },
        attestation: { enum: ['none', 'direct', 'enterprise'] },
        extensions: { type: 'object', additionalProperties: true },
      },
    },
    PasskeyRequestOptions: {
      type: 'object',
      description:
        'WebAuthn `PublicKeyCredentialRequestOptionsJSON`: hand it to `startAuthentication({ optionsJSON })` of ' +
        '`@simplewebauthn/browser` (or `PublicKeyCredential.parseRequestOptionsFromJSON()`), then send the result ' +
        'to the matching route. Its challenge is single-use and dies after a few minutes.',
      required: ['challenge'],
      additionalProperties: true,
      properties: {
        challenge: { ...BASE64URL, description: '32 random bytes, base64url.' },
        rpId: { type: 'string', description: 'The RP ID, from configuration only.' },
        timeout: { type: 'integer', minimum: 0 },
        allowCredentials: {
          type: 'array',
          description:
            'Empty for a sign-in without a username (the browser offers the passkeys it holds for the RP ID); the ' +
            'account’s passkeys for a second factor or a re-authentication.',
          items: CREDENTIAL_DESCRIPTOR,
        },
        userVerification: USER_VERIFICATION,
        extensions: { type: 'object', additionalProperties: true },
      },
    },
    Passkey: {
      type: 'object',
      description: 'A passkey as its owner sees it: never its public key, credential id or the user handle.',
      required: ['id', 'name', 'created_at', 'last_used_at', 'device_type'],
      properties: {
        id: { type: 'string', description: 'Its id, for `PATCH` and `DELETE /passkeys/{id}`.' },
        name: { type: 'string' },
        created_at: { ...ISO_INSTANT, description: 'When it was added.' },
        last_used_at: {
          type: ['string', 'null'],
          format: 'date-time',
          description: 'Its last accepted use; null until then.',
        },
        device_type: {
          enum: ['synced', 'device_bound'],
          description:
            '`synced` when it may live on several devices (a synced passkey, WebAuthn’s backup eligibility), ' +
            '`device_bound` when it never leaves its authenticator.',
        },
      },
    },
    PasskeyList: {
      type: 'object',
      required: ['passkeys'],
      properties: { passkeys: { type: 'array', items: ref('Passkey') } },
    },
  };
}
