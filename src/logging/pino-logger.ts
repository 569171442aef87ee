import pino, { DestinationStream, LevelWithSilent } from 'pino';
import type { Logger } from '../services/logger';

/**
 * Field names that must never be written, whoever passes them by mistake: Gatehouse's own events carry none of
 * them (user ids and outcomes only), so this is the second line of defence, not the first.
 */
const REDACTED_PATHS = [
  'password',
  'newPassword',
  'new_password',
  'old_password',
  'token',
  'access_token',
  'passwordHash',
  'password_hash',
  'tokenHash',
  'email',
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.password',
  '*.token',
  '*.email',
];

export interface PinoLoggerOptions {
  level?: LevelWithSilent;
  /** Where lines go; default stderr, leaving stdout to the console email sender's messages. */
  destination?: DestinationStream;
}

/** Gatehouse's structured JSON logger: pino, ISO times, level names, secrets redacted. */
export function createPinoLogger(options: PinoLoggerOptions = {}): pino.Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

let fallback: Logger | undefined;

/** The logger used when a host sets none: pino to stderr at `info`, created on first use. */
export function defaultLogger(): Logger {
  fallback ??= createPinoLogger();
  return fallback;
}
