import { AccountError, AccountErrorCode, USERNAME_EXISTS_MESSAGE } from './account-error';

/** The single code → HTTP status table (spec section 7). */
const STATUS_BY_CODE: Record<AccountErrorCode, number> = {
  invalid_credentials: 401,
  invalid_session_token: 401,
  permission_denied: 403,
  // The spec leaves the adapter's status open; 403 matches the directly wired equivalent.
  unverified_user: 403,
  unknown_permission: 404,
  unknown_role: 404,
  invalid_username: 400,
  invalid_email: 400,
  weak_password: 400,
  invalid_verification_token: 400,
  invalid_password_reset_token: 400,
  invalid_role: 400,
  invalid_permission: 400,
  account_error: 400,
  rate_limited: 429,
  service_unavailable: 503,
};

export function statusForAccountError(error: AccountError): number {
  if (error.code === 'invalid_username' && error.message === USERNAME_EXISTS_MESSAGE) return 409;
  return STATUS_BY_CODE[error.code];
}
