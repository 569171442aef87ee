import type { AccountErrorCode } from '../errors/account-error';

/**
 * What each account error code means, for the API document. Statuses are not here: they come from the one
 * code → status table (errors/status-table.ts). Typed by the code list, so a new code cannot go undocumented.
 */
export const ACCOUNT_ERROR_DESCRIPTIONS: Record<AccountErrorCode, string> = {
  invalid_credentials:
    'Wrong username or password (the same answer for both), or a wrong current password on change or deletion; a ' +
    'passkey sign-in or re-authentication that does not verify (unknown passkey, wrong signature, used or expired ' +
    'challenge, disabled account: one answer for all).',
  invalid_session_token: 'The session token is unknown, expired, logged out, or of a deleted user.',
  permission_denied: 'The user lacks the role or permission a guarded route requires.',
  unverified_user: 'The password is right, but the email address is not verified yet.',
  unknown_permission: 'A guard or grant names a permission that does not exist.',
  unknown_role: 'A guard or grant names a role that does not exist.',
  invalid_username: 'The username is invalid (400), or `Username already exists` (409).',
  invalid_email: 'The email address is invalid.',
  weak_password: 'The password policy refuses the password; the message says why.',
  invalid_verification_token: 'The verification token is unknown, used, expired, superseded or of another purpose.',
  invalid_password_reset_token: 'The reset token is unknown, used, expired, superseded or of another purpose.',
  invalid_role: 'The role name is invalid.',
  invalid_permission: 'The permission name is invalid.',
  account_error: 'Any other failure of the account core, such as granting a role to an unknown user.',
  rate_limited: 'Too many requests of this kind; `Retry-After` says how many seconds to wait.',
  service_unavailable: 'The store or the password hashing is overloaded or down; retry after `Retry-After` seconds.',
  reauthentication_required:
    'The session is valid, but it was not proved recently enough (at login, by `POST /reauthenticate` or by ' +
    '`POST /passkeys/reauthenticate`, within the re-authentication window, 10 minutes by default); confirm it and ' +
    'retry.',
  session_not_found: 'No session of yours has this id: an unknown id and another user’s session get the same answer.',
  invalid_email_change_token:
    'The email-change token is unknown, used, expired or superseded, or the address was taken since.',
  email_change_unavailable:
    'This server’s email sender cannot send the email-change messages, so the address cannot be changed.',
  invalid_second_factor_code:
    'The code is not right: wrong, outside the time window, already used (a code works once, and an earlier one ' +
    'after a later one is refused), or a recovery code that is unknown or spent; or a passkey assertion answering ' +
    'the challenge that does not verify. Each wrong answer counts against the account like a wrong password.',
  invalid_login_challenge:
    'The `challenge_token` is unknown, expired (5 minutes by default), already answered, out of answers (5 by ' +
    'default; the next is refused even with a right code), or the password changed since: sign in again.',
  second_factor_required:
    'The session is valid, but the route needs one signed in with a second factor (or an account with one signs in ' +
    'through `POST /login` and `POST /login/second-factor`).',
  second_factor_already_enabled: 'Two-factor sign-in is already on for this account; switch it off first.',
  second_factor_not_enabled:
    'Two-factor sign-in is not on for this account (or enrolment was not started), so there is nothing to confirm, ' +
    'regenerate or switch off.',
  second_factor_setup_replaced:
    'Set-up was started again (`POST /second-factor/totp`) while this confirmation was under way: the code was for ' +
    'a secret that no longer waits, nothing was switched on and no recovery codes were made. Confirm with a code ' +
    'of the newest secret.',
  account_disabled:
    'The password is right, but an administrator has disabled the account. Told only after the right password, like ' +
    '`unverified_user`, so it tells nothing to someone who does not know the password.',
  user_not_found: 'No account has this id (admin routes; answered only after the permission check).',
  last_administrator:
    'The change would leave no enabled user holding the `gatehouse-admin` role (revoking it, disabling or deleting ' +
    'its last holder). Grant it to another user first.',
  protected_permission: 'A Gatehouse administration permission cannot be revoked from the `gatehouse-admin` role.',
  address_owned: 'Another verified account owns this address, so this account cannot be marked verified.',
  invalid_cursor: 'The `cursor` is not one this list returned.',
  passkeys_not_configured:
    'Passkeys are off on this server: its deployer configured no relying party (`passkeys` in the account options, ' +
    '`GATEHOUSE_WEBAUTHN_RP_ID` / `GATEHOUSE_WEBAUTHN_ORIGINS` standalone).',
  passkey_not_found: 'No passkey of this account has this id: an unknown id and another account’s passkey alike.',
  passkey_already_registered:
    'This authenticator’s credential is registered already (to this account or another): one credential, one ' +
    'passkey. The registration options list the account’s passkeys in `excludeCredentials`, so a browser ' +
    'normally refuses before asking.',
  last_sign_in_method:
    'Removing this passkey would leave the account no way to sign in (no password and no other passkey). Add ' +
    'another passkey or set a password first.',
  invalid_passkey_response:
    'The registration response does not verify: another challenge or origin, a challenge already used or expired, ' +
    'user verification missing where it is required, or a response that is not WebAuthn JSON.',
  unknown_provider:
    'No sign-in provider of this id is configured on this server (or none is): the routes exist in the build, not here.',
  provider_unavailable:
    'The provider did not answer (its discovery, keys or token endpoint): retry after the `Retry-After` seconds. ' +
    'Other providers and other ways to sign in keep working.',
  return_url_not_allowed:
    'The return URL is not one the deployer allowed (`oidc.returnUrls`): a flow never sends a browser anywhere else.',
  oidc_flow_invalid:
    'The callback names no live flow of this browser: its state is unknown, used or expired, or the flow was started ' +
    'in another browser (its cookie is missing or differs). Nothing was signed in or linked; start again.',
  invalid_oidc_code: 'The one-time code is unknown, used, or older than a minute: start the provider sign-in again.',
  link_required:
    'An account already holds the address the provider gave (verified or not): no account was made, nothing was ' +
    'linked and no session was issued, and the owner was told. The owner signs in and links the provider from a ' +
    'recently re-authenticated session.',
  identity_already_linked: 'This identity at the provider is linked to another account already.',
  identity_not_found: 'No linked identity of this account has this id: an unknown id and another account’s alike.',
  email_domain_not_allowed: 'The provider’s address is outside the domains the deployer allows for this provider.',
  organization_not_found:
    'No such organization for this caller: unknown, malformed, or one the caller is not a member of (one answer for all).',
  member_not_found: 'No member of this organization with that user id.',
  invitation_not_found: 'No pending invitation of this organization with that id.',
  invalid_invitation_token: 'The invitation token is unknown, used, declined, expired, cancelled or replaced.',
  invitation_address_mismatch:
    'The invitation is for another address: only the verified account owning it may accept or decline; it stays.',
  role_not_assignable:
    'The role carries permissions the actor lacks, touches an owner without being one, or raises the actor’s own role.',
  last_owner: 'The change would leave an organization without an owner.',
  already_member: 'The address’s account is a member of this organization already.',
  organization_limit_reached: 'The user is a member of as many organizations as allowed.',
  member_limit_reached: 'The organization has as many members and pending invitations as allowed.',
  invitation_limit_reached: 'The organization has as many pending invitations as allowed.',
  invalid_api_key:
    'The API key is unknown, expired, revoked, fails its checksum, or its owner is disabled: one answer for all.',
  api_key_not_allowed:
    'An API key was presented where only a session counts: Gatehouse’s own routes and pages, and host routes guarded with `session`, `role:`, `mfa` or an organization’s requirement.',
  invalid_scope:
    'A scope is not a permission the owner holds now, is a wildcard or a `gatehouse.*` permission, or none was given.',
  invalid_api_key_expiry: 'The expiry is not a whole number of days from 1 to `apiKeyMaxLifetimeDays`.',
  api_key_not_found: 'No API key of this account has this id: an unknown id and another account’s key alike.',
  api_key_name_taken: 'The owner has an API key of this name already.',
  api_key_limit_reached: 'The owner has as many live API keys as allowed.',
  not_a_service_account: 'Administrators create API keys for service accounts only; a person creates their own.',
};
