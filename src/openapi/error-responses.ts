import { AccountError, AccountErrorCode, usernameTakenError } from '../errors/account-error';
import {
  AccountHttpError,
  GatehouseHttpError,
  httpErrorForStatus,
  internalError,
  malformedJsonError,
  NotAuthenticatedError,
  tokenInQueryError,
  ValidationHttpError,
} from '../http/http-errors';
import { ACCOUNT_ERROR_DESCRIPTIONS } from './error-descriptions';
import { ref, type JsonObject } from './schemas';

/**
 * One error answer a route can give, as the error object Gatehouse itself throws for it: its status, code, headers
 * and body are read from that object, so the document cannot disagree with the code→status table or the renderer.
 */
export interface ErrorCase {
  error: GatehouseHttpError;
  description: string;
  /** The body never varies (HTTP-layer errors): the document shows it as an example. */
  fixedBody?: boolean;
}

/** The answers of an account error code: one, or two for `invalid_username` (400, and 409 for a taken name). */
export function accountErrorCases(code: AccountErrorCode): ErrorCase[] {
  const description = ACCOUNT_ERROR_DESCRIPTIONS[code];
  // Retry-After accompanies these two codes whenever the core raises them.
  const retry = code === 'rate_limited' || code === 'service_unavailable' ? { retryAfterSeconds: 1 } : {};
  const cases = [{ error: new AccountHttpError(new AccountError(code, code, retry)), description }];
  if (code === 'invalid_username') {
    cases.push({ error: new AccountHttpError(usernameTakenError()), description });
  }
  return cases;
}

/** What a route that reads a JSON body can answer before any account rule runs. */
export function bodyErrorCases(): ErrorCase[] {
  return [
    {
      error: new ValidationHttpError([]),
      description: 'A field is missing or of the wrong type, or the body is not an object; see `errors`.',
    },
    { error: malformedJsonError(), description: 'The body is not a JSON object or array.', fixedBody: true },
    {
      error: httpErrorForStatus(400),
      description: 'The body cannot be decoded: a Content-Encoding that does not match it, or invalid UTF-8.',
    },
    {
      error: httpErrorForStatus(413),
      description: 'The decoded body is over the limit (16 KiB by default).',
      fixedBody: true,
    },
    {
      error: httpErrorForStatus(415),
      description: 'The body is not `application/json` in UTF-8, or is encoded other than identity, gzip or deflate.',
    },
  ];
}

/** What a route behind `Authorization: Bearer` answers without a usable session. */
export function bearerErrorCases(): ErrorCase[] {
  return [
    {
      error: new NotAuthenticatedError(),
      description: 'No `Authorization: Bearer <token>` header (the one answer whose `detail` is a plain string).',
      fixedBody: true,
    },
    ...accountErrorCases('invalid_session_token'),
  ];
}

/** What any route can answer: a limit, an overload, or an unexpected failure. */
export function commonErrorCases(): ErrorCase[] {
  return [
    {
      error: tokenInQueryError(),
      description: 'An `access_token` query parameter: the bearer token goes only in the Authorization header.',
      fixedBody: true,
    },
    ...accountErrorCases('rate_limited'),
    ...accountErrorCases('service_unavailable'),
    { error: internalError(), description: 'An unexpected failure: logged, and not explained.', fixedBody: true },
  ];
}

/** The codes of the HTTP layer's status table, read from it status by status (it is not exported as a list). */
export function httpErrorCodes(): string[] {
  const codes = new Set<string>();
  for (let status = 400; status < 600; status++) codes.add(httpErrorForStatus(status).code);
  codes.add(new ValidationHttpError([]).code);
  codes.add(malformedJsonError().code);
  codes.add(tokenInQueryError().code);
  return [...codes];
}

/**
 * OpenAPI responses for the cases, one per status: a description listing the codes, the schema of the error body
 * with `code` narrowed to them (or the plain-string body of a missing bearer header), the headers that come with
 * them, examples of fixed bodies, and `x-error-codes` with each code's meaning, which the reference page shows.
 */
export function errorResponses(cases: ErrorCase[]): Record<string, JsonObject> {
  const byStatus = new Map<number, ErrorCase[]>();
  for (const item of cases) {
    const status = item.error.httpCode;
    byStatus.set(status, [...(byStatus.get(status) ?? []), item]);
  }
  const responses: Record<string, JsonObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const group = uniqueCodes(byStatus.get(status)!);
    const structured = group.filter((item) => !(item.error instanceof NotAuthenticatedError));
    const schemas: JsonObject[] = [];
    if (structured.length < group.length) schemas.push(ref('NotAuthenticated'));
    if (structured.length > 0) schemas.push(errorSchema(structured.map((item) => item.error.code)));
    const headers: JsonObject = {};
    if (group.some((item) => item.error.challenge)) headers['WWW-Authenticate'] = ref('WwwAuthenticate', 'headers');
    if (group.some((item) => item.error.retryAfterSeconds !== undefined)) {
      headers['Retry-After'] = ref('RetryAfter', 'headers');
    }
    const examples: JsonObject = {};
    for (const item of group.filter((candidate) => candidate.fixedBody)) {
      examples[item.error.code] = { summary: item.error.code, value: item.error.toJSON() };
    }
    responses[String(status)] = {
      description: group.map((item) => `\`${item.error.code}\``).join(', '),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: {
        'application/json': {
          schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas },
          ...(Object.keys(examples).length > 0 ? { examples } : {}),
        },
      },
      'x-error-codes': group.map((item) => ({ code: item.error.code, description: item.description })),
    };
  }
  return responses;
}

/** The error body with `detail.code` limited to `codes`. */
function errorSchema(codes: string[]): JsonObject {
  return {
    allOf: [
      ref('Error'),
      { type: 'object', properties: { detail: { type: 'object', properties: { code: { enum: codes } } } } },
    ],
  };
}

/** One case per code and status (a code listed twice, by a route and by the common cases, is documented once). */
function uniqueCodes(cases: ErrorCase[]): ErrorCase[] {
  const seen = new Set<string>();
  return cases.filter((item) => !seen.has(item.error.code) && seen.add(item.error.code));
}
