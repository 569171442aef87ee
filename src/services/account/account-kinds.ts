import type { FeatureKinds } from '../feature-kinds';

/** The account's life: the password, the verification and reset links and their notices, and their events. */
export const ACCOUNT_KINDS = {
  credentials: { password: ['pwd'] },
  links: ['verification', 'passwordReset'],
  notices: ['emailVerified', 'passwordChanged', 'accountDeleted', 'registrationAttempt'],
  audit: [
    'register',
    'verify_email',
    'login',
    'logout',
    'logout_all',
    'password_reset_requested',
    'password_reset',
    'password_change',
    'account_deleted',
  ],
} as const satisfies FeatureKinds;
