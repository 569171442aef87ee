import { HttpError } from 'routing-controllers';
import { AccountError } from '../errors/account-error';
import { statusForAccountError } from '../errors/status-table';

/** One problem of a rejected request body. It names the field and the rule, never the submitted value. */
export interface FieldError {
  field: string;
  message: string;
}

/** The error body of every Gatehouse answer but the missing-bearer one (spec section 7). */
export interface ErrorBody {
  detail: { detail: string; code: string; errors?: FieldError[] };
}

/**
 * Base of the errors Gatehouse renders. `toJSON()` is the body: our error middleware sends it, and so does
 * routing-controllers' default error handler (it uses `toJSON` when present), so a host that keeps that handler
 * still answers our guard errors in our shape.
 */
export class GatehouseHttpError extends HttpError {
  /** When true the answer carries `WWW-Authenticate: Bearer` (RFC 6750). */
  readonly challenge: boolean;
  /** When set, the answer carries `Retry-After` with these whole seconds (429, 503). */
  readonly retryAfterSeconds?: number;

  constructor(
    httpCode: number,
    readonly code: string,
    message: string,
    options: { challenge?: boolean; retryAfterSeconds?: number } = {},
  ) {
    // routing-controllers' HttpError assigns `this.stack = new Error().stack`, which formats a stack trace on every
    // construction: a tenth of the event loop's time in a flood of refusals (`npm run bench`'s burst), for a trace
    // nobody reads. These errors are answers, not faults (an unexpected error is logged with its own stack), so that
    // one trace is formatted empty.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(httpCode, message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    // HttpError pins its own prototype, which would hide every subclass from instanceof.
    Object.setPrototypeOf(this, new.target.prototype);
    this.name = new.target.name;
    this.challenge = options.challenge ?? false;
    if (options.retryAfterSeconds !== undefined)
      this.retryAfterSeconds = Math.max(1, Math.ceil(options.retryAfterSeconds));
  }

  toJSON(): object {
    const body: ErrorBody = { detail: { detail: this.message || this.code, code: this.code } };
    return body;
  }
}

/** An `AccountError` of the core, with the status of the one code→status table. */
export class AccountHttpError extends GatehouseHttpError {
  constructor(readonly accountError: AccountError) {
    super(statusForAccountError(accountError), accountError.code, accountError.message, {
      challenge: accountError.code === 'invalid_session_token' || accountError.code === 'invalid_api_key',
      retryAfterSeconds:
        accountError.retryAfterSeconds ??
        (accountError.code === 'provider_unavailable' ? PROVIDER_RETRY_AFTER_SECONDS : undefined),
    });
  }
}

/**
 * A provider that did not answer is a 503 like a store outage, and every 503 says when to come back: the core's own
 * figure when it gives one (its retry backoff), else this.
 */
const PROVIDER_RETRY_AFTER_SECONDS = 10;

/** No usable `Authorization: Bearer` header. The spec makes this body a plain string. */
export class NotAuthenticatedError extends GatehouseHttpError {
  constructor() {
    super(401, 'not_authenticated', 'Not authenticated', { challenge: true });
  }

  override toJSON(): object {
    return { detail: this.message };
  }
}

/** A request body that failed its DTO's rules. */
/** The message of a `validation_error` about query parameters rather than the body. */
export const INVALID_QUERY_MESSAGE = 'Invalid query parameters';

export class ValidationHttpError extends GatehouseHttpError {
  constructor(
    readonly errors: FieldError[],
    message = 'Invalid request body',
  ) {
    super(400, 'validation_error', message);
  }

  override toJSON(): object {
    const body: ErrorBody = { detail: { detail: this.message, code: this.code, errors: this.errors } };
    return body;
  }
}

/** Codes and default messages of answers that are about HTTP itself rather than the account core. */
const HTTP_ERRORS: Record<number, { code: string; message: string }> = {
  400: { code: 'bad_request', message: 'Bad request' },
  401: { code: 'unauthorized', message: 'Unauthorized' },
  403: { code: 'forbidden', message: 'Forbidden' },
  404: { code: 'not_found', message: 'Not found' },
  405: { code: 'method_not_allowed', message: 'Method not allowed' },
  406: { code: 'not_acceptable', message: 'Not acceptable' },
  408: { code: 'request_timeout', message: 'The request took too long to arrive' },
  409: { code: 'conflict', message: 'Conflict' },
  413: { code: 'payload_too_large', message: 'Request body is too large' },
  415: { code: 'unsupported_media_type', message: 'Request body must be application/json' },
  417: { code: 'expectation_failed', message: 'The only expectation supported is "Expect: 100-continue"' },
  422: { code: 'unprocessable_entity', message: 'Unprocessable entity' },
  431: { code: 'headers_too_large', message: 'Request headers are too large' },
  429: { code: 'too_many_requests', message: 'Too many requests' },
  500: { code: 'internal_error', message: 'Internal server error' },
  501: { code: 'not_implemented', message: 'Not implemented' },
  503: { code: 'service_unavailable', message: 'Service unavailable' },
};

/**
 * The error for an HTTP status, with the code of that status (`not_found`, `payload_too_large`, ...). A 5xx
 * always gets the generic message of its status: whatever caused it is for the log, not the client.
 */
export function httpErrorForStatus(status: number, message?: string): GatehouseHttpError {
  const known =
    HTTP_ERRORS[status] ?? (status >= 500 ? HTTP_ERRORS[500] : { code: 'client_error', message: 'Request failed' });
  return new GatehouseHttpError(status, known.code, status < 500 && message ? message : known.message);
}

/** The body of a JSON that does not parse, or whose top level is not an object or array. */
export function malformedJsonError(): GatehouseHttpError {
  return new GatehouseHttpError(400, 'malformed_json', 'Request body is not valid JSON');
}

/** An `access_token` query parameter: bearer tokens are accepted only in the Authorization header (ASVS 3.1.1). */
export function tokenInQueryError(): GatehouseHttpError {
  return new GatehouseHttpError(
    400,
    'token_in_query',
    'Send the bearer token in the Authorization header, never in the URL',
  );
}

/** A dependency (the database, say) is down or overloaded: the client may retry after a short wait. */
export function serviceUnavailableError(retryAfterSeconds = 1): GatehouseHttpError {
  return new GatehouseHttpError(503, 'service_unavailable', 'Service temporarily unavailable; retry shortly', {
    retryAfterSeconds,
  });
}

/** The generic 500: nothing of the cause reaches the client. */
export function internalError(): GatehouseHttpError {
  return httpErrorForStatus(500);
}
