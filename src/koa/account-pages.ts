import { accountApiDocRoutes } from '../app/account-api-docs';
import type { AccountApiDocumentOptions } from '../app/account-api-document';
import { featurePages } from '../app/features';
import { accountPageRoutes, type AccountPagesOptions } from '../pages/account-pages';
import { refuseOtherDriver } from './driver-check';
import type { KoaMiddleware } from './koa-types';
import { pageMiddleware } from './page-middleware';

/**
 * The hosted pages as one Koa middleware (see `accountPageRoutes`). Install it after `gatehouseHttp()` (whose
 * headers it keeps, replacing only the CSP) and before the account routes; `mountAccountRoutes(app, { pages: true })`
 * does so.
 *
 * @example
 * app.use(gatehouseHttp());
 * app.use(accountPages({ prefix: '/auth' }));
 * useKoaServer(app, { routePrefix: '/auth', ...accountRoutes() });
 */
export function accountPages(options: AccountPagesOptions = {}): KoaMiddleware {
  const prefix = options.prefix ?? '/auth';
  return refuseOtherDriver('accountPages()', pageMiddleware(prefix, accountPageRoutes(featurePages(), { prefix })));
}

/**
 * Serves the API description beside the account routes (see `accountApiDocRoutes`): `{prefix}/openapi.json` and
 * `{prefix}/reference`. Install it after `gatehouseHttp()`; `mountAccountRoutes(app, { apiDocs: true })` does so.
 *
 * @example
 * app.use(gatehouseHttp());
 * app.use(accountApiDocs({ prefix: '/auth' }));
 */
export function accountApiDocs(options: AccountApiDocumentOptions = {}): KoaMiddleware {
  const prefix = options.prefix ?? '/auth';
  return refuseOtherDriver('accountApiDocs()', pageMiddleware(prefix, accountApiDocRoutes({ ...options, prefix })));
}
