/**
 * Gatehouse: account management for routing-controllers on Koa (this entry) or Express (`gatehouse/express`).
 *
 * @example
 * useContainer(Container);
 * Container.set(USER_STORE, await SqliteUserStore.open({ filename: 'accounts.db' }));
 * Container.set(EMAIL_SENDER, new SmtpEmailSender({ url, from, links: new EmailLinks({ publicUrl, prefix: '/auth' }) }));
 * Container.set(ACCOUNT_OPTIONS, { secretKey: process.env.SECRET_KEY! });
 * app.use(gatehouseHttp());
 * useKoaServer(app, { routePrefix: '/auth', ...accountRoutes() });
 * useKoaServer(app, { controllers: [PostsController], ...accountGuards() });
 */
import 'reflect-metadata';

// Wiring a host app: the DI seams, the HTTP groundwork, the account routes and the guards.
export {
  ACCOUNT_OPTIONS,
  CLOCK,
  EMAIL_SENDER,
  LOGGER,
  RATE_LIMITS,
  TRUSTED_PROXIES,
  USER_SERIALIZER,
  USER_STORE,
} from './di/tokens';
export { accountsFor, resolveAccountService, resolveRateLimits, resolveSerializer } from './di/resolve';
// On Express, the same from `gatehouse/express`.
export { gatehouseHttp, type GatehouseHttpOptions } from './koa/gatehouse-http';
export { mountAccountRoutes } from './koa/mount-account-routes';
export type { KoaContextLike, KoaLikeApp, KoaMiddleware } from './koa/koa-types';
export { accountRoutes, type MountAccountRoutesOptions } from './app/account-routes';
export { accountGuards, type AccountGuardOptions, type AccountGuards } from './guards/account-guards';
export { CurrentOrganization } from './guards/current-organization';
export { CurrentCredential } from './guards/current-credential';
export type { ApiKeyCredential, RequestCredential, SessionCredential } from './http/request-auth';
export { refuseApiKeys } from './http/refuse-api-keys';
export type { OrganizationRouting } from './guards/organization-routes';
export type { Awaitable } from './services/awaitable';
export { BearerToken } from './guards/bearer-token';
export { readBearerToken } from './http/bearer-header';
export { clientIp } from './http/client-ip';
export { AccountController } from './controllers/account/account-controller';
export { SessionsController } from './controllers/sessions/sessions-controller';
export { EmailChangeController } from './controllers/email-changes/email-change-controller';
export { SecondFactorController } from './controllers/second-factor/second-factor-controller';
export { ACCOUNT_CONTROLLERS } from './app/account-controllers';

// The account core, usable without HTTP (scripts, jobs, other frameworks).
export { AccountService, type AccountServiceDeps, type RegisterInput } from './services/account-service';
export type { SecondFactorMethod, SecondFactorProof, SignInResult } from './services/second-factor/second-factors';
export { createAccountService } from './di/create-account-service';
export type { MailDelivery } from './services/mail-delivery';
export type { RequestOrigin } from './services/audit-trail';
export {
  DEFAULT_ACCOUNT_OPTIONS,
  type AccountOptions,
  type HashingOptions,
  type HashingQueueOptions,
  type PasswordPolicyOptions,
} from './services/account-options';
export { systemClock, type Clock } from './services/clock';
export { silentLogger, type Logger } from './services/logger';
export { createPinoLogger, type PinoLoggerOptions } from './logging/pino-logger';
// Opt-in for a host's boot (Linux): its libuv pool, where argon2 hashes, below its event loop, as `npm start` runs.
export { lowerPoolPriority, type PoolPriority } from './server/pool-priority';
export { defaultUserSerializer } from './services/user-serializer';
export { accountView } from './services/types';
export { AUTH_METHODS } from './services/auth-methods';
// Each feature's credential, email and audit kinds: the unions of the outbox's kinds and the audit's types are read from it.
export { KINDS_OF_FEATURES } from './services/kinds-of-features';
export type { FeatureKinds } from './services/feature-kinds';
export type { PasskeyOptions } from './services/passkeys/relying-party';
export type { OidcOptions, OidcProviderOptions } from './services/oidc/oidc-options';
export {
  DEFAULT_ORGANIZATION_ROLES,
  GATEHOUSE_ORGANIZATION_PERMISSIONS,
  OWNER_ROLE,
  type GatehouseOrganizationPermission,
  type OrganizationOptions,
} from './services/organizations/organization-options';
export type { IdentityView } from './services/oidc/identity-view';
export type { PasskeyView } from './services/passkeys/passkey-view';
export type {
  AccountUser,
  AuthMethod,
  PublicUser,
  SessionCheck,
  SessionClient,
  SessionView,
  StoredEmailChange,
  StoredLoginChallenge,
  StoredSecondFactor,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
  UserSerializer,
} from './services/types';

// Errors: the core's one error class, its codes and their HTTP statuses.
export { AccountError, ACCOUNT_ERROR_CODES, isAccountError, type AccountErrorCode } from './errors/account-error';
export { statusForAccountError } from './errors/status-table';
export { GatehouseHttpError } from './http/http-errors';
export { ConfigurationError } from './errors/configuration-error';

// Hosted pages and the API description, for hosts that mount them themselves (else `mountAccountRoutes` options).
export { accountApiDocs, accountPages } from './koa/account-pages';
export type { AccountPagesOptions } from './pages/account-pages';
export { PAGE_CSP } from './pages/page-headers';
export { accountApiDocument } from './app/account-api-docs';
export type { AccountApiDocumentOptions } from './app/account-api-document';
export type { JsonObject } from './openapi/schemas';

// Rate limits: per address, per account and per email address; in memory or Redis.
export * from './limits';

// Storage and email: the interfaces and the built-in implementations.
export * from './stores';
export * from './email';

// Email delivery: the outbox worker (in-process by default; `gatehouse worker` or your own for a separate process).
export * from './outbox';
