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
