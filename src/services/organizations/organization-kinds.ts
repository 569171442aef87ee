import type { FeatureKinds } from '../feature-kinds';

/**
 * Organizations sign nobody in: no credential kind. An invitation is a link mail (its raw token, to the invited
 * address only); a deletion is a notice to each member. Every change is audited with the organization's id (and never
 * the invited address); the administrators' reads are audited too.
 */
export const ORGANIZATION_KINDS = {
  credentials: {},
  links: ['organizationInvitation'],
  notices: ['organizationDeleted'],
  audit: [
    'organization_created',
    'organization_updated',
    'organization_deleted',
    'organization_invitation_created',
    'organization_invitation_resent',
    'organization_invitation_cancelled',
    'organization_invitation_accepted',
    'organization_invitation_declined',
    'organization_member_role_changed',
    'organization_member_removed',
    'organization_member_left',
    'organization_ownership_transferred',
    'admin.organizations_listed',
    'admin.organization_read',
    'admin.user_organizations_read',
    'admin.organization_owner_set',
  ],
} as const satisfies FeatureKinds;
