/**
 * The logging seam of the core: a subset of pino's API, so a pino logger fits as it is.
 * Callers pass structured fields first; never a token, password, hash or full email address.
 */
export interface Logger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

function line(level: string, fields: object, message: string): string {
  return JSON.stringify({ level, time: new Date().toISOString(), msg: message, ...fields });
}

/** One JSON line per event on stderr. */
export const jsonConsoleLogger: Logger = {
  info: (fields, message) => process.stderr.write(line('info', fields, message) + '\n'),
  warn: (fields, message) => process.stderr.write(line('warn', fields, message) + '\n'),
  error: (fields, message) => process.stderr.write(line('error', fields, message) + '\n'),
};

/** Discards everything; for tests that assert on behaviour, not logs. */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
