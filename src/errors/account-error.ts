/** Every failure the account core can report (spec section 7). */
export const ACCOUNT_ERROR_CODES = [
  'invalid_credentials',
  'invalid_session_token',
  'permission_denied',
  'unverified_user',
  'unknown_permission',
  'unknown_role',
  'invalid_username',
  'invalid_email',
  'weak_password',
  'invalid_verification_token',
  'invalid_password_reset_token',
  'invalid_role',
  'invalid_permission',
  'account_error',
  // Not in the spec's table: abuse limits and overload, both answered with a `Retry-After`.
  'rate_limited',
  'service_unavailable',
  // Not in the spec's table: sessions you can see and end, re-authentication, email change.
  'reauthentication_required',
  'session_not_found',
  'invalid_email_change_token',
  'email_change_unavailable',
  // Not in the spec's table: the second factor.
  'invalid_second_factor_code',
  'invalid_login_challenge',
  'second_factor_required',
  'second_factor_already_enabled',
  'second_factor_not_enabled',
  'second_factor_setup_replaced',
  // Not in the spec's table: administration and disabled accounts.
  'account_disabled',
  'user_not_found',
  'last_administrator',
  'protected_permission',
  'address_owned',
  'invalid_cursor',
  // Not in the spec's table: passkeys.
  'passkeys_not_configured',
  'passkey_not_found',
  'passkey_already_registered',
  'last_sign_in_method',
  'invalid_passkey_response',
  // Not in the spec's table: sign-in with OpenID providers.
  'unknown_provider',
  'provider_unavailable',
  'return_url_not_allowed',
  'oidc_flow_invalid',
  'invalid_oidc_code',
  'link_required',
  'identity_already_linked',
  'identity_not_found',
  'email_domain_not_allowed',
  // Not in the spec's table: organizations.
  'organization_not_found',
  'member_not_found',
  'invitation_not_found',
  'invalid_invitation_token',
  'invitation_address_mismatch',
  'role_not_assignable',
  'last_owner',
  'already_member',
  'organization_limit_reached',
  'member_limit_reached',
  'invitation_limit_reached',
  // Not in the spec's table: API keys.
  'invalid_api_key',
  'api_key_not_allowed',
  'invalid_scope',
  'invalid_api_key_expiry',
  'api_key_not_found',
  'api_key_name_taken',
  'api_key_limit_reached',
  'not_a_service_account',
] as const;

export type AccountErrorCode = (typeof ACCOUNT_ERROR_CODES)[number];

/** The message of a taken username (spec section 7: `invalid_username`, 409 "when the message says it exists"). */
export const USERNAME_EXISTS_MESSAGE = 'Username already exists';

/**
 * The one error class of the account core. It carries a code, never an HTTP status: the HTTP layer maps codes to
 * statuses in `errors/status-table.ts`. Messages are safe to show to the client and never contain a secret.
 *
 * @example throw new AccountError('weak_password', 'Password must be at least 12 characters long');
 */
export class AccountError extends Error {
  /** For `rate_limited` and `service_unavailable`: whole seconds until trying again makes sense. */
  readonly retryAfterSeconds?: number;
  /** The request conflicts with what is stored (a taken username): 409 rather than its code's status. */
  readonly conflict: boolean;

  constructor(
    readonly code: AccountErrorCode,
    message: string = code,
    options: { retryAfterSeconds?: number; conflict?: boolean } = {},
  ) {
    super(message);
    this.name = 'AccountError';
    this.conflict = options.conflict ?? false;
    if (options.retryAfterSeconds !== undefined)
      this.retryAfterSeconds = Math.max(1, Math.ceil(options.retryAfterSeconds));
  }
}

/** A token that names no live session: unknown, expired, ended, or its account disabled or deleted. */
export function invalidSession(): AccountError {
  return new AccountError('invalid_session_token', 'Invalid or expired session token');
}

/** A taken username: `invalid_username`, marked as a conflict. */
export function usernameTakenError(): AccountError {
  return new AccountError('invalid_username', USERNAME_EXISTS_MESSAGE, { conflict: true });
}

export function isAccountError(error: unknown): error is AccountError {
  return error instanceof AccountError;
}

/** A login challenge unknown, expired, used or out of answers: whichever proof answers it, the person signs in again. */
export function invalidLoginChallenge(): AccountError {
  return new AccountError('invalid_login_challenge', 'The sign-in has expired or was used; sign in again');
}
