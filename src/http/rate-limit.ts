import { resolveLogger, resolveRateLimits } from '../di/resolve';
import { AccountError } from '../errors/account-error';
import { ipLimitKey } from '../limits/ip-key';
import type { IpLimit, UserLimit } from '../limits/rate-limit-options';
import { authenticateRequest } from './request-auth';
import { clientIp } from './client-ip';
import { routeMiddleware, type RouteMiddleware } from './route-middleware';

/**
 * The per-IP budget of one action, as route middleware (`@UseBefore(rateLimit('login.ip'))`). The budget is named
 * for the action, not the path, so every spelling the router sends to the action (`/login/`, `/LOGIN`) spends the
 * same one. Over it: 429 `rate_limited` with `Retry-After`, before the body is validated or any work is done.
 *
 * @example
 * @Post('/login')
 * @UseBefore(rateLimit('login.ip'))
 * async login(@Body() body: LoginBody) { ... }
 */
export function rateLimit(limit: IpLimit): RouteMiddleware {
  return routeMiddleware(async ({ req }) => {
    const decision = await resolveRateLimits().consume(limit, ipLimitKey(clientIp(req)));
    if (!decision.allowed) {
      resolveLogger(req).warn(
        { event: 'rate_limited', outcome: 'refused', limit },
        'too many requests from this address',
      );
      throw new AccountError('rate_limited', 'Too many requests; try again later', {
        retryAfterSeconds: decision.retryAfterMs / 1000,
      });
    }
  });
}

/**
 * A per-user budget of one action, as route middleware after its per-IP one: keyed by the signed-in account's id,
 * so one account cannot spread its requests over many addresses. It authenticates the request (the one lookup the
 * guard shares); without a valid session it lets the guard answer the 401. Over it: 429 `rate_limited` with
 * `Retry-After`, before the core does anything.
 */
export function userRateLimit(limit: UserLimit): RouteMiddleware {
  return routeMiddleware(async ({ req }) => {
    const outcome = await authenticateRequest(req);
    if (outcome.kind !== 'authenticated') return;
    const decision = await resolveRateLimits().consume(limit, `user:${outcome.user.id}`);
    if (!decision.allowed) {
      resolveLogger(req).warn({ event: 'rate_limited', outcome: 'refused', limit }, 'too many requests from this account');
      throw new AccountError('rate_limited', 'Too many requests; try again later', {
        retryAfterSeconds: decision.retryAfterMs / 1000,
      });
    }
  });
}
