import { resolveAccountService } from '../di/resolve';
import { routeMiddleware } from './route-middleware';

/**
 * Route middleware for the actions that hash a password (`@UseBefore(rateLimit(...), hashingCapacity)`): while the
 * hashing queue is full, they are answered 503 with `Retry-After` before their body is validated or anything is
 * looked up, the answer the core would give after all that work (see `AccountService.refuseIfHashingSaturated`).
 */
export const hashingCapacity = routeMiddleware(() => resolveAccountService().refuseIfHashingSaturated());
