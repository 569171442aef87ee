import { isIP } from 'node:net';
import { ConfigurationError } from '../errors/configuration-error';
import { resolveRelyingParty, type PasskeyOptions } from '../services/passkeys/relying-party';

type Env = Record<string, string | undefined>;

const NAMES = [
  'GATEHOUSE_WEBAUTHN_RP_ID',
  'GATEHOUSE_WEBAUTHN_ORIGINS',
  'GATEHOUSE_WEBAUTHN_RP_NAME',
  'GATEHOUSE_WEBAUTHN_USER_VERIFICATION',
  'GATEHOUSE_WEBAUTHN_PRESENCE_ONLY_SECOND_FACTOR',
  'GATEHOUSE_WEBAUTHN_ATTESTATION',
] as const;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Passkeys from the environment: `GATEHOUSE_WEBAUTHN_*`, with the RP ID and the one origin defaulting to the host
 * and origin of `GATEHOUSE_PUBLIC_URL` (never to a request's `Host` or `Origin`). A variable set wrong stops the
 * start with a message naming it. With none set, passkeys follow the public URL when it can be a relying party (a
 * host name, https or localhost) and are off otherwise (the default `http://127.0.0.1:8000`, an address): a warning
 * says so when the public URL was configured.
 */
export function parsePasskeys(
  env: Env,
  publicUrl: string,
  publicUrlConfigured: boolean,
  warn?: (message: string) => void,
): PasskeyOptions | undefined {
  const value = (name: (typeof NAMES)[number]) => env[name]?.trim() || undefined;
  const explicit = NAMES.some((name) => value(name) !== undefined);
  const options: PasskeyOptions = {
    publicUrl,
    rpId: value('GATEHOUSE_WEBAUTHN_RP_ID'),
    origins: value('GATEHOUSE_WEBAUTHN_ORIGINS')
      ?.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    rpName: value('GATEHOUSE_WEBAUTHN_RP_NAME'),
    userVerification: value('GATEHOUSE_WEBAUTHN_USER_VERIFICATION') as PasskeyOptions['userVerification'],
    presenceOnlySecondFactor: parseOnOff(
      'GATEHOUSE_WEBAUTHN_PRESENCE_ONLY_SECOND_FACTOR',
      value('GATEHOUSE_WEBAUTHN_PRESENCE_ONLY_SECOND_FACTOR'),
    ),
    attestation: value('GATEHOUSE_WEBAUTHN_ATTESTATION') as PasskeyOptions['attestation'],
  };
  if (explicit) {
    try {
      resolveRelyingParty(options);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      throw new ConfigurationError(`${error.message} (GATEHOUSE_WEBAUTHN_*, GATEHOUSE_PUBLIC_URL)`);
    }
    return options;
  }
  const url = new URL(publicUrl);
  const usable =
    isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0 && (url.protocol === 'https:' || LOOPBACK.has(url.hostname));
  if (usable) return options;
  if (publicUrlConfigured) {
    warn?.(
      `passkeys are off: GATEHOUSE_PUBLIC_URL ${publicUrl} cannot be a WebAuthn relying party (an IP address, or plain ` +
        'http other than on localhost); set GATEHOUSE_WEBAUTHN_RP_ID and GATEHOUSE_WEBAUTHN_ORIGINS to turn them on',
    );
  }
  return undefined;
}

function parseOnOff(name: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw.toLowerCase() === 'on') return true;
  if (raw.toLowerCase() === 'off') return false;
  throw new ConfigurationError(`${name} must be on or off, got "${raw}"`);
}
