import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { followToClient, listen, stopServer, testTlsCertificate } from './https-test-server';

/**
 * A real OpenID provider (`oidc-provider` 9) on https://127.0.0.1:<random port>, with the test CA's certificate
 * (test/fixtures/oidc/), so Gatehouse's provider client meets discovery, signed ID tokens, PKCE, the RFC 9207 `iss`
 * parameter and one-time codes as a deployment would. The test process trusts the CA through NODE_EXTRA_CA_CERTS.
 *
 * ```ts
 * const idp = await startOidcProvider({ clientId: 'gatehouse', clientSecret: 's3cret', redirectUris: [callback] });
 * idp.addAccount({ sub: 'sub-123', email: 'ann@example.com', email_verified: true });
 * const callbackUrl = await idp.authorize(authorizationUrl, { as: 'sub-123' }); // code, state, iss: not called
 * await idp.close();
 * ```
 */
export interface TestOidcProvider {
  /** What Gatehouse is configured with: `https://127.0.0.1:<port>` (no trailing slash). */
  readonly issuer: string;
  /** What the discovery document and ID tokens name (`issuer` unless `options.advertisedIssuer` said otherwise). */
  readonly advertisedIssuer: string;
  readonly port: number;
  /** Every request the provider received, oldest first (`GET /.well-known/openid-configuration`...). */
  readonly requests: string[];
  addAccount(account: TestAccount): void;
  /**
   * Signs in (or refuses) at the provider for a browser that follows redirects itself (Chromium): the next
   * interactions log in as this account, without the `as` of `authorize()`. `null` stops it.
   */
  loginAs(sub: string | null): void;
  /**
   * Drives the provider's pages from the authorization URL: follows its redirects with a fresh cookie jar, logs in
   * as `as` and grants consent, and returns the URL the provider redirects to at the client (`?code&state&iss`, or
   * `?error` when `deny`) without calling it. Throws with the provider's answer when it shows an error page instead
   * (an unregistered redirect URI, a request without PKCE).
   */
  authorize(authorizationUrl: string, options: { as: string; deny?: boolean }): Promise<string>;
  /** The next redirect to a client carries this `iss` parameter instead of the true one (`null`: none at all). */
  tamperNextIss(iss: string | null): void;
  /** Stops listening and drops open connections (the provider's state stays): the provider is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface TestAccount {
  sub: string;
  email?: string;
  /** Anything: the client must count only a boolean `true`. */
  email_verified?: unknown;
  /** Put in the ID token by the login (`amr`, `acr` claims). */
  amr?: string[];
  acr?: string;
}

export interface TestOidcProviderOptions {
  clientId: string;
  clientSecret: string;
  /** Registered exactly: the provider refuses any other. */
  redirectUris: string[];
  /** How the client must authenticate at the token endpoint (the only method discovery lists). Default basic. */
  tokenAuthMethod?: 'client_secret_basic' | 'client_secret_post';
  /** What the provider calls itself, from its origin: another value than the origin makes discovery's issuer mismatch. */
  advertisedIssuer?: (origin: string) => string;
  /** Put `email`/`email_verified` in the ID token too (by default a code flow's ID token leaves them to userinfo). */
  emailInIdToken?: boolean;
}

// oidc-provider ships no types: the little of its API this harness uses.
interface InteractionDetails {
  uid: string;
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, unknown>;
  session?: { accountId?: string };
  grantId?: string;
}
interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}
interface KoaContext {
  status: number;
  response: { get(field: string): string };
  set(field: string, value: string): void;
}
interface Provider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: {
    new (properties: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  };
}
interface ProviderModule {
  Provider: new (issuer: string, configuration: Record<string, unknown>) => Provider;
}
interface MemoryAdapterModule {
  createMemoryAdapter(clockTolerance?: number): unknown;
}

export async function startOidcProvider(options: TestOidcProviderOptions): Promise<TestOidcProvider> {
  // A variable name keeps tsc from looking for types oidc-provider does not ship.
  const moduleName = 'oidc-provider';
  const { Provider } = (await import(moduleName)) as ProviderModule;
  // Its own store per provider (the default memory adapter is one store for the process, and warns each time).
  const adapterModule = 'oidc-provider/lib/adapters/memory_adapter.js';
  const { createMemoryAdapter } = (await import(adapterModule)) as MemoryAdapterModule;
  const accounts = new Map<string, TestAccount>();
  const requests: string[] = [];
  let autoLogin: string | null = null;
  let nextIss: { value: string | null } | undefined;
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();

  const server = createServer(testTlsCertificate(), (req, res) => {
    requests.push(`${req.method ?? 'GET'} ${req.url ?? '/'}`);
    handle(req, res);
  });
  const port = await listen(server, 0);
  const origin = `https://127.0.0.1:${port}`;
  const advertisedIssuer = options.advertisedIssuer?.(origin) ?? origin;
  const method = options.tokenAuthMethod ?? 'client_secret_basic';

  const provider = new Provider(advertisedIssuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: method,
      },
    ],
    clientAuthMethods: [method],
    adapter: createMemoryAdapter(),
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    // acr and amr with `openid`: oidc-provider otherwise leaves them out of the ID token unless a request asks.
    claims: { openid: ['sub', 'acr', 'amr', 'auth_time'], email: ['email', 'email_verified'] },
    acrValues: ['urn:test:loa:1', 'urn:test:loa:2'],
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
    conformIdTokenClaims: !options.emailInIdToken,
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    jwks: { keys: [signingKey()] },
    findAccount: (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: account.email, email_verified: account.email_verified }),
      };
    },
    // The harness's errors go to the test through authorize(): the default page prints the error only.
    renderError: (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'text/plain';
      ctx.body = `${out.error}: ${out.error_description ?? ''}`;
    },
  });

  // After the provider answered: the redirect to a client can be given another (or no) `iss`, as a mix-up would.
  provider.use(async (ctx, next) => {
    await next();
    const location = ctx.response.get('location');
    if (!nextIss || !location || !options.redirectUris.some((uri) => location.startsWith(`${uri}?`))) return;
    const tampered = new URL(location);
    if (nextIss.value === null) tampered.searchParams.delete('iss');
    else tampered.searchParams.set('iss', nextIss.value);
    nextIss = undefined;
    ctx.set('location', tampered.href);
  });

  const app = provider.callback();
  handle = (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`interaction failed: ${String(error)}`);
      });
    } else app(req, res);
  };

  // The login and consent pages: no forms, the account comes from `?as=` (authorize()) or loginAs().
  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const query = new URL(req.url ?? '/', origin).searchParams;
    if (query.get('deny') === '1') {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'refused' });
      return;
    }
    if (details.prompt.name === 'login') {
      const sub = query.get('as') ?? autoLogin;
      const account = sub === null ? undefined : accounts.get(sub);
      if (!account) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`no test account "${String(sub)}"`);
        return;
      }
      const login = { accountId: account.sub, remember: false, amr: account.amr, acr: account.acr };
      await provider.interactionFinished(req, res, { login }, { mergeWithLastSubmission: false });
      return;
    }
    // consent: grant exactly what is missing.
    const accountId = details.session?.accountId;
    const grant =
      (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
      new provider.Grant({ accountId: accountId!, clientId: String(details.params.client_id) });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  return {
    issuer: origin,
    advertisedIssuer,
    port,
    requests,
    addAccount: (account) => void accounts.set(account.sub, account),
    loginAs: (sub) => {
      autoLogin = sub;
    },
    authorize: (authorizationUrl, { as, deny }) =>
      followToClient(authorizationUrl, origin, (url) => {
        if (!url.pathname.startsWith('/interaction/')) return url;
        const withAccount = new URL(url);
        withAccount.searchParams.set('as', as);
        if (deny) withAccount.searchParams.set('deny', '1');
        return withAccount;
      }),
    tamperNextIss: (value) => {
      nextIss = { value };
    },
    stop: () => stopServer(server),
    start: async () => {
      await listen(server, port);
    },
    close: () => stopServer(server),
  };
}

function signingKey(): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256' };
}
