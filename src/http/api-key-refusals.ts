import { AccountError } from '../errors/account-error';

// The answers that refuse an API key, in one place, so that every refusal of one kind reads the same: a key that is
// not live gets one 401 whatever the reason (bad checksum, unknown, revoked, expired, owner disabled), so that the
// answer says nothing about which.

/** 401: the bearer has a key's shape but is no live key of this deployment. */
export function invalidApiKey(): AccountError {
  return new AccountError('invalid_api_key', 'The API key is invalid, expired or revoked');
}

/** 403: a route or page that takes a session, never a key (Gatehouse's own routes, `'session'`, `'role:'`, `'mfa'`...). */
export function apiKeyNotAllowed(): AccountError {
  return new AccountError('api_key_not_allowed', 'This action needs a signed-in session, not an API key');
}

/** 429 with `Retry-After`: the key's own budget, or its address's budget of invalid keys, is spent. */
export function apiKeyRateLimited(retryAfterMs: number): AccountError {
  return new AccountError('rate_limited', 'Too many requests; try again later', {
    retryAfterSeconds: retryAfterMs / 1000,
  });
}
