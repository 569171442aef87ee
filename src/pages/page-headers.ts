import type { Context } from 'koa';

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

/** Answers `ctx` with a page: HTML, the pages' CSP, and a window no other site can hold a reference to. */
export function sendPage(ctx: Context, markup: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.body = markup;
}

/** Answers `ctx` with one of the pages' own assets; assets need no CSP of their own beyond the default one. */
export function sendAsset(ctx: Context, type: string, content: string): void {
  ctx.status = 200;
  ctx.type = type;
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.body = content;
}
