import { accountApiDocRoutes } from '../app/account-api-docs';
import type { AccountApiDocumentOptions } from '../app/account-api-document';
import { featurePages } from '../app/features';
import { accountPageRoutes, type AccountPagesOptions } from '../pages/account-pages';
import type { ExpressHandler } from './express-types';
import { pageMiddleware } from './page-middleware';

/**
 * The hosted pages as one Express middleware (see `accountPageRoutes`). Install it after `gatehouseHttp()` and
 * before the account routes; `mountAccountRoutes(app, { pages: true })` does so.
 *
 * @example
 * app.use(gatehouseHttp());
 * app.use(accountPages({ prefix: '/auth' }));
 * useExpressServer(app, { routePrefix: '/auth', ...accountRoutes() });
 */
export function accountPages(options: AccountPagesOptions = {}): ExpressHandler {
  const prefix = options.prefix ?? '/auth';
  return pageMiddleware('accountPages()', prefix, accountPageRoutes(featurePages(), { prefix }));
}

/**
 * Serves `{prefix}/openapi.json` and `{prefix}/reference` (see `accountApiDocRoutes`). Install it after
 * `gatehouseHttp()`; `mountAccountRoutes(app, { apiDocs: true })` does so.
 */
export function accountApiDocs(options: AccountApiDocumentOptions = {}): ExpressHandler {
  const prefix = options.prefix ?? '/auth';
  return pageMiddleware('accountApiDocs()', prefix, accountApiDocRoutes({ ...options, prefix }));
}
