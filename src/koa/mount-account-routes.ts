import { useKoaServer } from 'routing-controllers';
import { accountRoutes, type MountAccountRoutesOptions } from '../app/account-routes';
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
  const prefix = options.prefix ?? '/auth';
  app.use(gatehouseHttp({ bodyLimit: options.bodyLimit, prefix: options.scoped ? prefix : undefined }));
  // Before the routes: the pages answer the GETs of paths whose other methods are the API's.
  if (options.pages) app.use(accountPages({ prefix }));
  if (options.apiDocs) {
    // The document lists the pages when they are served beside it.
    const docs = options.apiDocs === true ? {} : options.apiDocs;
    app.use(accountApiDocs({ ...docs, prefix, pages: Boolean(options.pages) }));
  }
  useKoaServer(app, { routePrefix: prefix, ...accountRoutes() });
  return app;
}
