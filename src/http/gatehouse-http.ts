import type { Context, Middleware } from 'koa';
import { errorMiddleware } from './error-middleware';
import { DEFAULT_BODY_LIMIT, jsonBody } from './json-body';
import { refuseTokensInQuery } from './query-token';
import { requestContext } from './request-context';
import { securityHeaders } from './security-headers';

export interface GatehouseHttpOptions {
  /** Largest accepted JSON body after decoding, in bytes or as `'16kb'`. Default 16 KiB. */
  bodyLimit?: string | number;
  /**
   * Limit Gatehouse's handling to paths under this prefix (e.g. `'/auth'`): other requests pass through untouched,
   * keeping the host's own body parsing, limits and error handling. Default: every request of the app.
   */
  prefix?: string;
}

/**
 * The HTTP groundwork of Gatehouse as one Koa middleware: a request id in every answer and log line, security
 * headers on every answer, JSON errors for every failure (see `errorMiddleware`), and strict JSON body parsing. Install it with `app.use()` BEFORE
 * `useKoaServer()`: it must parse bodies before the koa-bodyparser routing-controllers adds, and catch what the
 * routes below it throw.
 *
 * @example
 * app.use(gatehouseHttp());
 * useKoaServer(app, { routePrefix: '/auth', ...accountRoutes() });
 */
export function gatehouseHttp(options: GatehouseHttpOptions = {}): Middleware {
  const context = requestContext();
  const headers = securityHeaders();
  const errors = errorMiddleware();
  const queryTokens = refuseTokensInQuery();
  const body = jsonBody({ limit: options.bodyLimit ?? DEFAULT_BODY_LIMIT });
  const applies = appliesTo(options.prefix);
  // Outermost first: the request id and headers are set before anything can fail, and body-parser failures reach
  // the error renderer.
  return (ctx, next) => {
    if (!applies(ctx.path)) return next();
    return context(ctx, () =>
      headers(ctx, () => errors(ctx, () => queryTokens(ctx, () => body(ctx, next).then(() => answerMethods(ctx))))),
    );
  };
}

/** Paths match the prefix as the router matches routes: case-insensitively, whole segments only. */
function appliesTo(prefix: string | undefined): (path: string) => boolean {
  const base = prefix?.replace(/\/+$/, '').toLowerCase();
  if (!base) return () => true;
  return (path) => {
    const lower = path.toLowerCase();
    return lower === base || lower.startsWith(`${base}/`);
  };
}

// The methods @koa/router implements; it answers any other (PROPFIND, SEARCH...) on a known path with 501.
const ROUTER_METHODS = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

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
