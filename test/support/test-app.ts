import express from 'express';
import Koa from 'koa';
import { useContainer, useExpressServer, useKoaServer } from 'routing-controllers';
import request from 'supertest';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import {
  ACCOUNT_OPTIONS,
  CLOCK,
  EMAIL_SENDER,
  LOGGER,
  RATE_LIMITS,
  TRUSTED_PROXIES,
  USER_SERIALIZER,
  USER_STORE,
} from '../../src/di/tokens';
import { accountRoutes } from '../../src/app/account-routes';
import { gatehouseHttp } from '../../src/koa/gatehouse-http';
import * as onExpress from '../../src/express';
import type { GatehouseHttpOptions } from '../../src/http/gatehouse-http-options';
import type { RateLimitOptions } from '../../src/limits/rate-limit-options';
import { AccountService } from '../../src/services/account-service';
import { UserSerializer } from '../../src/services/types';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import type { UserStore } from '../../src/services/user-store';
import { CapturingLogger } from './capturing-logger';
import { countingStore } from './counting-store';
import { generousRateLimits } from './generous-rate-limits';
import { RecordingEmailSender } from './recording-email-sender';

import { CHEAP_HASHING, OTHER_PASSWORD, PASSWORD, TEST_SECRET } from './fixtures';

export { OTHER_PASSWORD, PASSWORD, TEST_SECRET };
export const PREFIX = '/auth';

/** routing-controllers' two drivers; the suites that matter to hosts run on both. */
export type Driver = 'koa' | 'express';
export const DRIVERS: readonly Driver[] = ['koa', 'express'];

/** A Koa or an Express application. */
export type HostApp = Koa | express.Express;

/** Mounts a host's controllers on the app with the driver's `use...Server`, as a host would. */
export function useServer(app: HostApp, options: Parameters<typeof useKoaServer>[1]): void {
  if (app instanceof Koa) useKoaServer(app, options);
  else useExpressServer(app, options);
}

/** The handler supertest drives: Koa's callback or the Express app itself. */
export function handlerOf(app: HostApp) {
  return app instanceof Koa ? app.callback() : app;
}

export interface TestAppOptions extends GatehouseHttpOptions {
  /** Default `'koa'`. */
  driver?: Driver;
  serializer?: UserSerializer;
  /** Mounts more controllers after the account routes, as a host would (`useServer` on the same app). */
  mount?: (app: HostApp) => void;
  /** Default: `generousRateLimits()`. */
  rateLimits?: RateLimitOptions;
  /** The store the routes use; default a fresh `MemoryUserStore` (see `test-stores.ts` for SQLite and PostgreSQL). */
  store?: UserStore;
}

/** A Koa app with the account routes under /auth, wired to a fresh memory store, a recording sender and logger. */
export interface TestApp {
  app: HostApp;
  driver: Driver;
  http: ReturnType<typeof request>;
  accounts: AccountService;
  store: UserStore;
  /** Counts of store method calls, by name, since the app was built (or `calls.clear()`). */
  calls: Map<string, number>;
  sender: RecordingEmailSender;
  logger: CapturingLogger;
  /** Registers and verifies a user over HTTP. */
  createUser(
    username: string,
    email?: string,
    password?: string,
  ): Promise<{ username: string; email: string; password: string }>;
  /** Registers, verifies and logs in over HTTP; returns the bearer token. */
  loginNewUser(username: string, email?: string, password?: string): Promise<string>;
  login(username: string, password?: string): Promise<string>;
}

/** Sets the DI tokens a fresh set of doubles, so every test starts from an empty world. */
export function resetContainer(
  options: { serializer?: UserSerializer; rateLimits?: RateLimitOptions; store?: UserStore } = {},
) {
  const memory = new MemoryUserStore();
  const counted = countingStore(options.store ?? memory);
  const sender = new RecordingEmailSender();
  const logger = new CapturingLogger();
  Container.set(USER_STORE, counted.store);
  Container.set(EMAIL_SENDER, sender);
  // Cheap argon2 parameters: these tests are about HTTP, and the core's own tests cover the real cost.
  Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, hashing: CHEAP_HASHING });
  Container.set(LOGGER, logger);
  // Many logins from one address in a few seconds: see generousRateLimits (test/limits proves the defaults).
  Container.set(RATE_LIMITS, options.rateLimits ?? generousRateLimits());
  Container.remove(TRUSTED_PROXIES);
  Container.remove(CLOCK);
  if (options.serializer) Container.set(USER_SERIALIZER, options.serializer);
  else Container.remove(USER_SERIALIZER);
  return { memory, store: options.store ?? memory, calls: counted.calls, sender, logger };
}

export function buildTestApp(options: TestAppOptions = {}): TestApp {
  const { serializer, rateLimits } = options;
  const { store, calls, sender, logger } = resetContainer({ serializer, rateLimits, store: options.store });
  // As a host does (and the standalone server): routing-controllers builds controllers through TypeDI.
  useContainer(Container);
  const driver = options.driver ?? 'koa';
  let app: HostApp;
  if (driver === 'koa') {
    const koa = new Koa();
    koa.use(gatehouseHttp({ bodyLimit: options.bodyLimit }));
    useKoaServer(koa, { routePrefix: PREFIX, ...accountRoutes() });
    options.mount?.(koa);
    app = koa;
  } else {
    const host = express();
    host.use(onExpress.gatehouseHttp({ bodyLimit: options.bodyLimit }));
    useExpressServer(host, { routePrefix: PREFIX, ...accountRoutes() });
    options.mount?.(host);
    host.use(onExpress.gatehouseErrors());
    app = host;
  }
  const http = request(handlerOf(app));
  const accounts = resolveAccountService();

  const testApp: TestApp = {
    app,
    driver,
    http,
    accounts,
    store,
    calls,
    sender,
    logger,
    async createUser(username, email = `${username}@example.com`, password = PASSWORD) {
      await http.post(`${PREFIX}/register`).send({ username, email, password }).expect(201);
      await accounts.drain();
      const token = sender.lastToken('sendVerification', email);
      await http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
      await accounts.drain();
      return { username, email, password };
    },
    async login(username, password = PASSWORD) {
      const response = await http.post(`${PREFIX}/login`).send({ username, password }).expect(200);
      return response.body.access_token as string;
    },
    async loginNewUser(username, email, password = PASSWORD) {
      await testApp.createUser(username, email, password);
      return testApp.login(username, password);
    },
  };
  return testApp;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
