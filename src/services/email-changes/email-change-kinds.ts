import type { FeatureKinds } from '../feature-kinds';

/** Changing the address: the confirmation link to the new address, the notices to both, and the events. */
export const EMAIL_CHANGE_KINDS = {
  credentials: {},
  links: ['emailChange'],
  notices: ['emailChangeRequested', 'emailChanged', 'emailChangeAttempt'],
  audit: ['email_change_requested', 'email_change'],
} as const satisfies FeatureKinds;
