import type { IncomingMessage } from 'node:http';
import { Container } from 'typedi';
import { resolveAccountService } from '../di/resolve';
import { ACCOUNT_OPTIONS } from '../di/tokens';
import { API_KEY_BODY_LENGTH, DEFAULT_API_KEY_PREFIX, isApiKeyShaped } from '../services/api-keys/api-key-format';
import { apiKeyNotAllowed } from './api-key-refusals';
import { readBearerToken } from './bearer-header';
import { routeMiddleware, type RouteMiddleware } from './route-middleware';

/** Where a key's `_` is, counted from its end (the header's end too: the token ends it). */
const UNDERSCORE_FROM_END = API_KEY_BODY_LENGTH + 1;

/**
 * Whether the request's bearer has the shape of one of this deployment's API keys, whatever its checksum: nothing is
 * read, so a forged key costs what a missing one does. Session tokens (43 base64url characters) fail the length.
 */
export function presentsApiKey(req: IncomingMessage): boolean {
  const header = req.headers.authorization;
  // A key ends with `_` and 38 base62 characters: all but one session token in 64 fail here, before the header is
  // parsed or the prefix looked up (this runs on every Gatehouse route).
  if (!header || header.length < UNDERSCORE_FROM_END || header.charCodeAt(header.length - UNDERSCORE_FROM_END) !== 95) {
    return false;
  }
  const token = readBearerToken(header);
  return token !== null && isApiKeyShaped(token, apiKeyPrefix());
}

/**
 * The configured prefix. The API's pages (`accountApiDocs()`) may be served by a host that has no account service
 * set up; a bearer on them is then judged by the options as given, or the default prefix.
 */
function apiKeyPrefix(): string {
  try {
    return resolveAccountService().apiKeys.prefix;
  } catch {
    const options = Container.has(ACCOUNT_OPTIONS) ? Container.get(ACCOUNT_OPTIONS) : undefined;
    return options?.apiKeyPrefix ?? DEFAULT_API_KEY_PREFIX;
  }
}

/**
 * Route middleware refusing API keys: 403 `api_key_not_allowed` for any key-shaped bearer, before anything is read.
 * Gatehouse's own controllers all carry it (`@UseBefore(refuseApiKeys)` on the class; an architecture test holds
 * them to it), and the hosted pages check the same: a leaked key cannot change the password or the address, mint
 * keys or administer. A host may put it on its own routes that take sessions only (or use `@Authorized('session')`).
 *
 * @example
 * @JsonController('/account')
 * @UseBefore(refuseApiKeys)
 * export class AccountSettingsController { ... }
 */
export const refuseApiKeys: RouteMiddleware = routeMiddleware(({ req }) => {
  if (presentsApiKey(req)) throw apiKeyNotAllowed();
});
