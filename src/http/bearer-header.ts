import type { IncomingMessage, ServerResponse } from 'node:http';
import { NotAuthenticatedError } from './http-errors';

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
export function requireBearerToken(req: IncomingMessage, res: ServerResponse): string {
  const token = readBearerToken(req.headers.authorization || undefined);
  if (token === null) {
    res.setHeader('WWW-Authenticate', 'Bearer');
    throw new NotAuthenticatedError();
  }
  return token;
}
