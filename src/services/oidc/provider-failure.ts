/**
 * The provider could not be asked right now: unreachable, too slow, or answering 5xx or 429. The request was fine and
 * asking again soon may work, so the HTTP layer answers 503 with `Retry-After`. The message names the step and the
 * network's error code, never a secret or a token.
 */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';

  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}

/**
 * The provider's answer (or its discovery document) failed a check: wrong issuer, state, nonce, signature, audience,
 * a refused code, an error the provider sent back. `reason` is for logs: the library's description of the check and
 * the step, never a secret, a token or a value taken from the answer.
 */
export class ProviderRefusedError extends Error {
  override name = 'ProviderRefusedError';

  constructor(readonly reason: string) {
    super(`The sign-in provider's answer was refused: ${reason}`);
  }
}

interface WithCode {
  code?: unknown;
  status?: unknown;
  error?: unknown;
  cause?: unknown;
}

// Statuses worth trying again later; every other refusal is the provider (or an attacker) saying no.
const passing = (status: unknown) => typeof status === 'number' && (status >= 500 || status === 429);

/**
 * Sorts what openid-client (or the fetch under it) threw into the two answers the service knows. Only the library's
 * own fixed descriptions and error codes go into the message: an answer's body, a response parameter or a claim's
 * value could carry a token, and the client secret is in no error openid-client builds.
 */
export function providerFailure(
  error: unknown,
  step: string,
  retryAfterSeconds: number,
): ProviderUnavailableError | ProviderRefusedError {
  if (error instanceof ProviderUnavailableError || error instanceof ProviderRefusedError) return error;
  const unavailable = (why: string) =>
    new ProviderUnavailableError(`The sign-in provider is unavailable (${step}): ${why}`, retryAfterSeconds);
  if (!(error instanceof Error)) return new ProviderRefusedError(`${step}: unexpected failure`);
  const { code, status, cause } = error as WithCode;
  // undici's fetch: "fetch failed", its cause the socket's or TLS's error (ECONNREFUSED, UNABLE_TO_VERIFY_LEAF_SIGNATURE).
  if (error instanceof TypeError && error.message === 'fetch failed') {
    return unavailable(`cannot connect (${codeOf(cause) ?? 'network error'})`);
  }
  if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT' || error.name === 'TimeoutError') {
    return unavailable('no answer in time');
  }
  if (passing(status)) return unavailable(`HTTP ${String(status)}`);
  if (cause instanceof Response && passing(cause.status)) return unavailable(`HTTP ${cause.status}`);
  if (error.name === 'ResponseBodyError') {
    return new ProviderRefusedError(`${step}: the provider answered ${oauthErrorCode(error)} (HTTP ${String(status)})`);
  }
  if (error.name === 'AuthorizationResponseError') {
    return new ProviderRefusedError(`${step}: the provider answered ${oauthErrorCode(error)}`);
  }
  if (error.name === 'WWWAuthenticateChallengeError') {
    return new ProviderRefusedError(`${step}: the provider refused the access token (HTTP ${String(status)})`);
  }
  // openid-client's ClientError wraps oauth4webapi's error, whose fixed message names the failed check.
  const inner = cause instanceof Error && typeof (cause as WithCode).code === 'string' ? cause : error;
  const innerCode = typeof (inner as WithCode).code === 'string' ? ` [${String((inner as WithCode).code)}]` : '';
  return new ProviderRefusedError(`${step}: ${inner.message}${innerCode}`);
}

function codeOf(cause: unknown): string | undefined {
  const code = (cause as WithCode | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

// An OAuth error code is a short token (RFC 6749 §5.2); anything else is left out rather than logged.
function oauthErrorCode(source: unknown): string {
  const value = (source as WithCode | undefined)?.error;
  return typeof value === 'string' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(value)
    ? `error=${value}`
    : 'an error';
}
