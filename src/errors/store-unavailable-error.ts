/**
 * The store cannot reach its database right now (connection refused, pool exhausted, server restarting). The HTTP
 * layer answers 503 with `Retry-After` instead of a 500, because the request itself was fine and retrying soon may
 * work. The message is for logs; it never reaches the client.
 */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}
