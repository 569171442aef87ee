/**
 * Upper bounds of request fields. They only keep huge strings away from the core (and its password hashing);
 * the real rules (username syntax, email syntax, password policy) are the core's. In the DTOs `@IsString()` stands
 * below `@MaxLength()`: decorators run bottom-up and validation stops at the first error, so a wrong type is
 * reported as a wrong type.
 */
export const MAX_USERNAME = 64;
export const MAX_EMAIL = 320;
export const MAX_PASSWORD = 1024;
export const MAX_TOKEN = 512;
/** A recovery code is 16 letters and digits in four groups; room for spaces a person types or pastes between them. */
export const MAX_RECOVERY_CODE = 64;
/** A code from an authenticator app: six digits (RFC 6238 as Gatehouse uses it). */
export const TOTP_CODE = /^[0-9]{6}$/;
/** A role or permission name is at most 64 characters (the core's rule); room for a filter that matches none. */
export const MAX_ACCESS_NAME = 128;
/** A cursor of an admin list is a short opaque string the core made. */
export const MAX_CURSOR = 512;
/** A search prefix of the user list: at most the longest address. */
export const MAX_PREFIX = 254;
// A passkey's name: the core's bound (the service refuses a longer one too).
export { MAX_PASSKEY_NAME } from '../../services/passkeys/passkey-view';
/**
 * A WebAuthn credential id is at most 1023 bytes (WebAuthn Level 3, §5.4.3's `credentialIdLengthLimit`), 1364
 * characters of base64url: room for that, not for a string that only costs work.
 */
export const MAX_CREDENTIAL_ID = 1400;
/**
 * The JSON of one WebAuthn response (`RegistrationResponseJSON`, `AuthenticationResponseJSON`): a registration with
 * an attestation certificate chain is a few KiB; bounded apart from the body limit, which a host may raise.
 */
export const MAX_WEBAUTHN_RESPONSE_JSON = 16 * 1024;
/** The one-time code of a provider sign-in's return URL: a short random token the core made. */
export const MAX_OIDC_CODE = 128;
/** A return URL of a provider flow: an exact entry of the deployer's allow-list, so no longer than a sane URL. */
export const MAX_RETURN_URL = 2048;
