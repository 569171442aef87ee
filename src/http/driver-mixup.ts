import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigurationError } from '../errors/configuration-error';
import { logUnexpected } from './error-answer';

/**
 * Answers a request that reached middleware written for the other driver (a Koa `gatehouseHttp()` given to
 * `express().use()`, say): a JSON 500 and one log line that says which entry to import, rather than a TypeError at
 * the first property the middleware reads, an HTML stack trace, or a request left hanging.
 */
export function answerDriverMixup(req: IncomingMessage, res: ServerResponse, message: string): void {
  logUnexpected(req, new ConfigurationError(message), 'Gatehouse middleware installed on the wrong driver');
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ detail: { detail: 'Internal server error', code: 'internal_error' } });
  res.statusCode = 500;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
