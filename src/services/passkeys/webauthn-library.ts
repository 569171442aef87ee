import type * as WebAuthnServer from '@simplewebauthn/server';

// Loaded on the first ceremony, not at start: a deployment that never sees a passkey keeps its memory (the
// standalone server's goal is to idle under 100 MiB), and one that does pays once.
let loading: Promise<typeof WebAuthnServer> | undefined;

/** `@simplewebauthn/server`, which makes every option and verifies every answer: Gatehouse parses no CBOR or COSE. */
export function webauthnLibrary(): Promise<typeof WebAuthnServer> {
  loading ??= import('@simplewebauthn/server');
  return loading;
}
