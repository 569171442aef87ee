import type { Logger } from '../services/logger';
import { currentLogContext } from './log-context';

const wrapped = new WeakMap<Logger, Logger>();

/**
 * `base` with the current request's id and IP added to every line (when there is a current request). The same
 * wrapper is returned for the same base, so callers that memoize on the logger's identity keep working.
 */
export function withLogContext(base: Logger): Logger {
  let logger = wrapped.get(base);
  if (!logger) {
    const fieldsOf = (fields: object): object => {
      const context = currentLogContext();
      return context ? { requestId: context.requestId, ...(context.ip ? { ip: context.ip } : {}), ...fields } : fields;
    };
    logger = {
      info: (fields, message) => base.info(fieldsOf(fields), message),
      warn: (fields, message) => base.warn(fieldsOf(fields), message),
      error: (fields, message) => base.error(fieldsOf(fields), message),
    };
    wrapped.set(base, logger);
  }
  return logger;
}
