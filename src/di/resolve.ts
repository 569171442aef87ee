import type { IncomingMessage } from 'node:http';
import { Container, Token } from 'typedi';
import { ConsoleEmailSender } from '../email/console-email-sender';
import { ConfigurationError } from '../errors/configuration-error';
import { EmailLinks } from '../email/email-links';
import { compileTrustedProxies } from '../limits/trusted-proxies';
import { RateLimits } from '../limits/rate-limits';
import type { RateLimitOptions } from '../limits/rate-limit-options';
import type { EmailSender } from '../services/email-sender';
import type { LegacyEmailSender } from '../services/legacy-email-sender';
import type { AccountOptions } from '../services/account-options';
import type { AccountService } from '../services/account-service';
import { createAccountService } from './create-account-service';
import { RegistrationWatch } from './registration-watch';
import { Clock, systemClock } from '../services/clock';
import { withLogContext } from '../logging/contextual-logger';
import { logContextOf } from '../logging/log-context';
import { defaultLogger } from '../logging/pino-logger';
import { Logger } from '../services/logger';
import type { UserSerializer } from '../services/types';
import { defaultUserSerializer } from '../services/user-serializer';
import type { UserStore } from '../services/user-store';
import {
  ACCOUNT_OPTIONS,
  CLOCK,
  EMAIL_SENDER,
  LOGGER,
  RATE_LIMITS,
  TRUSTED_PROXIES,
  USER_SERIALIZER,
  USER_STORE,
} from './tokens';

/** What the resolvers read: TypeDI's global `Container` or any `ContainerInstance`. */
export interface TokenContainer {
  has<T>(token: Token<T>): boolean;
  get<T>(token: Token<T>): T;
}

/** The values a service was built from; a new service is built when any of them is a different object. */
interface Built {
  store: UserStore;
  sender: EmailSender | LegacyEmailSender | undefined;
  options: AccountOptions;
  clock: Clock | undefined;
  logger: Logger | undefined;
  limiter: RateLimits;
  service: AccountService;
  /** Whether the tokens it was built from still hold the same values, without asking the container (null: ask). */
  watch: RegistrationWatch | null;
}

/** The tokens a service is built from (`Built`). */
const SERVICE_TOKENS: Token<unknown>[] = [USER_STORE, ACCOUNT_OPTIONS, EMAIL_SENDER, CLOCK, LOGGER, RATE_LIMITS];

const built = new WeakMap<TokenContainer, Built>();
const builtLimits = new WeakMap<TokenContainer, { options: RateLimitOptions | undefined; limits: RateLimits }>();
// One development sender per container, so that an unset EMAIL_SENDER does not count as a change on every call.
const defaultSenders = new WeakMap<TokenContainer, EmailSender>();

/**
 * The `AccountService` of the container's tokens. USER_STORE and ACCOUNT_OPTIONS are required; EMAIL_SENDER
 * defaults to a console sender (development only: it prints the links), CLOCK to the system clock, LOGGER to JSON
 * lines on stderr. The service is memoized on the identity of those values: a host that sets or removes a token gets
 * a service built from the new values on the next call. Between such changes a call costs a few property reads
 * (`RegistrationWatch`), not a search of the container per token.
 *
 * @example
 * Container.set(USER_STORE, new MemoryUserStore());
 * Container.set(ACCOUNT_OPTIONS, { secretKey: process.env.SECRET! });
 * const accounts = resolveAccountService();
 */
export function resolveAccountService(container: TokenContainer = Container): AccountService {
  const last = built.get(container);
  if (last?.watch?.unchanged()) return last.service;
  const store = required(container, USER_STORE, 'USER_STORE');
  const options = required(container, ACCOUNT_OPTIONS, 'ACCOUNT_OPTIONS');
  const sender = optional(container, EMAIL_SENDER);
  const clock = optional(container, CLOCK);
  const logger = optional(container, LOGGER);
  const limiter = resolveRateLimits(container);
  if (
    last &&
    last.store === store &&
    last.options === options &&
    last.sender === sender &&
    last.clock === clock &&
    last.logger === logger &&
    last.limiter === limiter
  ) {
    last.watch = RegistrationWatch.of(container, SERVICE_TOKENS);
    return last.service;
  }
  // Checked here so that a bad proxy list fails the host's boot-time call, not its first request.
  compileTrustedProxies(optional(container, TRUSTED_PROXIES));
  const service = createAccountService({
    store,
    options,
    sender: sender ?? defaultSender(container, logger ?? defaultLogger()),
    clock: clock ?? systemClock,
    // The request's id and client address reach the core's lines and audit events through `accountsFor(req)`.
    logger: logger ?? defaultLogger(),
    limiter,
  });
  // Taken after the lookups above, which may have made a factory's value.
  const watch = RegistrationWatch.of(container, SERVICE_TOKENS);
  built.set(container, { store, options, sender, clock, logger, limiter, service, watch });
  handOverDelivery(last?.service, service);
  return service;
}

/**
 * A started email worker belongs to the service it was built with: when a token changes and a new service replaces
 * that one, the old worker stops claiming (a send under way finishes) and the new one polls in its place.
 */
function handOverDelivery(previous: AccountService | undefined, next: AccountService): void {
  if (!previous?.delivery?.polling) return;
  void previous.delivery.stop();
  next.delivery?.start();
}

/**
 * The rate limits of the container's RATE_LIMITS options; unset, the defaults in this process's memory (on: the
 * limits are part of the security defaults). Memoized on the options object, so the counters live as long as it:
 * setting RATE_LIMITS again starts from empty (memory) budgets.
 */
export function resolveRateLimits(container: TokenContainer = Container): RateLimits {
  const options = optional(container, RATE_LIMITS);
  const last = builtLimits.get(container);
  if (last && last.options === options) return last.limits;
  // The logger is looked up on each use, so that setting LOGGER later does not cost the counters.
  const logger: Logger = {
    info: (fields, message) => resolveLogger(undefined, container).info(fields, message),
    warn: (fields, message) => resolveLogger(undefined, container).warn(fields, message),
    error: (fields, message) => resolveLogger(undefined, container).error(fields, message),
  };
  const limits = new RateLimits(options, logger);
  builtLimits.set(container, { options, limits });
  return limits;
}

/** The USER_SERIALIZER of the container, or the default public form `{ username, email, verified }`. */
export function resolveSerializer(container: TokenContainer = Container): UserSerializer {
  return optional(container, USER_SERIALIZER) ?? defaultUserSerializer;
}

/** The LOGGER of the container (or pino on stderr), adding the id and IP of `req`, if given, to every line. */
export function resolveLogger(req?: IncomingMessage, container: TokenContainer = Container): Logger {
  return withLogContext(optional(container, LOGGER) ?? defaultLogger(), req);
}

/**
 * The account core as the request `req` sees it (`AccountService.forRequest`): its log lines and audit events carry
 * the request id and client address `gatehouseHttp()` gave it. For a request it did not handle, the core itself.
 *
 * @example
 * await accountsFor(ctx.req).register({ username, email, password });
 */
export function accountsFor(req: IncomingMessage, container: TokenContainer = Container): AccountService {
  const accounts = resolveAccountService(container);
  const context = logContextOf(req);
  return context ? accounts.forRequest(context) : accounts;
}

function required<T>(container: TokenContainer, token: Token<T>, exportName: string): T {
  const value = optional(container, token);
  if (value === undefined) {
    throw new ConfigurationError(
      `Gatehouse: the TypeDI token ${exportName} ('${token.name}') is not set; call Container.set(${exportName}, ...) ` +
        'before the first request',
    );
  }
  return value;
}

function optional<T>(container: TokenContainer, token: Token<T>): T | undefined {
  if (!container.has(token)) return undefined;
  return container.get(token) ?? undefined;
}

/** Where the development sender's links point; a host that mounts elsewhere sets EMAIL_SENDER itself. */
const DEFAULT_LINKS = { publicUrl: 'http://localhost:8000', prefix: '/auth' };

function defaultSender(container: TokenContainer, logger: Logger): EmailSender {
  let sender = defaultSenders.get(container);
  if (!sender) {
    sender = new ConsoleEmailSender({ links: new EmailLinks(DEFAULT_LINKS) });
    defaultSenders.set(container, sender);
    logger.warn(
      { event: 'config', links: `${DEFAULT_LINKS.publicUrl}${DEFAULT_LINKS.prefix}` },
      'EMAIL_SENDER is not set: emails are printed to stdout with links under http://localhost:8000/auth; ' +
        'set EMAIL_SENDER (ConsoleEmailSender or SmtpEmailSender with your EmailLinks) to change that',
    );
  }
  return sender;
}
