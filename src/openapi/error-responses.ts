import { AccountError, AccountErrorCode, usernameTakenError } from '../errors/account-error';
import {
  AccountHttpError,
  GatehouseHttpError,
  httpErrorForStatus,
  internalError,
  malformedJsonError,
  NotAuthenticatedError,
  INVALID_QUERY_MESSAGE,
  tokenInQueryError,
  ValidationHttpError,
} from '../http/http-errors';
import { ACCOUNT_ERROR_DESCRIPTIONS } from './error-descriptions';
import { errorBodySchema, ref, responseHeaders, type JsonObject, type ResponseHeaderName } from './schemas';

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
      description:
        'The body cannot be decoded (a Content-Encoding that does not match it, or invalid UTF-8 or U+FFFD), is nested ' +
        'more than 64 levels deep, or has a `__proto__` key anywhere in it (refused as a prototype-pollution attempt; ' +
        'the body schemas say so with `propertyNames`).',
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

/** What a route that reads query parameters answers for one it cannot take. */
export function queryErrorCases(): ErrorCase[] {
  return [
    {
      error: new ValidationHttpError([], INVALID_QUERY_MESSAGE),
      description: 'A query parameter is out of its range or not of its type; see `errors`.',
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

/** What a hosted page, the document or an asset can answer instead of itself. */
export function pageErrorCases(): ErrorCase[] {
  return commonErrorCases().filter(
    (item) =>
      item.error.code === 'token_in_query' || item.error.code === 'api_key_not_allowed' || item.error.httpCode === 500,
  );
}

/**
 * The answers to what the document does not list, for `components.responses`: a path under the prefix that is not
 * in it (404), a method its path does not list (405, with `Allow`), and OPTIONS on a listed path (204, with `Allow`).
 */
export function routingResponses(): Record<string, JsonObject> {
  const allow = responseHeaders({ Allow: true });
  const [notFound] = Object.values(
    errorResponses([{ error: httpErrorForStatus(404), description: 'No such path.', fixedBody: true }]),
  );
  const [notAllowed] = Object.values(
    errorResponses([
      { error: httpErrorForStatus(405), description: 'The path does not take this method.', fixedBody: true },
    ]),
  );
  return {
    NotFound: { ...notFound, description: 'A path under the prefix that this document does not list: `not_found`.' },
    MethodNotAllowed: {
      ...notAllowed,
      description:
        'A method this document does not list for the path: `method_not_allowed`; `Allow` lists those it does.',
      headers: allow,
    },
    AllowedMethods: { description: 'OPTIONS on a path of this document: `Allow` lists its methods.', headers: allow },
  };
}

/** What any route can answer: an API key refused, a limit, an overload, or an unexpected failure. */
export function commonErrorCases(): ErrorCase[] {
  return [
    {
      error: tokenInQueryError(),
      description: 'An `access_token` query parameter: the bearer token goes only in the Authorization header.',
      fixedBody: true,
    },
    // Every route and page refuses an API key as its credential (`refuseApiKeys`), before reading anything else.
    ...accountErrorCases('api_key_not_allowed'),
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
    const headers = responseHeaders({
      ...carried(group, 'WWW-Authenticate', (error) => error.challenge),
      ...carried(group, 'Retry-After', (error) => error.retryAfterSeconds !== undefined),
    });
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

/** The header, when some answers of the group carry it; required when all of them do. */
function carried(
  group: ErrorCase[],
  name: ResponseHeaderName,
  carries: (error: GatehouseHttpError) => boolean,
): Partial<Record<ResponseHeaderName, boolean>> {
  const carrying = group.filter((item) => carries(item.error)).length;
  return carrying === 0 ? {} : { [name]: carrying === group.length };
}

/** The error body with `detail.code` limited to `codes`. */
function errorSchema(codes: string[]): JsonObject {
  return errorBodySchema({ type: 'string', enum: codes });
}

/** One case per code and status (a code listed twice, by a route and by the common cases, is documented once). */
function uniqueCodes(cases: ErrorCase[]): ErrorCase[] {
  const seen = new Set<string>();
  return cases.filter((item) => !seen.has(item.error.code) && seen.add(item.error.code));
}
