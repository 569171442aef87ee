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

/**
 * The security page's CSP: the pages' one, plus images from data: URLs and nowhere else, for the QR code of the
 * two-factor set-up. The code is an SVG our own server drew; as an image it runs no script and loads nothing.
 */
export const SECURITY_PAGE_CSP = `${PAGE_CSP}; img-src data:`;

/** A page: HTML, the pages' CSP (or the one given), and a window no other site can hold a reference to. */
export function pageAnswer(markup: string, status = 200, csp = PAGE_CSP): PageAnswer {
  return {
    status,
    type: 'text/html; charset=utf-8',
    body: markup,
    headers: { 'Content-Security-Policy': csp, 'Cross-Origin-Opener-Policy': 'same-origin' },
  };
}

/** One of the pages' own assets; assets need no CSP of their own beyond the default one. */
export function assetAnswer(type: string, content: string): PageAnswer {
  return { status: 200, type, body: content, headers: { 'Cross-Origin-Resource-Policy': 'same-origin' } };
}
