import type { KoaLikeApp } from './koa-types';

/** What this reads of an @koa/router instance: its layers' methods (a GET route's include HEAD). */
interface ReadableRouter {
  stack: { methods?: unknown }[];
}

/** The methods Koa's router can serve; the answer for an app whose routes cannot be read. */
const ANY_ROUTER_METHOD = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The methods some route of a Koa app serves, in `Allow` form, read from the routers in its middleware (as
 * `mountAccountRoutes()` leaves them, `.router` on the routes middleware), so that a route added with a new method
 * is in it without anyone remembering this list. OPTIONS is served on every routed path (`allowedMethods()`). An
 * app with no router to read may serve any method a router can, and gets them all.
 */
export function servedMethods(app: KoaLikeApp): string {
  const routers = app.middleware
    .map((middleware) => (middleware as { router?: unknown }).router)
    .filter(isReadableRouter);
  if (routers.length === 0) return ANY_ROUTER_METHOD.join(', ');
  const served = new Set<string>();
  for (const layer of routers.flatMap((router) => router.stack)) {
    if (!Array.isArray(layer.methods)) continue;
    for (const method of layer.methods) if (typeof method === 'string') served.add(method.toUpperCase());
  }
  served.add('OPTIONS');
  // In the order the list above gives them, which is the order people expect to read them in.
  const known = ANY_ROUTER_METHOD.filter((method) => served.has(method));
  return [...known, ...[...served].filter((method) => !ANY_ROUTER_METHOD.includes(method))].join(', ');
}

function isReadableRouter(router: unknown): router is ReadableRouter {
  return typeof router === 'object' && router !== null && Array.isArray((router as ReadableRouter).stack);
}
