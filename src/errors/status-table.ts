import { AccountError, AccountErrorCode } from './account-error';

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
  // The session is valid (not 401, which tells clients to sign in again); it must prove the password again first.
  reauthentication_required: 403,
  // An unknown id and another user's session alike, so ids cannot be probed.
  session_not_found: 404,
  invalid_email_change_token: 400,
  // The host's email sender does not carry email change (see EmailSender.kinds): a deployment choice, not the client's.
  email_change_unavailable: 501,
  invalid_second_factor_code: 401,
  // Unknown, expired, used, out of answers, or the password changed since: sign in again.
  invalid_login_challenge: 401,
  // The session is valid; it was not made with a second factor, which the route asks for.
  second_factor_required: 403,
  second_factor_already_enabled: 409,
  second_factor_not_enabled: 409,
  // Set-up was started again while this confirm was under way: its code proved a secret that is no longer waiting.
  second_factor_setup_replaced: 409,
  // Told only after the right password, like `unverified_user`: whoever knows the password may learn the state.
  account_disabled: 403,
  // Admin routes only, after the permission check: an administrator may learn which accounts exist.
  user_not_found: 404,
  // The change would leave no enabled user holding the administrator role.
  last_administrator: 409,
  // A Gatehouse administration permission cannot leave the administrator role.
  protected_permission: 409,
  // Marking an address verified that another verified account owns.
  address_owned: 409,
  invalid_cursor: 400,
  // The deployer has not configured passkeys (no relying party): the routes exist in the build, not on this server.
  passkeys_not_configured: 404,
  // An unknown id and another account's passkey alike, so ids cannot be probed.
  passkey_not_found: 404,
  // The credential id is stored already, on this account or another: one authenticator, one passkey.
  passkey_already_registered: 409,
  // Removing it would leave the account no way to sign in (no password, no other passkey).
  last_sign_in_method: 409,
  // A registration the WebAuthn checks refuse: the client's fault, never a 500.
  invalid_passkey_response: 400,
  // No provider of that id on this server (or none at all): the route exists in the build, not here.
  unknown_provider: 404,
  // The provider's discovery, keys or token endpoint did not answer: retried later, as a store outage is.
  provider_unavailable: 503,
  // Not in the deployer's allow-list: a flow never sends a browser anywhere else (no open redirect).
  return_url_not_allowed: 400,
  // Unknown, used or expired state, or another browser's callback: start again.
  oidc_flow_invalid: 400,
  // The fragment's one-time code is unknown, used or older than a minute.
  invalid_oidc_code: 400,
  // An account holds the provider's address: its owner links the provider after signing in; no session, no link.
  link_required: 409,
  // The identity is linked to another account (or was linked to this one meanwhile).
  identity_already_linked: 409,
  // An unknown id and another account's identity alike.
  identity_not_found: 404,
  // The deployer allows only some domains for this provider.
  email_domain_not_allowed: 403,
  // Unknown, malformed, and an organization the caller is not a member of, alike: ids cannot be probed (ASVS V8.4.1).
  organization_not_found: 404,
  // A member (user id) or invitation id that is not this organization's: alike with an unknown one.
  member_not_found: 404,
  invitation_not_found: 404,
  // Unknown, used, declined, expired, cancelled or replaced: one answer, so a token cannot be probed.
  invalid_invitation_token: 400,
  // Signed in as someone else than the invited address's verified owner: the invitation stays for its invitee.
  invitation_address_mismatch: 403,
  // Beyond the actor's own permissions, an owner's role touched by a non-owner, or one's own role raised.
  role_not_assignable: 403,
  // The change would leave an organization without an owner.
  last_owner: 409,
  already_member: 409,
  organization_limit_reached: 409,
  member_limit_reached: 409,
  invitation_limit_reached: 409,
  // Unknown, expired, revoked, a wrong checksum or a disabled owner: one answer, so a key cannot be probed.
  invalid_api_key: 401,
  // A valid credential of the wrong kind for the route: a key where only a session counts.
  api_key_not_allowed: 403,
  // Not a permission the owner holds now, a wildcard, a `gatehouse.*` name, or no scope at all.
  invalid_scope: 400,
  invalid_api_key_expiry: 400,
  // An unknown id and another user's key alike.
  api_key_not_found: 404,
  api_key_name_taken: 409,
  api_key_limit_reached: 409,
  // Administrators create keys for service accounts only: a person's keys are the person's.
  not_a_service_account: 409,
};

/** A conflict with what is stored: the spec's taken username (`invalid_username`, 409 instead of 400). */
const CONFLICT_STATUS = 409;

export function statusForAccountError(error: AccountError): number {
  return error.conflict ? CONFLICT_STATUS : STATUS_BY_CODE[error.code];
}
