import type { IncomingMessage } from 'node:http';
import { BadRequestError, ForbiddenError, HttpError, UnauthorizedError } from 'routing-controllers';
import type { ValidationError } from 'class-validator';
import { recordedAuthError } from './request-auth';
import { isStoreUnavailable } from '../errors/store-unavailable-error';
import { AccountError, isAccountError } from '../errors/account-error';
import {
  AccountHttpError,
  FieldError,
  GatehouseHttpError,
  httpErrorForStatus,
  INVALID_QUERY_MESSAGE,
  NotAuthenticatedError,
  serviceUnavailableError,
  ValidationHttpError,
} from './http-errors';
import { undecodablePathError } from './path-values';

// routing-controllers' own parameter errors; their messages can quote the submitted value, so only the kind is kept.
const PARAMETER_ERRORS = new Set(['ParamRequiredError', 'ParamNormalizationError', 'ParameterParseJsonError']);

/**
 * The answer for a thrown error, or null when the error was not meant for the client (a bug, a store failure):
 * the caller logs those and answers a generic 500.
 */
export async function toHttpError(error: unknown, req: IncomingMessage): Promise<GatehouseHttpError | null> {
  if (error instanceof GatehouseHttpError) return error;
  if (isAccountError(error)) return new AccountHttpError(error);
  if (isStoreUnavailable(error)) return serviceUnavailableError(error.retryAfterSeconds);
  if (error instanceof HttpError) return fromRoutingControllers(error, req);
  if (isExposedHttpError(error)) return httpErrorForStatus(error.status, error.message);
  if (isUndecodablePath(error)) return undecodablePathError();
  return null;
}

/**
 * Express's router failing to decode a path parameter (`%FF`): a URIError it marks 400 without exposing it, its
 * message quoting the value. Koa's router hands the raw text over instead, which `checkedPathValue` refuses alike.
 */
function isUndecodablePath(error: unknown): boolean {
  return error instanceof URIError && (error as { status?: unknown }).status === 400;
}

async function fromRoutingControllers(error: HttpError, req: IncomingMessage): Promise<GatehouseHttpError | null> {
  if (error instanceof BadRequestError) {
    const details = (error as { errors?: unknown }).errors;
    if (Array.isArray(details)) {
      // routing-controllers names the kind of parameter it validated: `Invalid queries, ...` for a query DTO.
      const query = error.message.startsWith('Invalid queries');
      const fields = fieldErrors(details as ValidationError[]);
      return query ? new ValidationHttpError(fields, INVALID_QUERY_MESSAGE) : new ValidationHttpError(fields);
    }
    if (PARAMETER_ERRORS.has(error.name)) return new ValidationHttpError([], 'Invalid request parameters');
  }
  // A required @CurrentUser() that got no user: say why, as the guards would have.
  if (error instanceof UnauthorizedError && error.name === 'AuthorizationRequiredError') {
    return (await recordedAuthError(req)) ?? new NotAuthenticatedError();
  }
  // An authorizationChecker (not ours: ours throws) that answered false.
  if (error instanceof ForbiddenError && error.name === 'AccessDeniedError') {
    return new AccountHttpError(new AccountError('permission_denied', 'Permission denied'));
  }
  if (error.httpCode >= 400 && error.httpCode < 500) return httpErrorForStatus(error.httpCode, error.message);
  return null;
}

/** class-validator errors as `{ field, message }`, nested properties dotted; values are never copied. */
export function fieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property || 'body';
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...fieldErrors(error.children ?? [], field)];
  });
}

/** A Koa `ctx.throw(4xx, message)`, an Express `http-errors` error: its author marked the message as fit for the client. */
function isExposedHttpError(error: unknown): error is { status: number; message: string } {
  const candidate = error as { status?: unknown; expose?: unknown; message?: unknown } | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.expose === true &&
    typeof candidate.status === 'number' &&
    candidate.status >= 400 &&
    candidate.status < 500 &&
    typeof candidate.message === 'string'
  );
}
