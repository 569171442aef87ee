import type { Context, Middleware } from 'koa';
import type { GatehouseHttpOptions } from '../http/gatehouse-http-options';
import { DEFAULT_BODY_LIMIT } from '../http/json-body';
import { refuseTokenInQuery } from '../http/query-token';
import { beginRequest } from '../http/request-context';
import { appliesTo } from '../http/request-prefix';
import { setSecurityHeaders } from '../http/security-headers';
import { refuseOtherDriver } from './driver-check';
import { errorMiddleware } from './error-middleware';
import { jsonBody } from './json-body';
import type { KoaMiddleware } from './koa-types';

export type { GatehouseHttpOptions };

/**
 * The HTTP groundwork of Gatehouse as one Koa middleware: a request id in every answer and log line, security
 * headers on every answer, JSON errors for every failure (see `errorMiddleware`), and strict JSON body parsing.
 * Install it with `app.use()` BEFORE `useKoaServer()`: it must parse bodies before the koa-bodyparser
 * routing-controllers adds, and catch what the routes below it throw. (Express: `gatehouse/express`.)
 *
 * @example
 * app.use(gatehouseHttp());
 * useKoaServer(app, { routePrefix: '/auth', ...accountRoutes() });
 */
export function gatehouseHttp(options: GatehouseHttpOptions = {}): KoaMiddleware {
  const errors = errorMiddleware();
  const body = jsonBody({ limit: options.bodyLimit ?? DEFAULT_BODY_LIMIT });
  const applies = appliesTo(options.prefix);
  // Outermost first: the request id and headers are set before anything can fail, and body-parser failures reach
  // the error renderer.
  const middleware: Middleware = (ctx, next) => {
    if (!applies(ctx.path)) return next();
    beginRequest(ctx.req, ctx.res);
    setSecurityHeaders(ctx.res);
    return errors(ctx, () => {
      refuseTokenInQuery(ctx.req);
      const answered = body(ctx, next);
      return mayAdjust(ctx.method) ? answered.then(() => answerMethods(ctx)) : answered;
    });
  };
  return refuseOtherDriver('gatehouseHttp()', middleware);
}

// The methods @koa/router implements; it answers any other (PROPFIND, SEARCH...) on a known path with 501.
const ROUTER_METHODS = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

/** The methods whose answers `answerMethods` can change; the others need not wait for the routes to finish. */
function mayAdjust(method: string): boolean {
  return method === 'OPTIONS' || !ROUTER_METHODS.has(method);
}

/**
 * The router answers OPTIONS with an empty 200 and `Allow`; an answer without a body is a 204. A method it does not
 * know gets a bodiless 501, a server error any scanner could cause: it is answered like any other method the path
 * does not take, 405 with `Allow` (found by the fuzz suite, test/fuzz).
 */
function answerMethods(ctx: Context): void {
  if (ctx.method === 'OPTIONS' && ctx.status === 200 && !ctx.body) ctx.status = 204;
  if (ctx.status === 501 && !ctx.body && !ROUTER_METHODS.has(ctx.method)) {
    const allowed = ctx.response.get('Allow') !== '';
    ctx.status = allowed ? 405 : 404;
    // The router sets an empty `Allow` on a path it does not know, which would say "no method" of a missing path.
    if (!allowed) ctx.remove('Allow');
  }
}
