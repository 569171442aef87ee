import type { Middleware } from 'koa';

/**
 * Sent with every answer, errors included: nothing is cached (answers carry tokens and personal data), nothing is
 * sniffed into another type, no URL leaks through Referer, and a JSON answer opened in a browser can neither load
 * anything nor be framed.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
});

/** Sets `SECURITY_HEADERS` before anything below runs; the error middleware keeps headers, so errors carry them. */
export function securityHeaders(): Middleware {
  return (ctx, next) => {
    ctx.set(SECURITY_HEADERS);
    return next();
  };
}
