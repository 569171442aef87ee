import { ConfigurationError } from '../../errors/configuration-error';

/** One provider as a deployer configures it (`AccountOptions.oidc.providers`). */
export interface OidcProviderOptions {
  /** Lower-case letters, digits and inner hyphens, at most 32: it names the provider in routes and in the store. */
  id: string;
  /** Shown on buttons. Default: the preset's name, else the id. */
  name?: string;
  /**
   * `google`: OpenID Connect at `https://accounts.google.com`. `github`: OAuth 2.0 without an ID token; the address
   * comes only from `/user/emails` with `verified: true`.
   */
  preset?: 'google' | 'github';
  /** The issuer, found by discovery and matched exactly; https only. Required unless a preset gives it. */
  issuer?: string;
  clientId: string;
  /** Never logged, returned or shown in an error. */
  clientSecret: string;
  /** Default `openid email` (`read:user user:email` for GitHub). */
  scopes?: string[];
  /** When set, an address outside these domains is refused (`email_domain_not_allowed`). */
  allowedEmailDomains?: string[];
  /**
   * `amr` values of the provider's ID token taken as a second factor proved there: a sign-in carrying one skips
   * Gatehouse's own second factor. Empty by default: trusting a provider's `amr` is the deployer's decision.
   */
  trustedAmr?: string[];
  /** `acr` values taken the same way. Empty by default. */
  trustedAcr?: string[];
  /** GitHub preset only: where its endpoints are (GitHub Enterprise Server). Defaults: github.com's. */
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  apiBase?: string;
}

export interface OidcOptions {
  providers: OidcProviderOptions[];
  /**
   * The absolute URL of the mounted prefix (`https://accounts.example.com/auth`): a provider redirects to exactly
   * `${callbackBase}/oidc/${id}/callback`. https, or http on a loopback host.
   */
  callbackBase: string;
  /** Where a flow may return to (exact URLs, no query or fragment); the first is the default. Default: the hosted return page. */
  returnUrls?: string[];
  /** How long a started flow may take to come back. Default 10 minutes, at most 30. */
  flowTtlMs?: number;
}

/** A provider as checked at start: every field decided. */
export interface OidcProvider {
  id: string;
  name: string;
  kind: 'oidc' | 'github';
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  allowedEmailDomains: readonly string[];
  trustedAmr: readonly string[];
  trustedAcr: readonly string[];
  authorizationEndpoint: string | null;
  tokenEndpoint: string | null;
  apiBase: string | null;
}

export interface OidcSettings {
  providers: ReadonlyMap<string, OidcProvider>;
  callbackBase: string;
  returnUrls: readonly string[];
  flowTtlMs: number;
  /** Whether the callback is served over https (the flow cookie is then `Secure`). */
  secure: boolean;
}

export const RETURN_PAGE_PATH = '/oidc/return';
const DEFAULT_FLOW_TTL_MS = 10 * 60_000;
const MAX_FLOW_TTL_MS = 30 * 60_000;
const PROVIDER_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const DOMAIN = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

const PRESETS = {
  google: { name: 'Google', issuer: 'https://accounts.google.com', scopes: ['openid', 'email'] },
  github: { name: 'GitHub', issuer: 'https://github.com', scopes: ['read:user', 'user:email'] },
} as const;

const fail = (message: string): never => {
  throw new ConfigurationError(`Gatehouse OpenID providers: ${message}`);
};

/** Checks the providers once, at start: a clear message for each unusable setting, and never the secret's value. */
export function resolveOidcSettings(options: OidcOptions | undefined): OidcSettings | null {
  if (!options || !Array.isArray(options.providers) || options.providers.length === 0) return null;
  const callbackBase = checkedBase(options.callbackBase);
  const providers = new Map<string, OidcProvider>();
  for (const given of options.providers) {
    const provider = resolveProvider(given);
    if (providers.has(provider.id)) fail(`the provider id "${provider.id}" is configured twice`);
    providers.set(provider.id, provider);
  }
  const returnUrls = (options.returnUrls ?? [`${callbackBase}${RETURN_PAGE_PATH}`]).map(checkedReturnUrl);
  if (returnUrls.length === 0) fail('returnUrls must name at least one URL');
  const flowTtlMs = options.flowTtlMs ?? DEFAULT_FLOW_TTL_MS;
  if (!Number.isInteger(flowTtlMs) || flowTtlMs < 60_000 || flowTtlMs > MAX_FLOW_TTL_MS) {
    fail(`flowTtlMs must be between 1 and 30 minutes, got ${String(flowTtlMs)}`);
  }
  return { providers, callbackBase, returnUrls, flowTtlMs, secure: callbackBase.startsWith('https:') };
}

function resolveProvider(given: OidcProviderOptions): OidcProvider {
  const id = typeof given?.id === 'string' ? given.id : '';
  if (!PROVIDER_ID.test(id)) {
    fail(`a provider id is 1 to 32 lower-case letters, digits and inner hyphens, got "${id}"`);
  }
  if (given.preset !== undefined && given.preset !== 'google' && given.preset !== 'github') {
    fail(`provider ${id}: preset must be google or github`);
  }
  const preset = given.preset ? PRESETS[given.preset] : undefined;
  const issuer = given.issuer ?? preset?.issuer;
  if (issuer === undefined) fail(`provider ${id}: an issuer (https URL) or a preset is required`);
  checkedHttps(issuer!, `provider ${id}: the issuer`);
  if (typeof given.clientId !== 'string' || given.clientId.trim() === '') fail(`provider ${id}: clientId is required`);
  if (typeof given.clientSecret !== 'string' || given.clientSecret === '') {
    fail(`provider ${id}: clientSecret is required`);
  }
  const github = given.preset === 'github';
  for (const key of ['authorizationEndpoint', 'tokenEndpoint', 'apiBase'] as const) {
    if (given[key] === undefined) continue;
    if (!github) fail(`provider ${id}: ${key} is a setting of the github preset only`);
    checkedHttps(given[key]!, `provider ${id}: ${key}`);
  }
  const scopes = given.scopes ?? [...(preset?.scopes ?? PRESETS.google.scopes)];
  if (
    !Array.isArray(scopes) ||
    scopes.some((scope) => typeof scope !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))
  ) {
    fail(`provider ${id}: scopes must be words without spaces or quotes`);
  }
  if (!github && !scopes.includes('openid')) fail(`provider ${id}: an OpenID provider's scopes must include openid`);
  const allowedEmailDomains = (given.allowedEmailDomains ?? []).map((domain) => {
    const lower = typeof domain === 'string' ? domain.trim().toLowerCase() : '';
    if (!DOMAIN.test(lower)) fail(`provider ${id}: "${String(domain)}" is not a domain name`);
    return lower;
  });
  return {
    id,
    name: given.name?.trim() || preset?.name || id,
    kind: github ? 'github' : 'oidc',
    issuer: issuer!,
    clientId: given.clientId,
    clientSecret: given.clientSecret,
    scopes,
    allowedEmailDomains,
    trustedAmr: checkedWords(given.trustedAmr, id, 'trustedAmr'),
    trustedAcr: checkedWords(given.trustedAcr, id, 'trustedAcr'),
    authorizationEndpoint: github ? (given.authorizationEndpoint ?? 'https://github.com/login/oauth/authorize') : null,
    tokenEndpoint: github ? (given.tokenEndpoint ?? 'https://github.com/login/oauth/access_token') : null,
    apiBase: github ? (given.apiBase ?? 'https://api.github.com') : null,
  };
}

function checkedWords(words: string[] | undefined, id: string, key: string): string[] {
  if (words === undefined) return [];
  if (!Array.isArray(words) || words.some((word) => typeof word !== 'string' || word.trim() === '')) {
    fail(`provider ${id}: ${key} must be a list of non-empty strings`);
  }
  return words.map((word) => word.trim());
}

// No "insecure" switch: a provider reached over plain http could be anyone on the path (RFC 9700 §2.6).
function checkedHttps(value: string, what: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    fail(`${what} must be an absolute https URL, got "${value}"`);
  }
  if (url!.protocol !== 'https:') fail(`${what} must be https, got "${value}"`);
  if (url!.search || url!.hash) fail(`${what} must not carry a query or fragment`);
}

function checkedBase(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    fail(`callbackBase must be an absolute URL such as https://accounts.example.com/auth, got "${String(value)}"`);
  }
  if (url!.protocol !== 'https:' && !(url!.protocol === 'http:' && LOOPBACK_HOSTS.has(url!.hostname))) {
    fail(`callbackBase must be https (http only on localhost), got "${value}"`);
  }
  if (url!.search || url!.hash) fail('callbackBase must not carry a query or fragment');
  return url!.href.replace(/\/+$/, '');
}

function checkedReturnUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    fail(`a return URL must be absolute, got "${String(value)}"`);
  }
  if (url!.protocol !== 'https:' && !(url!.protocol === 'http:' && LOOPBACK_HOSTS.has(url!.hostname))) {
    fail(`a return URL must be https (http only on localhost), got "${value}"`);
  }
  if (url!.search || url!.hash) fail(`a return URL must not carry a query or fragment, got "${value}"`);
  return url!.href;
}
