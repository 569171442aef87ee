import type { RoutingControllersOptions } from 'routing-controllers';
import type { GatehouseHttpOptions } from '../http/gatehouse-http-options';
import type { AccountPagesOptions } from '../pages/account-pages';
import type { AccountApiDocumentOptions } from './account-api-document';
import { accountRoutes, type MountAccountRoutesOptions } from './account-routes';

/**
 * What `mountAccountRoutes()` installs, in order, decided once for both drivers: each driver only turns the steps
 * into its own middleware. Order matters: `gatehouseHttp()` first (headers, body, errors), then the pages, which
 * answer the GETs of paths whose other methods are the API's, then the API description, then the routes.
 */
export interface MountPlan {
  http: GatehouseHttpOptions;
  pages?: AccountPagesOptions;
  apiDocs?: AccountApiDocumentOptions;
  routes: RoutingControllersOptions;
}

export function mountPlan(options: MountAccountRoutesOptions = {}): MountPlan {
  const prefix = options.prefix ?? '/auth';
  const docs = options.apiDocs === true ? {} : options.apiDocs || undefined;
  return {
    http: { bodyLimit: options.bodyLimit, prefix: options.scoped ? prefix : undefined },
    pages: options.pages ? { prefix } : undefined,
    // The document lists the pages when they are served beside it.
    apiDocs: docs && { ...docs, prefix, pages: Boolean(options.pages) },
    routes: { routePrefix: prefix, ...accountRoutes() },
  };
}
