import { useKoaServer } from 'routing-controllers';
import type { MountAccountRoutesOptions } from '../app/account-routes';
import { mountPlan } from '../app/mount-plan';
import { appliesTo } from '../http/request-prefix';
import { accountApiDocs, accountPages } from './account-pages';
import { requireKoaApp } from './driver-check';
import { gatehouseHttp } from './gatehouse-http';
import type { KoaLikeApp } from './koa-types';
import { cacheRouteMatches, type MatchingRouter } from './router-match-cache';

/**
 * The one-line setup on Koa: `gatehouseHttp()`, the pages and API description when asked for, then the account
 * routes under `prefix`. A host that mounts its own controllers too calls it first, then `useKoaServer` for them.
 * Given an Express app, it fails at once with a `ConfigurationError` naming `gatehouse/express`.
 *
 * @example
 * mountAccountRoutes(app, { prefix: '/auth', pages: true, apiDocs: true });
 */
export function mountAccountRoutes<App extends KoaLikeApp>(app: App, options: MountAccountRoutesOptions = {}): App {
  requireKoaApp(app, 'mountAccountRoutes()');
  const plan = mountPlan(options);
  app.use(gatehouseHttp(plan.http));
  if (plan.pages) app.use(accountPages(plan.pages));
  if (plan.apiDocs) app.use(accountApiDocs(plan.apiDocs));
  const before = app.middleware.length;
  useKoaServer(app, plan.routes);
  skipReadBodies(app, before);
  const router = addedRouter(app, before);
  if (router) {
    routeOnlyUnder(app, plan.routes.routePrefix);
    cacheRouteMatches(router);
  }
  return app;
}

type RouteMiddleware = (ctx: { path: string }, next: () => Promise<unknown>) => unknown;

type BodyParserContext = { request: { body?: unknown }; disableBodyParser?: boolean };

/**
 * routing-controllers' Koa driver installs koa-bodyparser first, with every `useKoaServer`. On a request whose body is
 * already read (each one `gatehouseHttp()` handles, GETs included) it only awaits `next()`, an async frame on every
 * request. The same test, made before it, passes such a request on at once; any other still reaches the parser.
 */
function skipReadBodies(app: KoaLikeApp, index: number): void {
  const parser = app.middleware[index] as
    ((ctx: BodyParserContext, next: () => Promise<unknown>) => unknown) | undefined;
  if (typeof parser !== 'function' || parser.name !== 'bodyParser') return;
  const skipping = (ctx: BodyParserContext, next: () => Promise<unknown>) =>
    ctx.request.body !== undefined || ctx.disableBodyParser ? next() : parser(ctx, next);
  app.middleware[index] = skipping;
}

/**
 * The router routing-controllers' Koa driver just added, when it can be told: the driver adds it last, as `routes()`
 * then `allowedMethods()`, and the first carries `.router`.
 */
function addedRouter(app: KoaLikeApp, before: number): MatchingRouter | undefined {
  const added = app.middleware.length - before;
  const routes = app.middleware[app.middleware.length - 2] as (RouteMiddleware & { router?: unknown }) | undefined;
  if (added < 2 || typeof routes !== 'function' || typeof routes.router !== 'object') return undefined;
  const router = routes.router as Partial<MatchingRouter>;
  return typeof router.match === 'function' && Array.isArray(router.stack) ? (router as MatchingRouter) : undefined;
}

/**
 * The account router looks only at paths under the prefix. Outside it none of its routes can match, and @koa/router
 * would still test each of them (some fifty regular expressions) on every request of the host's own routes: 7 µs of
 * a guarded host route's 270 on Node 24 in the bench's profile.
 *
 * Only the router's two middlewares, the last two, are wrapped. routing-controllers' body parser, added first, still
 * sees every request, as it did.
 */
function routeOnlyUnder(app: KoaLikeApp, prefix: string | undefined): void {
  const applies = appliesTo(prefix);
  for (const index of [app.middleware.length - 2, app.middleware.length - 1]) {
    const middleware = app.middleware[index] as RouteMiddleware & { router?: unknown };
    const gated: RouteMiddleware = (ctx, next) => (applies(ctx.path) ? middleware(ctx, next) : next());
    // Kept visible, as @koa/router exposes it, to whatever reads an app's routes from its middleware.
    app.middleware[index] = middleware.router ? Object.assign(gated, { router: middleware.router }) : gated;
  }
}
