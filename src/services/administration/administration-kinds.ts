import type { FeatureKinds } from '../feature-kinds';

/** Administration of other accounts, roles and permissions: every action, reads included, is an event. */
export const ADMINISTRATION_KINDS = {
  credentials: {},
  links: [],
  notices: [],
  audit: [
    'admin.users_listed',
    'admin.user_viewed',
    'admin.audit_read',
    'admin.user_disabled',
    'admin.user_enabled',
    'admin.sessions_ended',
    'admin.email_verified',
    'admin.verification_resent',
    'admin.user_deleted',
    'admin.role_granted',
    'admin.role_revoked',
    'admin.role_created',
    'admin.permission_created',
    'admin.permission_granted',
    'admin.permission_revoked',
  ],
} as const satisfies FeatureKinds;
