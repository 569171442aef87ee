import type { FeatureKinds } from '../feature-kinds';

/**
 * The second factor: an authenticator app's codes (`otp`) and printed recovery codes (RFC 8176 has no name for a
 * printed single-use code, so `lookup_secret`, Ory Kratos's name for that credential), their notices and events.
 */
export const SECOND_FACTOR_KINDS = {
  credentials: { totp: ['otp'], recovery_code: ['lookup_secret'] },
  links: [],
  notices: ['secondFactorEnabled', 'secondFactorDisabled', 'recoveryCodesRegenerated', 'recoveryCodeUsed'],
  audit: [
    'login_second_factor',
    'second_factor_enabled',
    'second_factor_disabled',
    'recovery_codes_regenerated',
    'recovery_code_used',
  ],
} as const satisfies FeatureKinds;
