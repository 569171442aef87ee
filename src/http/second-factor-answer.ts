import type { SignInResult } from '../services/second-factor/second-factors';

/** What `POST /login` answers: a session, or, for an account with a second factor, the challenge to answer. */
export type LoginAnswer =
  | { access_token: string; token_type: 'bearer' }
  | { second_factor_required: true; challenge_token: string; expires_at: string; methods: string[] };

/** The JSON of a sign-in's outcome, snake_case, instants as ISO strings. */
export function loginAnswer(result: SignInResult): LoginAnswer {
  if (result.kind === 'session') return { access_token: result.token, token_type: 'bearer' };
  return {
    second_factor_required: true,
    challenge_token: result.challengeToken,
    expires_at: result.expiresAt.toISOString(),
    methods: [...result.methods],
  };
}

/** `GET /second-factor`. */
export function secondFactorStatusAnswer(status: { enabled: boolean; pending: boolean; recoveryCodesLeft: number }) {
  return { enabled: status.enabled, pending: status.pending, recovery_codes_left: status.recoveryCodesLeft };
}
