import { AccountError } from '../../errors/account-error';

// The refusals of the organizations' rules, one wording each, so that an unknown id and another's answer alike.

/** Unknown, malformed, or not the caller's: the same answer, so ids cannot be probed. Also when organizations are off. */
export const organizationNotFound = (): AccountError =>
  new AccountError('organization_not_found', 'No organization of yours has this id');

export const memberNotFound = (): AccountError =>
  new AccountError('member_not_found', 'This organization has no member with this id');

export const invitationNotFound = (): AccountError =>
  new AccountError('invitation_not_found', 'This organization has no pending invitation with this id');

/** Unknown, used, expired, cancelled or replaced: alike. */
export const invalidInvitationToken = (): AccountError =>
  new AccountError('invalid_invitation_token', 'This invitation is invalid, used or expired');

export const invitationAddressMismatch = (): AccountError =>
  new AccountError(
    'invitation_address_mismatch',
    'This invitation is for another address: sign in with the verified account of the invited address',
  );

export const organizationPermissionDenied = (): AccountError =>
  new AccountError('permission_denied', 'Your role in this organization does not allow this');

export const roleNotAssignable = (message = 'You cannot give or take this role'): AccountError =>
  new AccountError('role_not_assignable', message);

export const lastOwner = (): AccountError =>
  new AccountError('last_owner', 'This would leave an organization without an owner; name another owner first');

export const alreadyMember = (): AccountError =>
  new AccountError('already_member', 'This address belongs to a member of the organization already');

export const organizationLimitReached = (): AccountError =>
  new AccountError('organization_limit_reached', 'This account belongs to as many organizations as it may');

export const memberLimitReached = (): AccountError =>
  new AccountError('member_limit_reached', 'This organization has as many members and invitations as it may');

export const invitationLimitReached = (): AccountError =>
  new AccountError('invitation_limit_reached', 'This organization has as many pending invitations as it may');

export const unknownOrganizationRole = (): AccountError =>
  new AccountError('account_error', 'This organization role is not in the role template');
