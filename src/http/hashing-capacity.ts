import type { Middleware } from 'koa';
import { resolveAccountService } from '../di/resolve';

/**
 * Route middleware for the actions that hash a password (`@UseBefore(rateLimit(...), hashingCapacity)`): while the
 * hashing queue is full, they are answered 503 with `Retry-After` before their body is validated or anything is
 * looked up, the answer the core would give after all that work (see `AccountService.refuseIfHashingSaturated`).
 */
export const hashingCapacity: Middleware = (ctx, next) => {
  resolveAccountService().refuseIfHashingSaturated();
  return next();
};
