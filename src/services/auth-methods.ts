/**
 * The names of the ways a session's holder can prove who they are, as RFC 8176 gives them (the session's `amr`
 * values): the one list of them. `pwd` a password; `otp` a one-time code of an authenticator app (RFC 6238);
 * `lookup_secret` a recovery code (RFC 8176 has no name for a printed single-use code, so it takes Ory Kratos's name
 * for that credential); `hwk` a passkey bound to one authenticator (proof of possession of a hardware-secured key),
 * `swk` a passkey that may be synced (a software-secured key); `mfa` more than one factor. A new way to sign in adds
 * its names here. `fed` an identity at an OpenID provider (federated).
 */
export const AUTH_METHODS = ['pwd', 'otp', 'lookup_secret', 'hwk', 'swk', 'fed', 'mfa'] as const;

export type AuthMethod = (typeof AUTH_METHODS)[number];
