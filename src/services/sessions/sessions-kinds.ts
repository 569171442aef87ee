import type { FeatureKinds } from '../feature-kinds';

/** The sessions a person sees and ends, and re-authentication: events only. */
export const SESSIONS_KINDS = {
  credentials: {},
  links: [],
  notices: [],
  audit: ['reauthenticate', 'session_ended', 'other_sessions_ended'],
} as const satisfies FeatureKinds;
