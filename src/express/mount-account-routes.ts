import { useExpressServer } from 'routing-controllers';
import { accountRoutes, type MountAccountRoutesOptions } from '../app/account-routes';
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
  const prefix = options.prefix ?? '/auth';
  express.use(gatehouseHttp({ bodyLimit: options.bodyLimit, prefix: options.scoped ? prefix : undefined }));
  // Before the routes: the pages answer the GETs of paths whose other methods are the API's.
  if (options.pages) express.use(accountPages({ prefix }));
  if (options.apiDocs) {
    // The document lists the pages when they are served beside it.
    const docs = options.apiDocs === true ? {} : options.apiDocs;
    express.use(accountApiDocs({ ...docs, prefix, pages: Boolean(options.pages) }));
  }
  useExpressServer(app, { routePrefix: prefix, ...accountRoutes() });
  return app;
}
