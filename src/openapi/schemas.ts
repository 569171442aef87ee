import { NotAuthenticatedError } from '../http/http-errors';
import { adminSchemas } from './administration/admin-schemas';
import { apiKeySchemas } from './api-keys/api-key-schemas';
import { oidcSchemas } from './oidc/oidc-schemas';
import { organizationSchemas } from './organizations/organization-schemas';
import { passkeySchemas } from './passkeys/passkey-schemas';
import { ref, type JsonObject } from './schema-ref';

export { ref, type JsonObject } from './schema-ref';

/** Names of the success bodies an action can declare in `@ApiDoc({ response })`. */
export type SuccessSchemaName =
  | 'Detail'
  | 'AccessToken'
  | 'LoginAnswer'
  | 'User'
  | 'SessionList'
  | 'OtherSessionsEnded'
  | 'Reauthenticated'
  | 'SecondFactorStatus'
  | 'TotpEnrolment'
  | 'RecoveryCodes'
  | 'UserPage'
  | 'AdminUser'
  | 'SessionsEnded'
  | 'UserRoles'
  | 'RoleList'
  | 'PermissionList'
  | 'NameCreated'
  | 'AuditEventPage'
  | 'PasskeyCreationOptions'
  | 'PasskeyRequestOptions'
  | 'Passkey'
  | 'PasskeyList'
  | 'OidcProviderList'
  | 'OidcLinkStart'
  | 'OidcIdentityList'
  | 'OidcExchangeAnswer'
  | 'Organization'
  | 'OrganizationList'
  | 'Member'
  | 'MemberList'
  | 'Invitation'
  | 'InvitationList'
  | 'InvitationPreview'
  | 'AdminOrganizationPage'
  | 'AdminOrganization'
  | 'UserOrganizationList'
  | 'ApiKey'
  | 'ApiKeyList'
  | 'CreatedApiKey'
  | 'ApiKeyScopes'
  | 'ApiKeysRevoked'
  | 'ServiceAccount'
  | 'ServiceAccountList';

/** The default public form of a user (`defaultUserSerializer`); `accountApiDocument({ userSchema })` replaces it. */
export const DEFAULT_USER_SCHEMA: JsonObject = {
  type: 'object',
  description: 'The signed-in user, as the USER_SERIALIZER shapes it; by default these three fields.',
  required: ['username', 'email', 'verified'],
  properties: {
    username: { type: 'string' },
    email: { type: 'string' },
    verified: { type: 'boolean', description: 'True once the email address is verified.' },
  },
};

/**
 * The response bodies, which the controller writes as object literals (so no class carries them), and the error
 * bodies of `errors/http-errors.ts`. The request bodies come from the DTO classes through class-validator-jsonschema.
 */
export function responseSchemas(userSchema: JsonObject): Record<string, JsonObject> {
  return {
    Detail: {
      type: 'object',
      required: ['detail'],
      properties: { detail: { type: 'string', description: 'A short confirmation in words.' } },
    },
    AccessToken: {
      type: 'object',
      required: ['access_token', 'token_type'],
      properties: {
        access_token: {
          type: 'string',
          description: 'Opaque session token, returned once; send it as `Authorization: Bearer <access_token>`.',
        },
        token_type: { type: 'string', const: 'bearer' },
      },
    },
    User: userSchema,
    ...sessionSchemas(),
    ...secondFactorSchemas(),
    ...passkeySchemas(),
    ...oidcSchemas(),
    ...organizationSchemas(),
    ...apiKeySchemas(),
    ...adminSchemas(),
    Error: errorBodySchema(ref('ErrorCode')),
    FieldError: {
      type: 'object',
      required: ['field', 'message'],
      properties: { field: { type: 'string' }, message: { type: 'string' } },
    },
    NotAuthenticated: {
      type: 'object',
      required: ['detail'],
      description: 'The answer when no bearer token is sent: `detail` is a plain string, as the specification says.',
      properties: { detail: { type: 'string', const: new NotAuthenticatedError().message } },
    },
  };
}

const ISO_INSTANT = { type: 'string', format: 'date-time' };

/** A browser or an operating system read from the user agent; null when it names none. */
const SOFTWARE: JsonObject = {
  type: ['object', 'null'],
  required: ['name', 'version'],
  properties: { name: { type: 'string' }, version: { type: ['string', 'null'] } },
};

/** The answers of the sessions routes (`http/session-answer.ts` writes them). */
function sessionSchemas(): Record<string, JsonObject> {
  return {
    Session: {
      type: 'object',
      description:
        'One live session. Address and user agent are what the client presented at login, for recognising the ' +
        'session only; browser, os and device are read from the user agent and are as trustworthy as it.',
      required: [
        'id',
        'current',
        'created_at',
        'last_used_at',
        'expires_at',
        'ip_address',
        'user_agent',
        'browser',
        'os',
        'device',
      ],
      properties: {
        id: { type: 'string', description: 'The session’s public id, for `DELETE /sessions/{id}`; not its token.' },
        current: { type: 'boolean', description: 'True for the session that asked.' },
        created_at: { ...ISO_INSTANT, description: 'When it logged in.' },
        last_used_at: { ...ISO_INSTANT, description: 'When it was last used, to the minute or so.' },
        expires_at: { ...ISO_INSTANT, description: 'When it ends if not used again.' },
        ip_address: { type: ['string', 'null'], description: 'The client address at login; null when unknown.' },
        user_agent: {
          type: ['string', 'null'],
          description: 'The `User-Agent` sent at login, cut to 512 characters; null when none was sent.',
        },
        browser: SOFTWARE,
        os: SOFTWARE,
        device: { enum: ['desktop', 'mobile', 'tablet', 'tv', null] },
      },
    },
    SessionList: {
      type: 'object',
      required: ['sessions'],
      properties: {
        sessions: { type: 'array', description: 'Newest first.', items: ref('Session') },
      },
    },
    OtherSessionsEnded: {
      type: 'object',
      required: ['detail', 'ended'],
      properties: {
        detail: { type: 'string', description: 'A short confirmation in words.' },
        ended: { type: 'integer', minimum: 0, description: 'How many sessions ended.' },
      },
    },
    Reauthenticated: {
      type: 'object',
      required: ['detail', 'reauthenticated_until'],
      properties: {
        detail: { type: 'string', description: 'A short confirmation in words.' },
        reauthenticated_until: {
          ...ISO_INSTANT,
          description: 'Until when this session may end other sessions and change the email address.',
        },
      },
    },
  };
}

/** The answers of login with a second factor and of the second-factor routes (`http/second-factor-answer.ts`). */
function secondFactorSchemas(): Record<string, JsonObject> {
  const recoveryCodes = {
    type: 'array',
    description:
      'Single-use codes for signing in without the authenticator, shown this once: only their hashes are kept.',
    items: { type: 'string', pattern: '^[a-z2-7]{4}(-[a-z2-7]{4}){3}$' },
  };
  return {
    SecondFactorChallenge: {
      type: 'object',
      description:
        'The password was right and the account signs in with a second factor: answer with ' +
        '`POST /login/second-factor` (a code) or `POST /passkeys/second-factor` (a passkey, when `methods` lists ' +
        '`passkey`) before `expires_at`. No session exists yet.',
      required: ['second_factor_required', 'challenge_token', 'expires_at', 'methods'],
      properties: {
        second_factor_required: { type: 'boolean', const: true },
        challenge_token: {
          type: 'string',
          description: 'Opaque and single-use; only good for answering this challenge (a few tries at most).',
        },
        expires_at: { ...ISO_INSTANT, description: 'When the challenge dies (5 minutes by default).' },
        methods: {
          type: 'array',
          description: 'How it can be answered.',
          items: { enum: ['totp', 'recovery_code', 'passkey'] },
        },
      },
    },
    LoginAnswer: {
      description:
        'A session (`AccessToken`), or for an account with a second factor the challenge to answer ' +
        '(`SecondFactorChallenge`): tell them apart by `access_token` or `second_factor_required`.',
      oneOf: [ref('AccessToken'), ref('SecondFactorChallenge')],
    },
    SecondFactorStatus: {
      type: 'object',
      required: ['enabled', 'pending', 'recovery_codes_left'],
      properties: {
        enabled: { type: 'boolean', description: 'Signing in asks for a code after the password.' },
        pending: { type: 'boolean', description: 'Enrolment was started and waits for its first code.' },
        recovery_codes_left: { type: 'integer', minimum: 0, description: 'Unused recovery codes (0 when off).' },
      },
    },
    TotpEnrolment: {
      type: 'object',
      description:
        'The new secret, shown this once: scan the QR code (or type the secret) into an authenticator app, then ' +
        'confirm with a code from it. Until then signing in is unchanged.',
      required: ['secret', 'otpauth_uri', 'qr_code_svg'],
      properties: {
        secret: { type: 'string', pattern: '^[A-Z2-7]+=*$', description: 'The secret in base32, for typing in.' },
        otpauth_uri: {
          type: 'string',
          pattern: '^otpauth://totp/',
          description: 'The `otpauth://totp/...` URI (SHA-1, 6 digits, 30 s) the QR code holds.',
        },
        qr_code_svg: { type: 'string', description: 'The URI as a QR code: a standalone SVG document.' },
      },
    },
    RecoveryCodes: {
      type: 'object',
      required: ['recovery_codes'],
      properties: { recovery_codes: recoveryCodes },
    },
  };
}

/**
 * The response headers the document states, by name: where a response declares one, it is `required` when every
 * answer of that status carries it (see `responseHeaders`).
 */
/**
 * The error body, with `code` as given: the `ErrorCode` list, or the codes of one status. Written out whole for each
 * status rather than narrowed with `allOf`, which strict validators of examples (Redocly's) read as closed objects.
 */
export function errorBodySchema(code: JsonObject): JsonObject {
  return {
    type: 'object',
    required: ['detail'],
    properties: {
      detail: {
        type: 'object',
        required: ['detail', 'code'],
        properties: {
          detail: { type: 'string', description: 'What went wrong, in words fit to show; never a secret.' },
          code,
          errors: {
            type: 'array',
            description: 'With `validation_error` only: one entry per problem, never the submitted value.',
            items: ref('FieldError'),
          },
        },
      },
    },
  };
}

export const RESPONSE_HEADERS: Record<string, JsonObject> = {
  'Retry-After': {
    description: 'Whole seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 1 },
  },
  'WWW-Authenticate': {
    description: 'The bearer challenge (RFC 6750).',
    schema: { type: 'string', const: 'Bearer' },
  },
  Allow: {
    description: 'The methods this path answers, as the document lists them.',
    schema: { type: 'string' },
  },
  Location: {
    description: 'Where the redirect leads.',
    schema: { type: 'string' },
  },
  'Set-Cookie': {
    description:
      'The provider flow’s cookie (`gatehouse_oidc`): set by a start, cleared by the callback. HttpOnly, ' +
      'SameSite=Lax, scoped to the provider’s callback path, Secure over https.',
    schema: { type: 'string', pattern: '^gatehouse_oidc=' },
  },
  'Access-Control-Allow-Origin': {
    description: 'Any origin may read this public answer.',
    schema: { type: 'string', const: '*' },
  },
};

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS & string;

/** A response's `headers`: each named header, required or not. */
export function responseHeaders(names: Partial<Record<ResponseHeaderName, boolean>>): Record<string, JsonObject> {
  return Object.fromEntries(
    Object.entries(names).map(([name, required]) => [name, { ...RESPONSE_HEADERS[name], required: Boolean(required) }]),
  );
}

/**
 * The body parser refuses a `__proto__` key anywhere in a body (400 `bad_request`), a prototype-pollution attempt:
 * every request body schema says so with this `propertyNames`.
 */
export const NO_PROTO_KEY: JsonObject = {
  not: { const: '__proto__' },
  description: 'A `__proto__` key is refused (400 `bad_request`).',
};

export const BEARER_SCHEME = 'bearerAuth';

export const SECURITY_SCHEMES: Record<string, JsonObject> = {
  [BEARER_SCHEME]: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'opaque',
    description:
      'The `access_token` of `POST /login`: an opaque string (not a JWT), accepted in this header only. It ends with ' +
      'logout, logout-all, a password change or reset, account deletion, or when it expires.',
  },
};
