import type { TOTP } from 'otpauth';

// RFC 6238 as Gatehouse uses it: SHA-1, 6 digits, 30-second steps (what every authenticator app reads from a QR
// code), and at most one step of drift either way. The library does the arithmetic; the rule that a step is used
// once is the store's (`useTotpStep`).

export const TOTP_PERIOD_SECONDS = 30;
const DIGITS = 6;
/** One step either way: a phone clock up to 30 s off, or a code typed as it turned over. */
const DRIFT_STEPS = 1;

type Otpauth = typeof import('otpauth');
let otpauth: Otpauth | undefined;

/** Loaded by the first second-factor operation, not with the package: a deployment nobody enrols on never loads it. */
function library(): Otpauth {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use on purpose (see above)
  return (otpauth ??= require('otpauth') as Otpauth);
}

/** A new random secret (160 bits, RFC 4226's recommendation), as base32. */
export function newTotpSecret(): string {
  return new (library().Secret)({ size: 20 }).base32;
}

function totp(secret: string, issuer: string, label: string): TOTP {
  const { TOTP: Totp, Secret } = library();
  return new Totp({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** The `otpauth://` URI an authenticator app reads (as a QR code, or typed). */
export function totpUri(secret: string, issuer: string, account: string): string {
  return totp(secret, issuer, account).toString();
}

/**
 * The time step a code belongs to, when it is right for the secret at `now` within the drift; null otherwise. The
 * caller must still record the step as used, and refuse it when it (or a later one) already was.
 */
export function totpStepOf(secret: string, code: string, now: Date): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const timestamp = now.getTime();
  const delta = totp(secret, 'x', 'x').validate({ token: code, timestamp, window: DRIFT_STEPS });
  if (delta === null) return null;
  return Math.floor(timestamp / 1000 / TOTP_PERIOD_SECONDS) + delta;
}
