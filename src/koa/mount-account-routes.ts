import { useKoaServer } from 'routing-controllers';
import type { MountAccountRoutesOptions } from '../app/account-routes';
import { mountPlan } from '../app/mount-plan';
import { accountApiDocs, accountPages } from './account-pages';
import { requireKoaApp } from './driver-check';
import { gatehouseHttp } from './gatehouse-http';
import type { KoaLikeApp } from './koa-types';

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
  useKoaServer(app, plan.routes);
  return app;
}
