import type { ClientAuth, Configuration } from 'openid-client';
import { githubIdentity } from './github-identity';
import type { OidcProvider } from './oidc-options';
import { openidLibrary } from './openid-library';
import { ProviderRefusedError, ProviderUnavailableError, providerFailure } from './provider-failure';

export { ProviderRefusedError, ProviderUnavailableError } from './provider-failure';

/** Who the provider says signed in, after every check passed. */
export interface ProviderAnswer {
  /** The issuer the answer was checked against (for an OpenID provider: its discovery document's, equal to the ID token's `iss`). */
  issuer: string;
  /** The ID token's `sub`; GitHub's numeric user id as a string. */
  subject: string;
  email: string | null;
  /** Only a boolean `true` from the provider counts. */
  emailVerified: boolean;
  /** The ID token's `amr` (strings only); empty when absent and for GitHub. */
  amr: string[];
  /** The ID token's `acr`; null when absent and for GitHub. */
  acr: string | null;
}

export interface AuthorizationInput {
  redirectUri: string;
  state: string;
  /** Ignored for GitHub, which has no ID token to carry it. */
  nonce: string;
  codeChallenge: string;
  scopes: readonly string[];
}

export interface FinishInput {
  /** The callback as received (its query: code, state, iss, or error). Only its query is read. */
  callbackUrl: URL;
  /** The redirect URI the flow was started with: the token request names exactly this one. */
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** One provider, as openid-client sees it. Every failure is a `ProviderUnavailableError` or a `ProviderRefusedError`. */
export interface ProviderClient {
  /** Discovery (on first use, cached, retried with a back-off after a failure, never at start) and the authorization URL. */
  authorizationUrl(input: AuthorizationInput): Promise<string>;
  /** Exchanges the code (PKCE, state, nonce, `iss` checked by openid-client) and reads the identity; userinfo's `sub` must match. */
  finish(input: FinishInput): Promise<ProviderAnswer>;
}

/** How patient a client is; tests shorten the back-off. */
export interface ProviderClientTuning {
  /** Each request to the provider, discovery included. Default 10 s. */
  timeoutMs?: number;
  /** After a failed discovery, how long callers are answered with that failure before it is tried again. Default 5 s. */
  retryAfterMs?: number;
  now?: () => number;
}

interface Tuning {
  timeoutMs: number;
  retryAfterMs: number;
  now: () => number;
}

/** A client for one provider: the service keeps one per provider, so discovery is done once. */
export function providerClient(provider: OidcProvider, tuning: ProviderClientTuning = {}): ProviderClient {
  const settled: Tuning = {
    timeoutMs: tuning.timeoutMs ?? 10_000,
    retryAfterMs: tuning.retryAfterMs ?? 5_000,
    now: tuning.now ?? Date.now,
  };
  return provider.kind === 'github' ? new GithubClient(provider, settled) : new OpenIdClient(provider, settled);
}

/** A flow's secrets, from openid-client's CSPRNG: state and nonce for the request, the verifier kept, its S256 challenge sent. */
export async function newFlowSecrets(): Promise<{
  state: string;
  nonce: string;
  codeVerifier: string;
  codeChallenge: string;
}> {
  const openid = await openidLibrary();
  const codeVerifier = openid.randomPKCECodeVerifier();
  return {
    state: openid.randomState(),
    nonce: openid.randomNonce(),
    codeVerifier,
    codeChallenge: await openid.calculatePKCECodeChallenge(codeVerifier),
  };
}

/**
 * The provider's configuration, made on first use. A failure is not kept as the answer for ever (a provider down at
 * start must come back by itself) but for `retryAfterMs`, so a burst of sign-ins against a dead provider costs one
 * attempt, not one each. Callers arriving while an attempt runs share it.
 */
class LazyConfiguration {
  private config: Configuration | undefined;
  private pending: Promise<Configuration> | undefined;
  private failure: { at: number; error: ProviderUnavailableError | ProviderRefusedError } | undefined;

  constructor(
    private readonly make: () => Promise<Configuration>,
    private readonly tuning: Tuning,
    private readonly step: string,
  ) {}

  get(): Promise<Configuration> {
    if (this.config) return Promise.resolve(this.config);
    if (this.pending) return this.pending;
    if (this.failure && this.tuning.now() - this.failure.at < this.tuning.retryAfterMs) {
      return Promise.reject(this.failure.error);
    }
    this.pending = this.make()
      .then(
        (config) => {
          this.config = config;
          this.failure = undefined;
          return config;
        },
        (error: unknown) => {
          const failure = providerFailure(error, this.step, retryAfterSeconds(this.tuning));
          this.failure = { at: this.tuning.now(), error: failure };
          throw failure;
        },
      )
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}

const retryAfterSeconds = (tuning: Tuning) => Math.max(1, Math.ceil(tuning.retryAfterMs / 1000));

// The token request must name the redirect URI the flow started with, whatever host or scheme the callback reached
// us under (a proxy in front): openid-client takes it from the URL it is given, minus the query.
function responseAt(redirectUri: string, callbackUrl: URL): URL {
  const url = new URL(redirectUri);
  url.search = callbackUrl.search;
  return url;
}

function authorizationParameters(input: AuthorizationInput, nonce: boolean): Record<string, string> {
  return {
    response_type: 'code',
    redirect_uri: input.redirectUri,
    scope: input.scopes.join(' '),
    state: input.state,
    ...(nonce ? { nonce: input.nonce } : {}),
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
  };
}

abstract class BaseClient implements ProviderClient {
  protected readonly configuration: LazyConfiguration;

  constructor(
    protected readonly provider: OidcProvider,
    protected readonly tuning: Tuning,
    step: string,
  ) {
    this.configuration = new LazyConfiguration(() => this.configure(), tuning, step);
  }

  protected abstract configure(): Promise<Configuration>;
  protected abstract identity(config: Configuration, input: FinishInput): Promise<ProviderAnswer>;
  protected abstract readonly usesNonce: boolean;

  async authorizationUrl(input: AuthorizationInput): Promise<string> {
    const config = await this.configuration.get();
    const openid = await openidLibrary();
    try {
      return openid.buildAuthorizationUrl(config, authorizationParameters(input, this.usesNonce)).href;
    } catch (error) {
      throw providerFailure(error, 'authorization request', this.retryAfter);
    }
  }

  async finish(input: FinishInput): Promise<ProviderAnswer> {
    const config = await this.configuration.get();
    try {
      return await this.identity(config, input);
    } catch (error) {
      throw providerFailure(error, 'callback', this.retryAfter);
    }
  }

  protected get retryAfter(): number {
    return retryAfterSeconds(this.tuning);
  }

  protected get timeoutSeconds(): number {
    return this.tuning.timeoutMs / 1000;
  }
}

/** Any OpenID Connect provider: found by discovery at its issuer, which must name itself exactly that issuer. */
class OpenIdClient extends BaseClient {
  protected readonly usesNonce = true;

  constructor(provider: OidcProvider, tuning: Tuning) {
    super(provider, tuning, 'discovery');
  }

  protected async configure(): Promise<Configuration> {
    const openid = await openidLibrary();
    return openid.discovery(
      new URL(this.provider.issuer),
      this.provider.clientId,
      undefined,
      secretAsTheProviderAllows(openid, this.provider.clientSecret),
      { timeout: this.timeoutSeconds },
    );
  }

  protected async identity(config: Configuration, input: FinishInput): Promise<ProviderAnswer> {
    const openid = await openidLibrary();
    const tokens = await openid.authorizationCodeGrant(config, responseAt(input.redirectUri, input.callbackUrl), {
      pkceCodeVerifier: input.codeVerifier,
      expectedState: input.state,
      expectedNonce: input.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new ProviderRefusedError('callback: the token answer carries no ID token');
    const subject = claims.sub;
    let email = typeof claims.email === 'string' ? claims.email : null;
    let emailVerified = email !== null && claims.email_verified === true;
    if (email === null && config.serverMetadata().userinfo_endpoint !== undefined) {
      // The ID token leaves the address to userinfo (a code flow's usual shape); its `sub` must be the token's.
      const info = await openid.fetchUserInfo(config, tokens.access_token, subject);
      email = typeof info.email === 'string' ? info.email : null;
      emailVerified = email !== null && info.email_verified === true;
    }
    const amr = Array.isArray(claims.amr) ? claims.amr.filter((value) => typeof value === 'string') : [];
    return {
      issuer: config.serverMetadata().issuer,
      subject,
      email,
      emailVerified,
      amr,
      acr: typeof claims.acr === 'string' ? claims.acr : null,
    };
  }
}

/** GitHub: OAuth 2.0 without discovery or an ID token; who signed in is read from its API with the access token. */
class GithubClient extends BaseClient {
  protected readonly usesNonce = false;

  constructor(provider: OidcProvider, tuning: Tuning) {
    super(provider, tuning, 'configuration');
  }

  protected async configure(): Promise<Configuration> {
    const openid = await openidLibrary();
    const config = new openid.Configuration(
      {
        issuer: this.provider.issuer,
        authorization_endpoint: this.provider.authorizationEndpoint!,
        token_endpoint: this.provider.tokenEndpoint!,
      },
      this.provider.clientId,
      undefined,
      openid.ClientSecretPost(this.provider.clientSecret),
    );
    config.timeout = this.timeoutSeconds;
    return config;
  }

  protected async identity(config: Configuration, input: FinishInput): Promise<ProviderAnswer> {
    const openid = await openidLibrary();
    const tokens = await openid.authorizationCodeGrant(config, responseAt(input.redirectUri, input.callbackUrl), {
      pkceCodeVerifier: input.codeVerifier,
      expectedState: input.state,
      idTokenExpected: false,
    });
    const { subject, email } = await githubIdentity(openid, config, this.provider.apiBase!, tokens.access_token);
    return { issuer: this.provider.issuer, subject, email, emailVerified: email !== null, amr: [], acr: null };
  }
}

type OpenIdLibrary = Awaited<ReturnType<typeof openidLibrary>>;

/**
 * The client secret goes to the token endpoint the way the discovered metadata allows: `client_secret_basic` when
 * listed or when the list is absent (RFC 8414's default), else `client_secret_post`. The secret lives in openid-client's
 * closures and the request it sends; no error it builds carries it.
 */
function secretAsTheProviderAllows(openid: OpenIdLibrary, secret: string): ClientAuth {
  const basic = openid.ClientSecretBasic(secret);
  const post = openid.ClientSecretPost(secret);
  return (server, client, body, headers) => {
    const methods = server.token_endpoint_auth_methods_supported;
    const viaPost =
      Array.isArray(methods) && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
    (viaPost ? post : basic)(server, client, body, headers);
  };
}
