import { ValidationHttpError } from '../http/http-errors';

/**
 * Account bodies are JSON objects. The parser also accepts a top-level array, which routing-controllers would turn
 * into an array of DTOs and skip validating, so it is refused (by `accountRoute`), before any parameter is read.
 */
export function requireJsonObject(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationHttpError([{ field: 'body', message: 'body must be a JSON object' }]);
  }
}
