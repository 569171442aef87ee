import { resolveAccountService } from '../di/resolve';
import { AccountError } from '../errors/account-error';
import { isApiKeyShaped } from '../services/api-keys/api-key-format';
import { readBearerToken } from './bearer-header';
import { AccountHttpError } from './http-errors';
import { routeMiddleware } from './route-middleware';

/**
 * Gatehouse's own routes never take an API key as a credential: a key is for the host's routes, and a stolen one
 * must not change the password or the address, mint keys or administer. A bearer token of a key's shape for the
 * configured prefix (checksum good or bad) is refused with 403 `api_key_not_allowed`, before any parameter, guard
 * or store is read. Every controller of `src/controllers` carries it at class level (test/architecture proves it).
 */
export const refuseApiKeys = routeMiddleware(({ req }) => {
  const token = readBearerToken(req.headers.authorization || undefined);
  if (token !== null && isApiKeyShaped(token, resolveAccountService().apiKeys.prefix)) {
    throw new AccountHttpError(
      new AccountError('api_key_not_allowed', 'An API key is not accepted here; sign in to manage the account'),
    );
  }
});
