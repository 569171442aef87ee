/**
 * Gatehouse on Express (routing-controllers' Express driver): the Express flavour of the HTTP groundwork, the
 * closing error handlers, the hosted pages and the mounting helper. Everything else (the DI tokens, the stores, the
 * senders, the core) is the same for both drivers: import it from `gatehouse`. The account routes and the guards
 * are the same too, and are exported here as well.
 *
 * @example
 * const app = express();
 * app.use(gatehouseHttp());
 * useExpressServer(app, { routePrefix: '/auth', ...accountRoutes() });
 * useExpressServer(app, { controllers: [PostsController], ...accountGuards() });
 * app.use(gatehouseErrors());
 */
import 'reflect-metadata';

export { gatehouseHttp, type GatehouseHttpOptions } from './express/gatehouse-http';
export { gatehouseErrors } from './express/gatehouse-errors';
export { mountAccountRoutes } from './express/mount-account-routes';
export { accountApiDocs, accountPages } from './express/account-pages';
export type { ExpressErrorHandler, ExpressHandler, ExpressLikeApp, NextFunction } from './express/express-types';
export { accountRoutes, type MountAccountRoutesOptions } from './app/account-routes';
export { accountGuards, type AccountGuardOptions, type AccountGuards } from './guards/account-guards';
export { CurrentOrganization } from './guards/current-organization';
export { CurrentCredential } from './guards/current-credential';
export type { ApiKeyCredential, RequestCredential, SessionCredential } from './http/request-auth';
export { refuseApiKeys } from './http/refuse-api-keys';
export { BearerToken } from './guards/bearer-token';
