import { AccountError } from '../errors/account-error';
import { ACCESS_NAME_MAX_LENGTH, ACCESS_NAME_PATTERN, isAccessName } from '../services/identity';
import {
  invitationNotFound,
  memberNotFound,
  organizationNotFound,
} from '../services/organizations/organization-errors';
import { isRecordId, RECORD_ID_LENGTH, RECORD_ID_PATTERN } from '../services/record-id';
import { AccountHttpError, GatehouseHttpError, httpErrorForStatus } from './http-errors';

/**
 * The rule of one kind of path parameter: what a value must look like, said once for the check that runs on every
 * request (`checkedPathValue`) and for the API document (`schema`), so that the two cannot disagree.
 */
export interface PathValueRule {
  /** Whether the decoded segment may be such a value. */
  accepts(value: string): boolean;
  /** The value's JSON Schema in the document: the same pattern and length the check applies. */
  schema: { type: 'string'; pattern: string; minLength: number; maxLength: number };
  /** The answer to a value that breaks the rule, the one the route gives for a value that names nothing. */
  refusal(): AccountError;
}

/** An organization's id as Gatehouse makes it (`randomUUID()`): lower-case hexadecimal in the 8-4-4-4-12 groups. */
export const ORGANIZATION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `value` may be an organization's id (any other text names no organization). */
export function isOrganizationId(value: unknown): value is string {
  return typeof value === 'string' && ORGANIZATION_ID_PATTERN.test(value);
}

/** The ids `resolveOidcSettings` accepts: lower-case letters, digits and inner hyphens, at most 32. */
const PROVIDER_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

function rule(
  pattern: RegExp,
  lengths: [number, number],
  accepts: (value: string) => boolean,
  refusal: () => AccountError,
): PathValueRule {
  return {
    accepts,
    schema: { type: 'string', pattern: pattern.source, minLength: lengths[0], maxLength: lengths[1] },
    refusal,
  };
}

/**
 * The kinds of path parameter the account routes take. An id of a shape Gatehouse never makes is answered as an id
 * nothing has (404), and a name the core would refuse is refused as the core refuses it (400), before any store
 * sees the value: a NUL byte, an over-long value or text of a different alphabet never reaches a query.
 */
export const PATH_VALUES = {
  userId: rule(
    RECORD_ID_PATTERN,
    [RECORD_ID_LENGTH, RECORD_ID_LENGTH],
    isRecordId,
    () => new AccountError('user_not_found', 'No user has this id'),
  ),
  sessionId: rule(
    RECORD_ID_PATTERN,
    [RECORD_ID_LENGTH, RECORD_ID_LENGTH],
    isRecordId,
    () => new AccountError('session_not_found', 'No such session'),
  ),
  passkeyId: rule(
    RECORD_ID_PATTERN,
    [RECORD_ID_LENGTH, RECORD_ID_LENGTH],
    isRecordId,
    () => new AccountError('passkey_not_found', 'No such passkey'),
  ),
  // An API key's public id (never the key): malformed is answered as an id no key of the account has.
  apiKeyId: rule(
    RECORD_ID_PATTERN,
    [RECORD_ID_LENGTH, RECORD_ID_LENGTH],
    isRecordId,
    () => new AccountError('api_key_not_found', 'No such API key'),
  ),
  // A provider id as the deployer configures it (services/oidc/oidc-options.ts): anything else names no provider.
  providerId: rule(
    PROVIDER_ID_PATTERN,
    [1, 32],
    (value) => PROVIDER_ID_PATTERN.test(value),
    () => new AccountError('unknown_provider', 'No such sign-in provider'),
  ),
  identityId: rule(
    RECORD_ID_PATTERN,
    [RECORD_ID_LENGTH, RECORD_ID_LENGTH],
    isRecordId,
    () => new AccountError('identity_not_found', 'No such linked identity'),
  ),
  // A member of an organization, named by its user id: alike with a user id that is not that organization's member.
  memberId: rule(RECORD_ID_PATTERN, [RECORD_ID_LENGTH, RECORD_ID_LENGTH], isRecordId, memberNotFound),
  invitationId: rule(RECORD_ID_PATTERN, [RECORD_ID_LENGTH, RECORD_ID_LENGTH], isRecordId, invitationNotFound),
  role: rule(
    ACCESS_NAME_PATTERN,
    [1, ACCESS_NAME_MAX_LENGTH],
    isAccessName,
    () => new AccountError('invalid_role', 'Role name is invalid'),
  ),
  permission: rule(
    ACCESS_NAME_PATTERN,
    [1, ACCESS_NAME_MAX_LENGTH],
    isAccessName,
    () => new AccountError('invalid_permission', 'Permission name is invalid'),
  ),
  // The answer for an organization the caller is not a member of, so that no shape of id tells anything apart.
  organizationId: rule(ORGANIZATION_ID_PATTERN, [36, 36], isOrganizationId, organizationNotFound),
} satisfies Record<string, PathValueRule>;

/** The answer to a path segment that is not percent-encoded UTF-8 (`%FF`, `%C3%28`, a lone surrogate, a bare `%`). */
export function undecodablePathError(): GatehouseHttpError {
  return httpErrorForStatus(400, 'The path is not percent-encoded UTF-8');
}

/**
 * The value of a path parameter, checked against its rule; throws the rule's refusal otherwise. The routers decode
 * a segment before handing it over, and hand the raw text over when it does not decode (Koa) or fail the request
 * (Express, answered by `toHttpError` as this same 400): a `%` that is left is refused alike on both.
 */
export function checkedPathValue(rule: PathValueRule, value: unknown): string {
  if (typeof value === 'string' && rule.accepts(value)) return value;
  if (typeof value === 'string' && !decodes(value)) throw undecodablePathError();
  throw new AccountHttpError(rule.refusal());
}

function decodes(value: string): boolean {
  if (!value.includes('%')) return true;
  try {
    decodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
}

/** The rules of an action's path parameters, by name, as its parameter decorators recorded them. */
const recorded = new WeakMap<object, Map<string, Map<string, PathValueRule>>>();

/** Records that `method` of `controller` (the class) takes the path parameter `name` under `rule`. */
export function recordPathValue(controller: object, method: string, name: string, rule: PathValueRule): void {
  const methods = recorded.get(controller) ?? new Map<string, Map<string, PathValueRule>>();
  recorded.set(controller, methods);
  const names = methods.get(method) ?? new Map<string, PathValueRule>();
  methods.set(method, names);
  names.set(name, rule);
}

/** The recorded rules of an action's path parameters (empty when it has none). */
export function pathValuesOf(controller: object, method: string): ReadonlyMap<string, PathValueRule> {
  return recorded.get(controller)?.get(method) ?? new Map();
}
