import { expect } from 'chai';
import {
  ACCOUNT_ERROR_CODES,
  AccountError,
  USERNAME_EXISTS_MESSAGE,
  usernameTakenError,
} from '../../src/errors/account-error';
import { statusForAccountError } from '../../src/errors/status-table';

describe('errors: the one code → status table', () => {
  it('gives every code the status of spec section 7, and the later codes theirs', () => {
    const statuses = Object.fromEntries(
      ACCOUNT_ERROR_CODES.map((code) => [code, statusForAccountError(new AccountError(code))]),
    );
    expect(statuses).to.deep.equal({
      invalid_credentials: 401,
      invalid_session_token: 401,
      permission_denied: 403,
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
      reauthentication_required: 403,
      session_not_found: 404,
      invalid_email_change_token: 400,
      email_change_unavailable: 501,
      invalid_second_factor_code: 401,
      invalid_login_challenge: 401,
      second_factor_required: 403,
      second_factor_already_enabled: 409,
      second_factor_not_enabled: 409,
      second_factor_setup_replaced: 409,
      account_disabled: 403,
      user_not_found: 404,
      last_administrator: 409,
      protected_permission: 409,
      address_owned: 409,
      invalid_cursor: 400,
      passkeys_not_configured: 404,
      passkey_not_found: 404,
      passkey_already_registered: 409,
      last_sign_in_method: 409,
      invalid_passkey_response: 400,
      unknown_provider: 404,
      provider_unavailable: 503,
      return_url_not_allowed: 400,
      oidc_flow_invalid: 400,
      invalid_oidc_code: 400,
      link_required: 409,
      identity_already_linked: 409,
      identity_not_found: 404,
      email_domain_not_allowed: 403,
      organization_not_found: 404,
      member_not_found: 404,
      invitation_not_found: 404,
      invalid_invitation_token: 400,
      invitation_address_mismatch: 403,
      role_not_assignable: 403,
      last_owner: 409,
      already_member: 409,
      organization_limit_reached: 409,
      member_limit_reached: 409,
      invitation_limit_reached: 409,
      invalid_api_key: 401,
      api_key_not_allowed: 403,
      invalid_scope: 400,
      invalid_api_key_expiry: 400,
      api_key_not_found: 404,
      api_key_name_taken: 409,
      api_key_limit_reached: 409,
      not_a_service_account: 409,
    });
  });

  it('answers a taken username 409 because it is marked a conflict, never because of its message', () => {
    expect(statusForAccountError(usernameTakenError())).to.equal(409);
    expect(usernameTakenError().message).to.equal(USERNAME_EXISTS_MESSAGE);
    expect(statusForAccountError(new AccountError('invalid_username', USERNAME_EXISTS_MESSAGE))).to.equal(400);
  });
});
