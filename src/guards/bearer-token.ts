import type { Context } from 'koa';
import { createParamDecorator } from 'routing-controllers';
import { NotAuthenticatedError } from '../errors/http-errors';

// RFC 6750 section 2.1: the scheme (any case), then one b64token. Anything else, including a second credential,
// counts as no bearer token at all rather than as a token the core should look up.
const BEARER_HEADER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** The credential of an `Authorization: Bearer <token>` header, or null when the header is absent or malformed. */
export function readBearerToken(header: string | undefined): string | null {
  if (typeof header !== 'string') return null;
  const match = BEARER_HEADER.exec(header);
  return match ? match[1] : null;
}

/**
 * The bearer token of the request, or a `NotAuthenticatedError` (401, plain detail). The challenge header is set
 * here as well as by the error middleware, so routing-controllers' default error handler answers it too.
 */
export function requireBearerToken(ctx: Context): string {
  const token = readBearerToken(ctx.get('authorization') || undefined);
  if (token === null) {
    ctx.set('WWW-Authenticate', 'Bearer');
    throw new NotAuthenticatedError();
  }
  return token;
}

/**
 * Injects the raw bearer token of the request; a request without one fails with 401 before the action runs.
 *
 * @example
 * @Post('/logout') logout(@BearerToken() token: string) { ... }
 */
export function BearerToken(): (object: object, method: string, index: number) => void {
  return createParamDecorator({ required: false, value: (action) => requireBearerToken(action.context) });
}
