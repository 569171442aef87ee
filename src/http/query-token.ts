import type { Middleware } from 'koa';
import { tokenInQueryError } from './http-errors';

/**
 * RFC 6750 (section 2.3) lets clients put the bearer token in an `access_token` query parameter; Gatehouse never
 * accepts it (ASVS 3.1.1): URLs end up in access logs, browser history and Referer headers. A request that tries is
 * refused outright with a message that says where the token goes, rather than quietly treated as unauthenticated.
 */
export function refuseTokensInQuery(): Middleware {
  return (ctx, next) => {
    if (ctx.querystring && carriesAccessToken(ctx.querystring)) {
      throw tokenInQueryError();
    }
    return next();
  };
}

function carriesAccessToken(query: string): boolean {
  try {
    for (const name of new URLSearchParams(query).keys()) if (name.trim().toLowerCase() === 'access_token') return true;
  } catch {
    // An undecodable query is not ours to judge here; the route decides what to do with it.
  }
  return false;
}
