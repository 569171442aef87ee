import type { PageAnswer } from './page-answer';

/**
 * The pages' Content-Security-Policy: only Gatehouse's own script and stylesheet, requests to the same origin, forms
 * posting nowhere else, and no framing. Trusted Types leave the script no way to turn a string into markup, so
 * text from the API can only ever be shown as text. Everything else `gatehouseHttp()` sets (`no-store`, `nosniff`,
 * `Referrer-Policy: no-referrer`) stays as it is: the email link's token must not leave in a Referer.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** A page: HTML, the pages' CSP, and a window no other site can hold a reference to. */
export function pageAnswer(markup: string, status = 200): PageAnswer {
  return {
    status,
    type: 'text/html; charset=utf-8',
    body: markup,
    headers: { 'Content-Security-Policy': PAGE_CSP, 'Cross-Origin-Opener-Policy': 'same-origin' },
  };
}

/** One of the pages' own assets; assets need no CSP of their own beyond the default one. */
export function assetAnswer(type: string, content: string): PageAnswer {
  return { status: 200, type, body: content, headers: { 'Cross-Origin-Resource-Policy': 'same-origin' } };
}
