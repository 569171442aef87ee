import Koa from 'koa';
import { ExpressDriver, KoaDriver } from 'routing-controllers';
import { Container } from 'typedi';
import type { AccountApiDocumentOptions } from '../../src/app/account-api-document';
import { USER_SERIALIZER } from '../../src/di/tokens';
import { documentedActions } from '../../src/openapi/api-doc';
import * as expressPages from '../../src/express/account-pages';
import * as koaPages from '../../src/koa/account-pages';

/** Where an app serves Gatehouse, and what the document of that prefix lists: the options it is built with. */
export type GatehouseMount = AccountApiDocumentOptions & { prefix: string };

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- any request handler, Koa's or Express's
type Handler = Function;
interface Served {
  kind: 'pages' | 'docs';
  prefix: string;
  options: AccountApiDocumentOptions;
}

/** `app.callback()` → its Koa app (an Express app is its own handler). */
const appOfHandler = new WeakMap<Handler, object>();
/** App → the route prefixes routing-controllers mounted documented controllers under. */
const routePrefixes = new WeakMap<object, Set<string>>();
/** The middlewares `accountPages()` and `accountApiDocs()` returned, with their options. */
const served = new WeakMap<Handler, Served>();

/** What both drivers' page modules export, as mutable properties (CommonJS exports read at each call). */
interface PageFactories {
  accountPages: (options?: { prefix?: string }) => Handler;
  accountApiDocs: (options?: AccountApiDocumentOptions) => Handler;
}

let watching = false;

/**
 * Learns, as apps are built, where each one mounts Gatehouse, without any help from the test that builds it:
 * routing-controllers' Koa and Express drivers report each documented controller's action with the app and its
 * route prefix; `accountPages()` and `accountApiDocs()` mark the middlewares they return; `Koa#callback()` remembers
 * its app. Installed once, by the contract hook.
 */
export function watchGatehouseMounts(): void {
  if (watching) return;
  watching = true;
  for (const Driver of [KoaDriver, ExpressDriver]) {
    const registerAction = Driver.prototype.registerAction;
    Driver.prototype.registerAction = function (this: { app: object; routePrefix: string }, action, execute) {
      // Read now, not at install: a controller's `@ApiDoc`s are recorded when its module loads.
      const target = action.controllerMetadata.target.prototype;
      if (documentedActions().some((documented) => documented.target === target)) {
        const prefixes = routePrefixes.get(this.app) ?? new Set<string>();
        routePrefixes.set(this.app, prefixes.add(this.routePrefix ?? ''));
      }
      return registerAction.call(this, action, execute);
    } as typeof registerAction;
  }
  const callback = Koa.prototype.callback;
  Koa.prototype.callback = function (this: Koa) {
    const handler = callback.call(this);
    appOfHandler.set(handler, this);
    return handler;
  };
  // Each driver's `accountPages()` and `accountApiDocs()` (the mounting helpers call them through their module).
  for (const module of [koaPages, expressPages] as PageFactories[]) {
    const { accountPages, accountApiDocs } = module;
    module.accountPages = (options = {}) =>
      mark(accountPages(options), { kind: 'pages', prefix: options.prefix ?? '/auth', options: {} });
    module.accountApiDocs = (options = {}) =>
      mark(accountApiDocs(options), { kind: 'docs', prefix: options.prefix ?? '/auth', options });
  }
}

function mark<T extends Handler>(middleware: T, what: Served): T {
  served.set(middleware, what);
  return middleware;
}

/**
 * The Gatehouse mounts of the app behind a request handler (what supertest was given): one per prefix, with the
 * pages and the document listed when that app serves them there, and the user schema the app's document states.
 * A test's own `USER_SERIALIZER` without a stated schema leaves `GET /me`'s body open (any JSON), as the hook
 * cannot know its shape; the default serializer is checked against the default schema.
 */
export function gatehouseMounts(handler: Handler): GatehouseMount[] {
  const app = appOfHandler.get(handler) ?? handler;
  const middlewares = middlewaresOf(app)
    .map((middleware) => served.get(middleware))
    .filter((item): item is Served => item !== undefined);
  const prefixes = new Set([...(routePrefixes.get(app) ?? []), ...middlewares.map((item) => item.prefix)]);
  return [...prefixes].map((prefix) => {
    const here = middlewares.filter((item) => item.prefix === prefix);
    const docs = here.find((item) => item.kind === 'docs');
    const userSchema = docs?.options.userSchema ?? (Container.has(USER_SERIALIZER) ? {} : undefined);
    return {
      prefix,
      pages: here.some((item) => item.kind === 'pages'),
      apiDocs: docs !== undefined,
      ...(userSchema ? { userSchema } : {}),
    };
  });
}

/** The app's middleware functions: Koa's list, or the handles of Express's router stack (4 or 5). */
function middlewaresOf(app: object): Handler[] {
  if (app instanceof Koa) return app.middleware as Handler[];
  const express = app as { _router?: { stack: { handle: Handler }[] }; router?: { stack?: { handle: Handler }[] } };
  const stack = express._router?.stack ?? express.router?.stack ?? [];
  return stack.map((layer) => layer.handle);
}
