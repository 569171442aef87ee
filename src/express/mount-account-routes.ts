import { useExpressServer } from 'routing-controllers';
import type { MountAccountRoutesOptions } from '../app/account-routes';
import { mountPlan } from '../app/mount-plan';
import { accountApiDocs, accountPages } from './account-pages';
import { requireExpressApp } from './driver-check';
import type { ExpressLikeApp } from './express-types';
import { gatehouseHttp } from './gatehouse-http';

/**
 * The setup on Express, with the options of the Koa one: `gatehouseHttp()`, the pages and API description when
 * asked for, then the account routes under `prefix`. Express runs handlers in the order they were added, so the
 * host's own routes come after this call, and `app.use(gatehouseErrors())` after all of them. Given a Koa app, it
 * fails at once with a `ConfigurationError` naming `gatehouse`.
 *
 * @example
 * const app = express();
 * mountAccountRoutes(app, { prefix: '/auth', pages: true, apiDocs: true });
 * useExpressServer(app, { controllers: [PostsController], ...accountGuards() });
 * app.use(gatehouseErrors());
 */
export function mountAccountRoutes<App extends ExpressLikeApp>(app: App, options: MountAccountRoutesOptions = {}): App {
  requireExpressApp(app, 'mountAccountRoutes()');
  const express = app as unknown as { use(...handlers: unknown[]): unknown };
  const plan = mountPlan(options);
  express.use(gatehouseHttp(plan.http));
  if (plan.pages) express.use(accountPages(plan.pages));
  if (plan.apiDocs) express.use(accountApiDocs(plan.apiDocs));
  useExpressServer(app, plan.routes);
  return app;
}
