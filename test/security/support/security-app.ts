import path from 'node:path';
import express from 'express';
import Koa from 'koa';
import { useContainer, useExpressServer, useKoaServer } from 'routing-controllers';
import request, { Response } from 'supertest';
import { Container } from 'typedi';
import { resolveAccountService } from '../../../src/di/resolve';
import {
  ACCOUNT_OPTIONS,
  CLOCK,
  EMAIL_SENDER,
  LOGGER,
  RATE_LIMITS,
  TRUSTED_PROXIES,
  USER_SERIALIZER,
  USER_STORE,
} from '../../../src/di/tokens';
import type { EmailSender } from '../../../src/services/email-sender';
import { accountRoutes } from '../../../src/app/account-routes';
import * as onExpress from '../../../src/express';
import { gatehouseHttp } from '../../../src/koa/gatehouse-http';
import type { RateLimitOptions } from '../../../src/limits/rate-limit-options';
import { accountPages } from '../../../src/koa/account-pages';
import type { AccountOptions } from '../../../src/services/account-options';
import type { AccountService } from '../../../src/services/account-service';
import type { Clock } from '../../../src/services/clock';
import type { SqlUserStore } from '../../../src/stores/sql/sql-user-store';
import { SqliteUserStore } from '../../../src/stores/sqlite-user-store';
import { makeTempFolder } from '../../stores/temp-folder';
import { CapturingLogger } from '../../support/capturing-logger';
import { RecordingEmailSender } from '../../support/recording-email-sender';
import { generousRateLimits } from '../../support/generous-rate-limits';
import { CHEAP_HASHING } from '../../support/fixtures';
import { Driver, handlerOf, HostApp, PASSWORD, PREFIX, TEST_SECRET } from '../../support/test-app';
import { dumpTables, Row } from './sqlite-file';

export { PASSWORD, OTHER_PASSWORD, PREFIX, TEST_SECRET, bearer } from '../../support/test-app';

/** Cheap argon2 for tests about something else; the password tests ask for the real cost with `hashing: {}`. */

/** The store an app runs on, with a way to read every table behind its back. */
export interface StoreUnderTest {
  store: SqlUserStore;
  /** The SQLite file; '' for a server database. */
  filename: string;
  dump(): Promise<Map<string, Row[]>>;
  close(): Promise<void>;
}

/** A fresh SQLite file in a temporary folder: the default store of the suite. */
export async function sqliteStore(): Promise<StoreUnderTest> {
  const folder = makeTempFolder('gatehouse-security-');
  const filename = path.join(folder.path, 'gatehouse.db');
  const store = await SqliteUserStore.open({ filename });
  return {
    store,
    filename,
    dump: async () => dumpTables(filename),
    async close() {
      await store.close();
      folder.remove();
    },
  };
}

export interface SecurityAppOptions<S extends EmailSender> {
  /** Default: `sqliteStore()`. */
  openStore?: () => Promise<StoreUnderTest>;
  /** Merged over the secret key and cheap hashing. */
  accountOptions?: Partial<AccountOptions>;
  clock?: Clock;
  sender?: S;
  /** Default: limits on but out of reach (`generousRateLimits`), so a suite's many requests from 127.0.0.1 pass. */
  rateLimits?: RateLimitOptions;
  trustedProxies?: string | string[];
  /** Serve the hosted pages (`accountPages`) before the account routes, as `mountAccountRoutes({ pages: true })` does. */
  pages?: boolean;
  /** Mounts more controllers after the account routes, as a host would. */
  mount?: (app: HostApp) => void;
  /** routing-controllers' driver; default `'koa'`. */
  driver?: Driver;
}

/** The account routes under /auth on a fresh database (an SQLite file by default), a capturing logger and a sender. */
export interface SecurityApp<S extends EmailSender = RecordingEmailSender> {
  http: ReturnType<typeof request>;
  store: SqlUserStore;
  /** The SQLite file, for reading and breaking it behind the app's back ('' on a server database). */
  filename: string;
  /** Every row of every table, read on a connection of its own. */
  dump(): Promise<Map<string, Row[]>>;
  sender: S;
  logger: CapturingLogger;
  /** The service the routes use now (setting a DI token again builds a new one). */
  accounts(): AccountService;
  /** Waits for mail and other work done after the answers. */
  drain(): Promise<void>;
  register(username: string, email?: string, password?: string): Promise<Response>;
  /** Registers and verifies over HTTP (needs the recording sender). */
  createUser(
    username: string,
    email?: string,
    password?: string,
  ): Promise<{ username: string; email: string; password: string }>;
  login(username: string, password?: string): Promise<string>;
  loginNewUser(username: string, email?: string, password?: string): Promise<string>;
  close(): Promise<void>;
}

export async function openSecurityApp<S extends EmailSender = RecordingEmailSender>(
  options: SecurityAppOptions<S> = {},
): Promise<SecurityApp<S>> {
  const database = await (options.openStore ?? sqliteStore)();
  const { store, filename } = database;
  const sender = (options.sender ?? new RecordingEmailSender()) as S;
  const logger = new CapturingLogger();
  Container.set(USER_STORE, store);
  Container.set(EMAIL_SENDER, sender);
  Container.set(ACCOUNT_OPTIONS, {
    secretKey: TEST_SECRET,
    ...options.accountOptions,
    hashing: options.accountOptions?.hashing ?? CHEAP_HASHING,
  });
  Container.set(LOGGER, logger);
  Container.set(RATE_LIMITS, options.rateLimits ?? generousRateLimits());
  if (options.clock) Container.set(CLOCK, options.clock);
  else Container.remove(CLOCK);
  if (options.trustedProxies) Container.set(TRUSTED_PROXIES, options.trustedProxies);
  else Container.remove(TRUSTED_PROXIES);
  Container.remove(USER_SERIALIZER);

  useContainer(Container);
  const http = request(handlerOf(mountApp(options)));
  const accounts = () => resolveAccountService();

  const recorded = () => {
    if (!(sender instanceof RecordingEmailSender)) throw new Error('this helper needs the recording sender');
    return sender;
  };
  const self: SecurityApp<S> = {
    http,
    store,
    filename,
    dump: () => database.dump(),
    sender,
    logger,
    accounts,
    drain: () => accounts().drain(),
    async register(username, email = `${username}@example.com`, password = PASSWORD) {
      const response = await http.post(`${PREFIX}/register`).send({ username, email, password });
      await accounts().drain();
      return response;
    },
    async createUser(username, email = `${username}@example.com`, password = PASSWORD) {
      const registered = await self.register(username, email, password);
      if (registered.status !== 201) throw new Error(`register ${username}: ${registered.status} ${registered.text}`);
      const token = recorded().lastToken('sendVerification', email);
      await http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
      await accounts().drain();
      return { username, email, password };
    },
    async login(username, password = PASSWORD) {
      const response = await http.post(`${PREFIX}/login`).send({ username, password });
      if (response.status !== 200) throw new Error(`login ${username}: ${response.status} ${response.text}`);
      return response.body.access_token as string;
    },
    async loginNewUser(username, email, password = PASSWORD) {
      await self.createUser(username, email, password);
      return self.login(username, password);
    },
    async close() {
      await accounts().drain();
      await database.close();
    },
  };
  return self;
}

/** The account routes under /auth as a host mounts them by hand, on the chosen driver. */
function mountApp(options: Pick<SecurityAppOptions<EmailSender>, 'pages' | 'mount' | 'driver'>): HostApp {
  if (options.driver === 'express') {
    const app = express();
    app.use(onExpress.gatehouseHttp());
    if (options.pages) app.use(onExpress.accountPages({ prefix: PREFIX }));
    useExpressServer(app, { routePrefix: PREFIX, ...accountRoutes() });
    options.mount?.(app);
    app.use(onExpress.gatehouseErrors());
    return app;
  }
  const app = new Koa();
  app.use(gatehouseHttp());
  if (options.pages) app.use(accountPages({ prefix: PREFIX }));
  useKoaServer(app, { routePrefix: PREFIX, ...accountRoutes() });
  options.mount?.(app);
  return app;
}
