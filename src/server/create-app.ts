import Koa from 'koa';
import { useContainer } from 'routing-controllers';
import { Container, Token } from 'typedi';
import {
  ACCOUNT_OPTIONS,
  CLOCK,
  EMAIL_SENDER,
  LOGGER,
  RATE_LIMITS,
  TRUSTED_PROXIES,
  USER_SERIALIZER,
  USER_STORE,
} from '../di/tokens';
import type { EmailSender } from '../services/email-sender';
import type { LegacyEmailSender } from '../services/legacy-email-sender';
import { mountAccountRoutes } from '../koa/mount-account-routes';
import type { RateLimitOptions } from '../limits/rate-limit-options';
import type { AccountOptions } from '../services/account-options';
import type { Clock } from '../services/clock';
import type { Logger } from '../services/logger';
import type { UserSerializer } from '../services/types';
import type { UserStore } from '../services/user-store';

export interface AppDependencies {
  store: UserStore;
  sender: EmailSender | LegacyEmailSender;
  options: AccountOptions;
  /** Route prefix of the account routes; default `/auth`. */
  prefix?: string;
  clock?: Clock;
  logger?: Logger;
  serializer?: UserSerializer;
  /** Default: the default limits, in memory, counted from zero for this app. */
  rateLimits?: RateLimitOptions;
  /** Proxies whose `X-Forwarded-For` is believed (proxy-addr syntax); default none. */
  trustedProxies?: string[];
  /** Serve the hosted pages under the prefix; default off (the server turns them on with `GATEHOUSE_PAGES`). */
  pages?: boolean;
  /** Serve `{prefix}/openapi.json` and the API reference page; default off (on with `GATEHOUSE_API_DOCS`). */
  apiDocs?: boolean;
}

/**
 * Builds the standalone Koa app: the account routes under `prefix`, wired through the global TypeDI container
 * exactly as a host would wire them. It never listens (tests drive `app.callback()`), and because the container
 * is process-wide, one process serves one configuration at a time: a second call re-points the tokens.
 */
export function createApp(deps: AppDependencies): Koa {
  useContainer(Container);
  Container.set(USER_STORE, deps.store);
  Container.set(EMAIL_SENDER, deps.sender);
  Container.set(ACCOUNT_OPTIONS, deps.options);
  setOrRemove(CLOCK, deps.clock);
  setOrRemove(LOGGER, deps.logger);
  setOrRemove(USER_SERIALIZER, deps.serializer);
  // A fresh options object even for the defaults: each app counts from zero, not from the previous app's counters.
  Container.set(RATE_LIMITS, deps.rateLimits ?? {});
  setOrRemove(TRUSTED_PROXIES, deps.trustedProxies);
  const app = new Koa();
  mountAccountRoutes(app, { prefix: deps.prefix ?? '/auth', pages: deps.pages, apiDocs: deps.apiDocs });
  return app;
}

function setOrRemove<T>(token: Token<T>, value: T | undefined): void {
  if (value === undefined) Container.remove(token);
  else Container.set(token, value);
}
