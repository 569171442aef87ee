import { ConfigurationError } from '../errors/configuration-error';
import { resolveOidcSettings, type OidcOptions, type OidcProviderOptions } from '../services/oidc/oidc-options';

type Env = Record<string, string | undefined>;

/** What the per-provider variables are called after `GATEHOUSE_OIDC_<ID>_`. */
const PROVIDER_VARIABLES = [
  'ISSUER',
  'CLIENT_ID',
  'CLIENT_SECRET',
  'PRESET',
  'NAME',
  'SCOPES',
  'ALLOWED_DOMAINS',
  'TRUSTED_AMR',
  'TRUSTED_ACR',
] as const;
type ProviderVariable = (typeof PROVIDER_VARIABLES)[number];

const GLOBAL_VARIABLES = ['GATEHOUSE_OIDC_PROVIDERS', 'GATEHOUSE_OIDC_RETURN_URLS', 'GATEHOUSE_OIDC_FLOW_TTL'];
const PROVIDER_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;
/** Control characters (C0, DEL, C1) and the line and paragraph separators: never part of a name or an identifier. */
// eslint-disable-next-line no-control-regex -- matching them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const MAX_NAME = 64;
const MAX_CLIENT_ID = 255;
const MAX_CLIENT_SECRET = 1024;
const MAX_CLAIM_VALUE = 256;
/** An `amr` or `acr` value as configured: printable ASCII without spaces, commas or quotes (the lists' separators). */
const CLAIM_VALUE = /^[\x21\x23-\x2b\x2d-\x7e]+$/;

/**
 * Sign-in with OpenID providers from the environment (docs/reference/configuration.md): `GATEHOUSE_OIDC_PROVIDERS`
 * lists the ids, each described by `GATEHOUSE_OIDC_<ID>_*` (the id upper-cased, `-` as `_`). The redirect URI is
 * `{GATEHOUSE_PUBLIC_URL}{GATEHOUSE_PREFIX}/oidc/{id}/callback`, never read from a request. Each variable set wrong
 * stops the start with a message naming it; a client secret is never part of a message. Undefined when no provider
 * is listed (then no `GATEHOUSE_OIDC_*` may be set either: a typo would otherwise switch nothing on, silently).
 */
export function parseOidc(
  env: Env,
  site: { publicUrl: string; prefix: string; flowTtlMs: number | undefined },
): OidcOptions | undefined {
  const listed = nonEmpty(env.GATEHOUSE_OIDC_PROVIDERS);
  const returnUrls = nonEmpty(env.GATEHOUSE_OIDC_RETURN_URLS);
  if (listed === undefined) {
    const stray = Object.keys(env)
      .filter((name) => name.startsWith('GATEHOUSE_OIDC_') && nonEmpty(env[name]) !== undefined)
      .sort();
    if (stray.length > 0) {
      throw new ConfigurationError(`${stray[0]} is set, but GATEHOUSE_OIDC_PROVIDERS lists no provider`);
    }
    return undefined;
  }
  const ids = providerIds(listed);
  refuseStrayVariables(env, ids);
  const callbackBase = `${site.publicUrl}${site.prefix}`;
  const providers = ids.map((id) => parseProvider(env, id));
  const options: OidcOptions = {
    providers,
    callbackBase,
    ...(returnUrls === undefined ? {} : { returnUrls: list(returnUrls, /,/) }),
    ...(site.flowTtlMs === undefined ? {} : { flowTtlMs: site.flowTtlMs }),
  };
  // Each variable alone first (beside a provider that is surely right), so that the message names the one to fix;
  // then how they fit together.
  const sound = [{ id: 'x', issuer: 'https://issuer.example', clientId: 'x', clientSecret: 'x' }];
  blame('GATEHOUSE_PUBLIC_URL (with GATEHOUSE_PREFIX, the base of the providers’ redirect URI)', {
    providers: sound,
    callbackBase,
  });
  if (options.returnUrls) {
    blame('GATEHOUSE_OIDC_RETURN_URLS', { providers: sound, callbackBase, returnUrls: options.returnUrls });
  }
  blame('GATEHOUSE_OIDC_FLOW_TTL', { providers: sound, callbackBase, flowTtlMs: options.flowTtlMs });
  blame('GATEHOUSE_OIDC_PROVIDERS and GATEHOUSE_OIDC_<ID>_*', options);
  return options;
}

function providerIds(listed: string): string[] {
  const ids = list(listed, /,/);
  for (const id of ids) {
    if (!PROVIDER_ID.test(id)) {
      throw new ConfigurationError(
        `GATEHOUSE_OIDC_PROVIDERS: "${printable(id)}" is not a provider id (1 to 32 lower-case letters, digits and ` +
          'inner hyphens, such as google or corp-sso)',
      );
    }
    if (ids.indexOf(id) !== ids.lastIndexOf(id)) {
      throw new ConfigurationError(`GATEHOUSE_OIDC_PROVIDERS lists "${id}" twice`);
    }
  }
  if (ids.length === 0) throw new ConfigurationError('GATEHOUSE_OIDC_PROVIDERS lists no provider id');
  return ids;
}

/** `GATEHOUSE_OIDC_<ID>` of a provider id. */
export function providerPrefix(id: string): string {
  return `GATEHOUSE_OIDC_${id.toUpperCase().replace(/-/g, '_')}`;
}

/** A `GATEHOUSE_OIDC_*` variable of no listed provider is a typo of one, or a provider left out of the list. */
function refuseStrayVariables(env: Env, ids: string[]): void {
  const known = new Set(GLOBAL_VARIABLES);
  for (const id of ids) for (const name of PROVIDER_VARIABLES) known.add(`${providerPrefix(id)}_${name}`);
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('GATEHOUSE_OIDC_') || known.has(name) || nonEmpty(env[name]) === undefined) continue;
    throw new ConfigurationError(
      `${name} names no provider of GATEHOUSE_OIDC_PROVIDERS (${ids.join(', ')}) or no setting of one; the settings ` +
        `are GATEHOUSE_OIDC_<ID>_${PROVIDER_VARIABLES.join(', _')}`,
    );
  }
}

function parseProvider(env: Env, id: string): OidcProviderOptions {
  const prefix = providerPrefix(id);
  const providerEnv = (name: ProviderVariable) => nonEmpty(env[`${prefix}_${name}`]);
  const variable = (name: ProviderVariable) => `${prefix}_${name}`;

  const preset = providerEnv('PRESET');
  if (preset !== undefined && preset !== 'google' && preset !== 'github') {
    throw new ConfigurationError(`${variable('PRESET')} must be google or github, got "${printable(preset)}"`);
  }
  const issuer = providerEnv('ISSUER');
  if (issuer === undefined && preset === undefined) {
    throw new ConfigurationError(
      `${variable('ISSUER')} is required (the provider's https issuer URL), unless ${variable('PRESET')} is set`,
    );
  }
  if (issuer !== undefined) checkHttpsUrl(variable('ISSUER'), issuer);

  const clientId = providerEnv('CLIENT_ID');
  if (clientId === undefined) throw new ConfigurationError(`${variable('CLIENT_ID')} is required`);
  if (clientId.length > MAX_CLIENT_ID || CONTROL.test(clientId)) {
    throw new ConfigurationError(
      `${variable('CLIENT_ID')} must be at most ${MAX_CLIENT_ID} characters without control characters`,
    );
  }
  const clientSecret = providerEnv('CLIENT_SECRET');
  // Never its value, not even a part of it: messages reach logs and terminals.
  if (clientSecret === undefined) throw new ConfigurationError(`${variable('CLIENT_SECRET')} is required`);
  if (clientSecret.length > MAX_CLIENT_SECRET || CONTROL.test(clientSecret)) {
    throw new ConfigurationError(
      `${variable('CLIENT_SECRET')} must be at most ${MAX_CLIENT_SECRET} characters without control characters`,
    );
  }

  const name = providerEnv('NAME');
  if (name !== undefined && (name.length > MAX_NAME || CONTROL.test(name))) {
    throw new ConfigurationError(`${variable('NAME')} must be 1 to ${MAX_NAME} characters without control characters`);
  }

  const scopesText = providerEnv('SCOPES');
  const scopes = scopesText === undefined ? undefined : list(scopesText, /[\s,]+/);
  if (scopes !== undefined) {
    if (scopes.some((scope) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))) {
      throw new ConfigurationError(`${variable('SCOPES')} must be scope names separated by spaces or commas`);
    }
    if (preset !== 'github' && !scopes.includes('openid')) {
      throw new ConfigurationError(`${variable('SCOPES')} must include openid (an OpenID provider's ID token)`);
    }
  }

  const domainsText = providerEnv('ALLOWED_DOMAINS');
  const allowedEmailDomains = domainsText === undefined ? undefined : list(domainsText, /[\s,]+/);
  const trustedAmr = claimValues(variable('TRUSTED_AMR'), providerEnv('TRUSTED_AMR'));
  const trustedAcr = claimValues(variable('TRUSTED_ACR'), providerEnv('TRUSTED_ACR'));

  const provider: OidcProviderOptions = {
    id,
    clientId,
    clientSecret,
    ...(preset === undefined ? {} : { preset }),
    ...(issuer === undefined ? {} : { issuer }),
    ...(name === undefined ? {} : { name }),
    ...(scopes === undefined ? {} : { scopes }),
    ...(allowedEmailDomains === undefined ? {} : { allowedEmailDomains }),
    ...(trustedAmr === undefined ? {} : { trustedAmr }),
    ...(trustedAcr === undefined ? {} : { trustedAcr }),
  };
  if (allowedEmailDomains !== undefined) {
    blame(variable('ALLOWED_DOMAINS'), {
      providers: [{ ...provider, issuer: 'https://issuer.example', preset: undefined, scopes: ['openid'] }],
      callbackBase: 'https://accounts.example',
    });
  }
  return provider;
}

function claimValues(name: string, text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const values = list(text, /[\s,]+/);
  if (values.some((value) => value.length > MAX_CLAIM_VALUE || !CLAIM_VALUE.test(value))) {
    throw new ConfigurationError(
      `${name} must be values of at most ${MAX_CLAIM_VALUE} printable characters, separated by spaces or commas`,
    );
  }
  return values;
}

function checkHttpsUrl(name: string, value: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || url.search || url.hash) {
    // https only, and no switch to allow anything else: a provider reached over plain http could be anyone.
    throw new ConfigurationError(
      `${name} must be an absolute https URL without query or fragment, got "${printable(value)}"`,
    );
  }
}

/** Checks `options` as the core will at start, naming `names` in the message of what it refuses. */
function blame(names: string, options: OidcOptions): void {
  try {
    resolveOidcSettings(options);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    throw new ConfigurationError(`${names}: ${error.message}`);
  }
}

function list(text: string, separator: RegExp): string[] {
  return text
    .split(separator)
    .map((part) => part.trim())
    .filter(Boolean);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() || undefined;
}

/** A value as a message may quote it: one line, bounded. */
function printable(value: string): string {
  const line = value.replace(new RegExp(CONTROL, 'g'), '?');
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
