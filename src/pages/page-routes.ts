import type { Context, Middleware, Next } from 'koa';
import { SECURITY_HEADERS } from '../http/security-headers';

/** A GET route of the pages: `route` is the path below the prefix, in lower case. */
export type PageHandler = (ctx: Context, route: string) => void | Promise<void>;

/**
 * A middleware answering GET and HEAD for the given routes below `prefix`, matched as routing-controllers' router
 * matches the API routes (case-insensitive, one trailing slash allowed), with Gatehouse's security headers. Other
 * requests pass on; when one of them (OPTIONS, or a method only the API has) is answered with an `Allow` header on
 * a page path, GET and HEAD join it, and on a path no API route shares it is answered with `Allow: GET, HEAD`
 * (204 to OPTIONS, 405 to any other method) rather than a 404.
 */
export function pageRoutes(prefix: string, routes: Record<string, PageHandler>): Middleware {
  const base = prefix.replace(/\/+$/, '').toLowerCase();
  const handlers = new Map(Object.entries(routes).map(([route, handler]) => [route.toLowerCase(), handler]));
  return async (ctx: Context, next: Next) => {
    const route = routeBelow(base, ctx.path);
    const handler = route === null ? undefined : handlers.get(route);
    if (!handler || route === null) return next();
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      // As `gatehouseHttp()` sets them, for a host that installs the pages without it; a page then replaces the CSP.
      ctx.set(SECURITY_HEADERS);
      return handler(ctx, route);
    }
    await next();
    const allow = ctx.response.get('Allow');
    if (allow) ctx.set('Allow', [...new Set([...allow.split(/\s*,\s*/), 'GET', 'HEAD'])].join(', '));
    else if (ctx.status === 404 && ctx.body == null) {
      // No API route shares the path: it is still a known path, whose methods are the page's own.
      ctx.set('Allow', 'GET, HEAD');
      ctx.status = ctx.method === 'OPTIONS' ? 204 : 405;
    }
  };
}

function routeBelow(base: string, path: string): string | null {
  const lower = path.toLowerCase().replace(/(.)\/$/, '$1');
  if (lower === base || (base === '' && lower === '/')) return '';
  return lower.startsWith(`${base}/`) ? lower.slice(base.length) : null;
}
