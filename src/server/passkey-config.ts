import { isIP } from 'node:net';
import { ConfigurationError } from '../errors/configuration-error';
import { resolveRelyingParty, type PasskeyOptions } from '../services/passkeys/relying-party';

type Env = Record<string, string | undefined>;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Passkeys from the environment: `GATEHOUSE_WEBAUTHN_*`, with the RP ID and the one origin defaulting to the host
 * and origin of `GATEHOUSE_PUBLIC_URL` (never to a request's `Host` or `Origin`). A variable set wrong stops the
 * start with a message naming it. With none set, passkeys follow the public URL when it can be a relying party (a
 * host name, https or localhost); without either they are off, and a configured public URL that cannot be one (an
 * address, plain http elsewhere) leaves them off with a warning.
 */
export function parsePasskeys(
  env: Env,
  publicUrl: string,
  publicUrlConfigured: boolean,
  warn?: (message: string) => void,
): PasskeyOptions | undefined {
  const rpId = nonEmpty(env.GATEHOUSE_WEBAUTHN_RP_ID);
  const origins = nonEmpty(env.GATEHOUSE_WEBAUTHN_ORIGINS);
  const rpName = nonEmpty(env.GATEHOUSE_WEBAUTHN_RP_NAME);
  const userVerification = nonEmpty(env.GATEHOUSE_WEBAUTHN_USER_VERIFICATION);
  const presenceOnly = nonEmpty(env.GATEHOUSE_WEBAUTHN_PRESENCE_ONLY_SECOND_FACTOR);
  const attestation = nonEmpty(env.GATEHOUSE_WEBAUTHN_ATTESTATION);
  const options: PasskeyOptions = {
    publicUrl,
    rpId,
    origins: origins
      ?.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    rpName,
    userVerification: oneOf('GATEHOUSE_WEBAUTHN_USER_VERIFICATION', userVerification, ['required', 'preferred']),
    presenceOnlySecondFactor: onOff('GATEHOUSE_WEBAUTHN_PRESENCE_ONLY_SECOND_FACTOR', presenceOnly),
    attestation: oneOf('GATEHOUSE_WEBAUTHN_ATTESTATION', attestation, ['none', 'direct', 'enterprise']),
  };
  if ([rpId, origins, rpName, userVerification, presenceOnly, attestation].some((value) => value !== undefined)) {
    // Each variable alone first, so that the message names the one to fix; then how they fit together.
    if (rpName !== undefined) blame('GATEHOUSE_WEBAUTHN_RP_NAME', { publicUrl: 'https://example.com', rpName });
    if (rpId !== undefined) blame('GATEHOUSE_WEBAUTHN_RP_ID', { rpId, origins: [`https://${rpId}`] });
    for (const origin of options.origins ?? []) {
      blame('GATEHOUSE_WEBAUTHN_ORIGINS', { publicUrl: origin, origins: [origin] });
    }
    blame('GATEHOUSE_WEBAUTHN_RP_ID, GATEHOUSE_WEBAUTHN_ORIGINS and GATEHOUSE_PUBLIC_URL', options);
    return options;
  }
  const url = new URL(publicUrl);
  const address = isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0;
  if (!address && (url.protocol === 'https:' || LOOPBACK.has(url.hostname))) return options;
  // The default public URL (the address the server listens on) leaves them off, and the pages as they were.
  if (!publicUrlConfigured) return undefined;
  warn?.(
    `passkeys are off: GATEHOUSE_PUBLIC_URL ${publicUrl} cannot be a WebAuthn relying party (an IP address, or plain ` +
      'http other than on localhost); set GATEHOUSE_WEBAUTHN_RP_ID and GATEHOUSE_WEBAUTHN_ORIGINS to turn them on',
  );
  return undefined;
}

/** Checks `options` as the core will at start, naming `names` in the message of what it refuses. */
function blame(names: string, options: PasskeyOptions): void {
  try {
    resolveRelyingParty(options);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    throw new ConfigurationError(`${names}: ${error.message}`);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() || undefined;
}

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  if (allowed.includes(raw as T)) return raw as T;
  throw new ConfigurationError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
}

function onOff(name: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw.toLowerCase() === 'on') return true;
  if (raw.toLowerCase() === 'off') return false;
  throw new ConfigurationError(`${name} must be on or off, got "${raw}"`);
}
