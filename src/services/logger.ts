/**
 * The logging seam of the core: a subset of pino's API, so a pino logger fits as it is.
 * Callers pass structured fields first; never a token, password, hash or full email address.
 */
export interface Logger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Discards everything; for tests that assert on behaviour, not logs. */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * `base` with a request's id and client address on every line (the line's own fields win): how they reach the lines
 * the core logs while serving that request (`AccountService.forRequest`), and the HTTP layer's own.
 */
export function withRequest(base: Logger, request: { requestId?: string; ip?: string }): Logger {
  const fields = {
    ...(request.requestId ? { requestId: request.requestId } : {}),
    ...(request.ip ? { ip: request.ip } : {}),
  };
  return {
    info: (lineFields, message) => base.info({ ...fields, ...lineFields }, message),
    warn: (lineFields, message) => base.warn({ ...fields, ...lineFields }, message),
    error: (lineFields, message) => base.error({ ...fields, ...lineFields }, message),
  };
}
