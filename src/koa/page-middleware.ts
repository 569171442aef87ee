import type { Context, Middleware, Next } from 'koa';
import { SECURITY_HEADERS } from '../http/security-headers';
import { presentsApiKey } from '../http/refuse-api-keys';
import { apiKeyRefusalPage } from '../pages/api-key-refusal';
import type { PageAnswer, PageRoute } from '../pages/page-answer';
import { PAGE_METHODS, pageRouteFinder, withPageMethods } from '../pages/page-routes';

/**
 * A Koa middleware answering GET and HEAD for the given page routes below `prefix`, with Gatehouse's security
 * headers. Other requests pass on; when one of them (OPTIONS, or a method only the API has) is answered with an
 * `Allow` header on a page path, GET and HEAD join it, and on a path no API route shares it is answered with
 * `Allow: GET, HEAD` (204 to OPTIONS, 405 to any other method) rather than a 404.
 */
export function pageMiddleware(prefix: string, routes: Record<string, PageRoute>): Middleware {
  const find = pageRouteFinder(prefix, routes);
  // Not async itself: every API request passes through here, and only page paths need to wait for anything.
  return (ctx: Context, next: Next) => {
    const route = find(ctx.path);
    return route ? answerPage(ctx, next, route) : next();
  };
}

async function answerPage(ctx: Context, next: Next, route: PageRoute): Promise<void> {
  if (PAGE_METHODS.includes(ctx.method)) {
    // As `gatehouseHttp()` sets them, for a host that installs the pages without it; a page then replaces the CSP.
    ctx.set(SECURITY_HEADERS);
    // No page takes an API key as a credential: a key-shaped bearer is refused as on every Gatehouse route.
    if (presentsApiKey(ctx.req)) return send(ctx, apiKeyRefusalPage());
    send(ctx, await route({ query: new URLSearchParams(ctx.querystring) }));
    return;
  }
  await next();
  const allow = ctx.response.get('Allow');
  if (allow) ctx.set('Allow', withPageMethods(allow));
  else if ((ctx.status === 404 || ctx.status === 501) && ctx.body == null) {
    // No API route shares the path: it is still a known path, whose methods are the page's own. The router answers
    // a method it does not implement (TRACE, QUERY, PROPFIND...) with a bodiless 501 and an empty `Allow`, which
    // would otherwise end as a 404.
    ctx.set('Allow', PAGE_METHODS.join(', '));
    ctx.status = ctx.method === 'OPTIONS' ? 204 : 405;
  }
}

function send(ctx: Context, answer: PageAnswer): void {
  ctx.status = answer.status;
  ctx.set(answer.headers);
  ctx.type = answer.type;
  ctx.body = answer.body;
}
