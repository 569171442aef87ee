import type { IncomingMessage } from 'node:http';
import { tokenInQueryError } from './http-errors';
import { queryOf } from './node-message';

/**
 * RFC 6750 (section 2.3) lets clients put the bearer token in an `access_token` query parameter; Gatehouse never
 * accepts it (ASVS 3.1.1): URLs end up in access logs, browser history and Referer headers. A request that tries is
 * refused outright with a message that says where the token goes, rather than quietly treated as unauthenticated.
 */
export function refuseTokenInQuery(req: IncomingMessage): void {
  const query = queryOf(req);
  if (query && carriesAccessToken(query)) throw tokenInQueryError();
}

function carriesAccessToken(query: string): boolean {
  try {
    for (const name of new URLSearchParams(query).keys()) if (name.trim().toLowerCase() === 'access_token') return true;
  } catch {
    // An undecodable query is not ours to judge here; the route decides what to do with it.
  }
  return false;
}
