import { AccountError } from '../../errors/account-error';

/** An id that names none of the account's keys: unknown, another account's, or malformed, alike. */
export const apiKeyNotFound = (): AccountError => new AccountError('api_key_not_found', 'No such API key');

/** An administrator's key for a person: only service accounts have keys made for them. */
export const notAServiceAccount = (): AccountError =>
  new AccountError('not_a_service_account', 'Only a service account has keys made by an administrator');
