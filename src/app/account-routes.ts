import type Koa from 'koa';
import { RoutingControllersOptions, useKoaServer } from 'routing-controllers';
import { AccountController } from '../controllers/account-controller';
import { accountGuards } from '../guards/account-guards';
import type { AccountApiDocumentOptions } from './account-api-document';
import { accountApiDocs } from './account-api-docs';
import { accountPages } from '../pages/account-pages';
import { gatehouseHttp, GatehouseHttpOptions } from '../http/gatehouse-http';

/**
 * routing-controllers registers EVERY `@Middleware`/`@Interceptor` class of the process as global when these lists
 * are absent or empty, which would install a host's global middlewares a second time. An undecorated class
 * matches none of them, so naming it registers nothing.
 */
class NoGlobalClasses {}

/**
 * The routing-controllers options of the account routes (spec section 4): `AccountController` only, validation
 * that strips unknown fields and never copies submitted values into errors, errors left to `gatehouseHttp()`'s
 * renderer, and the account guards.
 *
 * @example
 * app.use(gatehouseHttp());
 * useKoaServer(app, { routePrefix: '/auth', ...accountRoutes() });
 */
export function accountRoutes(): RoutingControllersOptions {
  return {
    controllers: [AccountController],
    middlewares: [NoGlobalClasses],
    interceptors: [NoGlobalClasses],
    defaultErrorHandler: false,
    validation: {
      whitelist: true,
      forbidUnknownValues: true,
      // One message per field: a missing field is "must be a string", not also "must be shorter than 64 characters".
      stopAtFirstError: true,
      validationError: { target: false, value: false },
    },
    ...accountGuards(),
  };
}

export interface MountAccountRoutesOptions extends Pick<GatehouseHttpOptions, 'bodyLimit'> {
  /** Route prefix; default `/auth`. */
  prefix?: string;
  /** Apply `gatehouseHttp()` to the account routes only, not to the whole app (see `GatehouseHttpOptions.prefix`). */
  scoped?: boolean;
  /** Serve the hosted pages (sign-up, sign-in, the email links' pages, account) under the prefix: `accountPages()`. */
  pages?: boolean;
  /** Serve `{prefix}/openapi.json` and the `{prefix}/reference` page; see `accountApiDocs()` for the options. */
  apiDocs?: boolean | Omit<AccountApiDocumentOptions, 'prefix' | 'pages' | 'apiDocs'>;
}

/**
 * The one-line setup: `gatehouseHttp()`, the pages and API description when asked for, then the account routes
 * under `prefix`. A host that mounts its own controllers too calls it first, then `useKoaServer` for them.
 *
 * @example
 * mountAccountRoutes(app, { prefix: '/auth', pages: true, apiDocs: true });
 */
export function mountAccountRoutes(app: Koa, options: MountAccountRoutesOptions = {}): Koa {
  const prefix = options.prefix ?? '/auth';
  app.use(gatehouseHttp({ bodyLimit: options.bodyLimit, prefix: options.scoped ? prefix : undefined }));
  // Before the routes: the pages answer the GETs of paths whose other methods are the API's.
  if (options.pages) app.use(accountPages({ prefix }));
  if (options.apiDocs) {
    const docs = options.apiDocs === true ? {} : options.apiDocs;
    app.use(accountApiDocs({ ...docs, prefix, pages: Boolean(options.pages) }));
  }
  useKoaServer(app, { routePrefix: prefix, ...accountRoutes() });
  return app;
}
