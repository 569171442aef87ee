import { ArrayMaxSize, IsArray, IsInt, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_ACCESS_NAME, MAX_USERNAME } from '../dto/bounds';
import { OptionalField } from '../dto/optional-field';

// The bodies of the API keys' routes. They bound sizes and types only: which scopes, names and lifetimes are
// allowed is the core's to say (`invalid_scope`, `api_key_name_taken`, `invalid_api_key_expiry`), in the
// creating transaction, so a host calling the core directly is held to the same rules.

/** A key's name: 1 to 64 characters once trimmed (the core trims and re-checks), not blank, no control characters. */
export const MAX_API_KEY_NAME = 64;
const API_KEY_NAME = /^(?=.*\S)[^\p{Cc}\u2028\u2029]+$/u;
// The same set for the API document, without `\p{}` (Cc is U+0000 to U+001F and U+007F to U+009F).
const API_KEY_NAME_PATTERN = '^(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]+$';
/** At most this many scopes in one key (the core's bound too). */
export const MAX_API_KEY_SCOPES = 64;
/**
 * What `POST /api-keys/revoke` takes as a key: any string up to this length is answered alike, so that a finder
 * learns nothing from the answer; a key is far shorter (a prefix of at most 24, `_`, 38 characters).
 */
export const MAX_POSSESSED_KEY = 200;
/** At most this many roles given to a new service account at once. */
export const MAX_SERVICE_ACCOUNT_ROLES = 64;

/** `POST /api-keys` and `POST /admin/users/:id/api-keys`. */
export class ApiKeyCreateBody {
  @JSONSchema({
    pattern: API_KEY_NAME_PATTERN,
    minLength: 1,
    maxLength: MAX_API_KEY_NAME,
    description:
      `The key’s name, so that its owner can tell it from the others: 1 to ${MAX_API_KEY_NAME} characters, not ` +
      'blank, no control characters (trimmed); unique among the owner’s keys (409 `api_key_name_taken`).',
  })
  @Matches(API_KEY_NAME, { message: 'name must not be blank or hold control characters' })
  @MaxLength(MAX_API_KEY_NAME)
  @MinLength(1)
  @IsString()
  name!: string;

  @JSONSchema({
    maxItems: MAX_API_KEY_SCOPES,
    items: { type: 'string', minLength: 1, maxLength: MAX_ACCESS_NAME },
    description:
      'The permissions the key may use, by name: at least one, each held by the owner now through a global role ' +
      '(`GET /api-keys/scopes` lists them), no wildcard, no `gatehouse.*` permission (400 `invalid_scope`). ' +
      'Duplicates count once.',
  })
  @MaxLength(MAX_ACCESS_NAME, { each: true })
  @MinLength(1, { each: true })
  @IsString({ each: true })
  @ArrayMaxSize(MAX_API_KEY_SCOPES)
  @IsArray()
  scopes!: string[];

  @JSONSchema({
    type: 'integer',
    minimum: 1,
    description:
      'Days until the key is refused: 1 to the deployer’s maximum (`apiKeyMaxLifetimeDays`, 366 by default; else ' +
      '400 `invalid_api_key_expiry`). Left out: the deployer’s default (`apiKeyDefaultLifetimeDays`, 30).',
  })
  @IsInt({ message: 'expires_in_days must be a whole number of days' })
  @OptionalField()
  expires_in_days?: number;
}

/** `POST /api-keys/revoke`: revocation by whoever holds the key (a finder of a leaked one). */
export class PossessedApiKeyBody {
  @JSONSchema({
    minLength: 1,
    maxLength: MAX_POSSESSED_KEY,
    description:
      'The key, as found. Any string of this length is answered alike, a live key, an unknown one or no key at all.',
  })
  @MaxLength(MAX_POSSESSED_KEY)
  @MinLength(1)
  @IsString()
  key!: string;
}

/** `POST /admin/service-accounts`. */
export class ServiceAccountBody {
  @JSONSchema({
    description: 'The service account’s username, under the usernames’ rules (unique among all accounts).',
  })
  @MaxLength(MAX_USERNAME)
  @IsString()
  username!: string;

  @JSONSchema({
    maxItems: MAX_SERVICE_ACCOUNT_ROLES,
    items: { type: 'string', minLength: 1, maxLength: MAX_ACCESS_NAME },
    description:
      'Global roles to give it (granting them needs `gatehouse.roles.manage` too, under the usual grant rules). ' +
      'Its keys may use only permissions these roles carry.',
  })
  @MaxLength(MAX_ACCESS_NAME, { each: true })
  @MinLength(1, { each: true })
  @IsString({ each: true })
  @ArrayMaxSize(MAX_SERVICE_ACCOUNT_ROLES)
  @IsArray()
  @OptionalField()
  roles?: string[];
}
