import { isIP } from 'node:net';
import { ConfigurationError } from '../../errors/configuration-error';

/**
 * Passkeys as a deployer configures them (`AccountOptions.passkeys`). The relying party (RP ID) and the origins a
 * ceremony may come from are configuration only: never read from `Host`, `Origin` or `X-Forwarded-*`, which a client
 * or a proxy writes (logto PR #7764, better-auth PR #5419). The mount prefix plays no part.
 */
export interface PasskeyOptions {
  /**
   * The relying party: a host name, the public URL's host or a registrable suffix of it (`example.com` for
   * `https://accounts.example.com`). Default: the host of `publicUrl`. Never an IP address.
   */
  rpId?: string;
  /** Where the pages that run the ceremonies are served; its origin is accepted. Needed when `origins` is not given. */
  publicUrl?: string;
  /**
   * Every origin a ceremony may come from (`https://app.example.com`...), each the RP ID or one of its sub-domains,
   * https (http only on localhost). Default: the origin of `publicUrl`.
   */
  origins?: readonly string[];
  /** The name authenticators show for the relying party. Default `Gatehouse`. */
  rpName?: string;
  /**
   * Whether the authenticator must verify the person (PIN, biometrics) for a passwordless sign-in and a
   * re-authentication: `required` (default) is enforced from the authenticator data whatever the client asked for.
   */
  userVerification?: 'required' | 'preferred';
  /** Whether an assertion that proves presence only (no user verification) may answer a second-factor challenge. */
  presenceOnlySecondFactor?: boolean;
  /** The attestation asked of authenticators at registration. Default `none`. */
  attestation?: 'none' | 'direct' | 'enterprise';
  /** How long a ceremony's challenge can be answered. Default 5 minutes. */
  challengeTtlMs?: number;
}

/** The relying party as checked at start: every field decided. */
export interface RelyingParty {
  rpId: string;
  rpName: string;
  origins: readonly string[];
  userVerification: 'required' | 'preferred';
  presenceOnlySecondFactor: boolean;
  attestation: 'none' | 'direct' | 'enterprise';
  challengeTtlMs: number;
}

const DEFAULT_CHALLENGE_TTL_MS = 5 * 60_000;
const MAX_CHALLENGE_TTL_MS = 30 * 60_000;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
// A DNS name: labels of letters, digits and inner hyphens (IDNs in their punycode form), at least one of them.
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

const fail = (message: string): never => {
  throw new ConfigurationError(`Gatehouse passkeys: ${message}`);
};

/**
 * Checks the deployer's passkey configuration once, at start, and fills in its defaults: a clear message for an RP
 * ID that is an IP address or not a host name, an origin outside the RP ID's scope, plain http other than on
 * loopback. Null when passkeys are not configured (they are off).
 */
export function resolveRelyingParty(options: PasskeyOptions | undefined): RelyingParty | null {
  if (options === undefined || options === null) return null;
  const publicUrl = options.publicUrl === undefined ? undefined : parseOrigin('publicUrl', options.publicUrl);
  const rpId = (options.rpId ?? publicUrl?.hostname ?? fail('give rpId or publicUrl')).trim().toLowerCase();
  if (isIP(rpId.replace(/^\[|\]$/g, '')) !== 0) fail(`the RP ID "${rpId}" is an IP address; use a host name`);
  if (!HOST_NAME.test(rpId)) fail(`the RP ID "${rpId}" is not a host name`);
  // Browsers refuse a public suffix (`com`, `co.uk`, `github.io`) as RP ID: every site under it could claim the keys.
  if (isPublicSuffix(rpId))
    fail(`the RP ID "${rpId}" is a public suffix; use a registrable domain such as example.${rpId}`);
  const origins = options.origins?.length
    ? options.origins.map((origin) => parseOrigin('origins', origin))
    : [publicUrl ?? fail('give origins or publicUrl')];
  for (const origin of origins) {
    const host = origin.hostname.toLowerCase();
    if (host !== rpId && !host.endsWith(`.${rpId}`)) {
      fail(`the origin ${origin.origin} is outside the RP ID "${rpId}" (it must be ${rpId} or a sub-domain of it)`);
    }
    if (origin.protocol === 'http:' && !LOOPBACK_HOSTS.has(host)) {
      fail(`the origin ${origin.origin} is plain http; only https is accepted, but on localhost`);
    }
  }
  const challengeTtlMs = options.challengeTtlMs ?? DEFAULT_CHALLENGE_TTL_MS;
  if (!Number.isInteger(challengeTtlMs) || challengeTtlMs < 10_000 || challengeTtlMs > MAX_CHALLENGE_TTL_MS) {
    fail('challengeTtlMs must be a whole number of milliseconds between 10 seconds and 30 minutes');
  }
  const userVerification = options.userVerification ?? 'required';
  if (userVerification !== 'required' && userVerification !== 'preferred') {
    fail('userVerification must be "required" or "preferred"');
  }
  const attestation = options.attestation ?? 'none';
  if (!['none', 'direct', 'enterprise'].includes(attestation)) {
    fail('attestation must be one of none, direct, enterprise');
  }
  const rpName = (options.rpName ?? 'Gatehouse').trim();
  if (rpName.length === 0 || rpName.length > 64) fail('rpName must be 1 to 64 characters');
  return Object.freeze({
    rpId,
    rpName,
    origins: Object.freeze([...new Set(origins.map((origin) => origin.origin))]),
    userVerification,
    presenceOnlySecondFactor: options.presenceOnlySecondFactor === true,
    attestation,
    challengeTtlMs,
  });
}

/**
 * Whether browsers would refuse `rpId` as a public suffix (`com`, `co.uk`, `github.io`): every site under it could
 * claim the keys. The list (tldts, about 6 MiB once loaded) is loaded here, not with the module, and not for
 * `localhost`, the development default: a deployment without passkeys, or on localhost, never loads it.
 */
function isPublicSuffix(rpId: string): boolean {
  if (rpId === 'localhost' || rpId.endsWith('.localhost')) return false;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parse } = require('tldts') as typeof import('tldts');
  const listed = parse(rpId, { allowPrivateDomains: true });
  return listed.publicSuffix === rpId && (listed.isIcann === true || listed.isPrivate === true);
}

function parseOrigin(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(String(value).trim());
  } catch {
    return fail(`${name}: "${value}" is not an absolute URL such as https://accounts.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`${name}: "${value}" is not an http(s) URL`);
  if (name === 'origins' && (url.pathname !== '/' || url.search || url.hash)) {
    fail(`origins: "${value}" is not an origin (scheme, host and port only)`);
  }
  return url;
}
