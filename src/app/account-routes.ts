import type { RoutingControllersOptions } from 'routing-controllers';
import { ACCOUNT_CONTROLLERS } from './account-controllers';
import { accountGuards } from '../guards/account-guards';
import type { AccountApiDocumentOptions } from './account-api-document';
import type { GatehouseHttpOptions } from '../http/gatehouse-http-options';

/**
 * routing-controllers registers EVERY `@Middleware`/`@Interceptor` class of the process as global when these lists
 * are absent or empty, which would install a host's global middlewares a second time. An undecorated class
 * matches none of them, so naming it registers nothing.
 */
class NoGlobalClasses {}

/**
 * The routing-controllers options of the account routes (spec section 4, and the sessions and email-change routes):
 * the `ACCOUNT_CONTROLLERS` only, validation
 * that strips unknown fields and never copies submitted values into errors, errors left to `gatehouseHttp()`'s
 * renderer, and the account guards. The same options serve both drivers.
 *
 * @example
 * app.use(gatehouseHttp());
 * useKoaServer(app, { routePrefix: '/auth', ...accountRoutes() });    // or useExpressServer(app, ...)
 */
export function accountRoutes(): RoutingControllersOptions {
  return {
    controllers: [...ACCOUNT_CONTROLLERS],
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
    // Checked at start against these controllers only, never a host's (its own accountGuards() checks those).
    ...accountGuards({ controllers: ACCOUNT_CONTROLLERS }),
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
