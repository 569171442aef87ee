import { Container } from 'typedi';
import { ACCOUNT_OPTIONS, CLOCK } from '../../di/tokens';
import { AccountError } from '../../errors/account-error';
import { loginAnswer, type LoginAnswer } from '../../http/second-factor-answer';
import { systemClock } from '../../services/clock';
import type { IdentityView } from '../../services/oidc/identity-view';
import type { OidcExchangeResult, OidcStart } from '../../services/oidc/oidc-sign-in';

/** The flow cookie: it binds a started flow to the browser that started it (only its hash is stored). */
export const FLOW_COOKIE = 'gatehouse_oidc';

/** One linked identity in the API: snake_case, instants as ISO strings; never the issuer's subject. */
export interface IdentityAnswer {
  id: string;
  provider: string;
  provider_name: string;
  email: string | null;
  linked_at: string;
  last_used_at: string | null;
  configured: boolean;
}

export function identityAnswer(view: IdentityView): IdentityAnswer {
  return {
    id: view.id,
    provider: view.provider,
    provider_name: view.providerName,
    email: view.email,
    linked_at: view.linkedAt,
    last_used_at: view.lastUsedAt,
    configured: view.configured,
  };
}

/** `GET /oidc/identities`. */
export function identityListAnswer(views: readonly IdentityView[]): { identities: IdentityAnswer[] } {
  return { identities: views.map(identityAnswer) };
}

/** `POST /oidc/exchange`: the very answer of `POST /login`, or the identity a link flow linked. */
export function exchangeAnswer(result: OidcExchangeResult): LoginAnswer | { linked: IdentityAnswer } {
  if (result.kind === 'linked') return { linked: identityAnswer(result.identity) };
  return loginAnswer(result);
}

/**
 * The `Set-Cookie` of a started flow. HttpOnly: no script reads it. SameSite=Lax: the provider's redirect back is a
 * top-level GET, which Lax lets it join, while no other site's subrequest carries it. Scoped to the provider's
 * callback path, so no other route ever sees it; Secure when the callback is https; it lives as long as the flow.
 */
export function flowCookie(start: OidcStart): string {
  const now = (Container.has(CLOCK) ? Container.get(CLOCK) : systemClock).now();
  const maxAge = Math.max(1, Math.ceil((start.expiresAt.getTime() - now.getTime()) / 1000));
  return cookie(start.browserSecret, start.cookiePath, maxAge, start.secure);
}

/** The `Set-Cookie` that removes the flow cookie (same name and path, `Max-Age=0`). */
export function clearedFlowCookie(cookiePath: string, secure: boolean): string {
  return cookie('', cookiePath, 0, secure);
}

/** The flow cookie's value in a `Cookie` header: the first one of that name; undefined when none or empty. */
export function flowCookieOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals === -1 || pair.slice(0, equals).trim() !== FLOW_COOKIE) continue;
    const value = pair.slice(equals + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

function cookie(value: string, path: string, maxAge: number, secure: boolean): string {
  return `${FLOW_COOKIE}=${value}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * What the callback's flow cookie is scoped to, and the full callback URL as the provider was told to call it: the
 * deployer's `callbackBase`, the route's path and the query exactly as received. Never built from `Host` or
 * `X-Forwarded-*`, which the client writes: the URL openid-client checks must be the registered one.
 */
export function callbackOf(provider: string, rawQuery: string): { url: URL; cookiePath: string; secure: boolean } {
  const options = Container.has(ACCOUNT_OPTIONS) ? Container.get(ACCOUNT_OPTIONS) : undefined;
  const base = options?.oidc?.callbackBase;
  if (typeof base !== 'string') throw new AccountError('unknown_provider', 'No such sign-in provider');
  // As the core normalises it (services/oidc/oidc-options.ts): the URL parser's form, without a trailing slash.
  const root = new URL(base);
  const callback = new URL(`${root.href.replace(/\/+$/, '')}/oidc/${provider}/callback`);
  if (rawQuery !== '') callback.search = `?${rawQuery}`;
  return { url: callback, cookiePath: callback.pathname, secure: callback.protocol === 'https:' };
}
