/** The account routes (spec section 4, then sessions, email change, the second factor, passkeys and OpenID providers), with their body fields and whether they need a session. */
export interface FuzzRoute {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  fields: readonly string[];
  bearer: boolean;
}

export const ROUTES: readonly FuzzRoute[] = [
  { method: 'post', path: '/register', fields: ['username', 'email', 'password'], bearer: false },
  { method: 'post', path: '/verify-email', fields: ['token'], bearer: false },
  { method: 'post', path: '/resend-verification', fields: ['email'], bearer: false },
  { method: 'post', path: '/login', fields: ['username', 'password'], bearer: false },
  { method: 'post', path: '/logout', fields: [], bearer: true },
  { method: 'post', path: '/logout-all', fields: [], bearer: true },
  { method: 'get', path: '/me', fields: [], bearer: true },
  { method: 'post', path: '/password-reset/request', fields: ['email'], bearer: false },
  { method: 'post', path: '/password-reset/confirm', fields: ['token', 'new_password'], bearer: false },
  { method: 'post', path: '/password/change', fields: ['old_password', 'new_password'], bearer: true },
  { method: 'delete', path: '/account', fields: ['password'], bearer: true },
  { method: 'get', path: '/sessions', fields: [], bearer: true },
  { method: 'delete', path: '/sessions/00000000-0000-4000-8000-000000000000', fields: [], bearer: true },
  { method: 'post', path: '/sessions/end-others', fields: [], bearer: true },
  { method: 'post', path: '/reauthenticate', fields: ['password'], bearer: true },
  { method: 'post', path: '/email-change', fields: ['new_email', 'end_other_sessions'], bearer: true },
  { method: 'post', path: '/email-change/confirm', fields: ['token'], bearer: false },
  { method: 'post', path: '/login/second-factor', fields: ['challenge_token', 'code', 'recovery_code'], bearer: false },
  { method: 'get', path: '/second-factor', fields: [], bearer: true },
  { method: 'post', path: '/second-factor/totp', fields: [], bearer: true },
  { method: 'post', path: '/second-factor/totp/confirm', fields: ['code'], bearer: true },
  { method: 'post', path: '/second-factor/recovery-codes', fields: ['code'], bearer: true },
  { method: 'post', path: '/second-factor/disable', fields: ['code'], bearer: true },
  { method: 'post', path: '/passkeys/registration-options', fields: [], bearer: true },
  { method: 'post', path: '/passkeys', fields: ['name', 'response'], bearer: true },
  { method: 'get', path: '/passkeys', fields: [], bearer: true },
  { method: 'patch', path: '/passkeys/00000000-0000-4000-8000-000000000000', fields: ['name'], bearer: true },
  { method: 'delete', path: '/passkeys/00000000-0000-4000-8000-000000000000', fields: [], bearer: true },
  { method: 'post', path: '/passkeys/login-options', fields: [], bearer: false },
  { method: 'post', path: '/passkeys/login', fields: ['response'], bearer: false },
  { method: 'post', path: '/passkeys/second-factor-options', fields: ['challenge_token'], bearer: false },
  { method: 'post', path: '/passkeys/second-factor', fields: ['challenge_token', 'response'], bearer: false },
  { method: 'post', path: '/passkeys/reauthentication-options', fields: [], bearer: true },
  { method: 'post', path: '/passkeys/reauthenticate', fields: ['response'], bearer: true },
  { method: 'get', path: '/oidc/providers', fields: [], bearer: false },
  { method: 'post', path: '/oidc/exchange', fields: ['code'], bearer: false },
  { method: 'post', path: '/oidc/corp/link', fields: ['return_to'], bearer: true },
  { method: 'get', path: '/oidc/identities', fields: [], bearer: true },
  { method: 'delete', path: '/oidc/identities/00000000-0000-4000-8000-000000000000', fields: [], bearer: true },
];
