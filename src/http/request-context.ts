import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { runWithLogContext } from '../logging/log-context';
import { clientIp } from './client-ip';

export const REQUEST_ID_HEADER = 'X-Request-Id';

export interface RequestContextOptions {
  /** The client's address; default `clientIp` (TRUSTED_PROXIES-aware). */
  clientIp?: (ctx: Context) => string;
}

/**
 * Gives every request an id, sends it back as `X-Request-Id`, and runs the rest of the request with that id and
 * the client's IP in the log context, so every line logged for the request (the core's security events, an
 * unexpected error, the lookups done after the answer) can be found from the id a user reports. (Email delivery is
 * not a request's work: its lines carry the message id instead.)
 *
 * The id is always ours: one taken from the client would let it forge or collide with another request's trail.
 */
export function requestContext(options: RequestContextOptions = {}): Middleware {
  const ipOf = options.clientIp ?? clientIp;
  return (ctx, next) => {
    const requestId = randomUUID();
    ctx.set(REQUEST_ID_HEADER, requestId);
    return runWithLogContext({ requestId, ip: ipOf(ctx) }, next);
  };
}
