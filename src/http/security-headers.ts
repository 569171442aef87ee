import type { ServerResponse } from 'node:http';

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

// Listed once: every answer sets them.
const ENTRIES = Object.entries(SECURITY_HEADERS);

/** Sets `SECURITY_HEADERS` on the answer; set before anything can fail, so that error answers carry them too. */
export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of ENTRIES) res.setHeader(name, value);
}
