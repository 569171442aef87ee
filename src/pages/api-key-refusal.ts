import { apiKeyNotAllowed } from '../http/api-key-refusals';
import { AccountHttpError } from '../http/http-errors';
import type { PageAnswer } from './page-answer';

/** The hosted pages' answer to a key-shaped bearer: 403 `api_key_not_allowed`, in the API's JSON error shape. */
export function apiKeyRefusalPage(): PageAnswer {
  const error = new AccountHttpError(apiKeyNotAllowed());
  return {
    status: error.httpCode,
    type: 'application/json; charset=utf-8',
    body: JSON.stringify(error.toJSON()),
    headers: {},
  };
}
