import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorAnswer, errorHeaders } from '../http/error-answer';
import type { GatehouseHttpError } from '../http/http-errors';

/** Writes an answer with Node's own calls (Express's would add an ETag, and so differ from Koa's answers). */
export function send(
  req: IncomingMessage,
  res: ServerResponse,
  answer: { status: number; type: string; body: string; headers?: Record<string, string> },
): void {
  if (res.headersSent) return;
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.setHeader('Content-Type', answer.type);
  res.setHeader('Content-Length', Buffer.byteLength(answer.body));
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}

/** Writes the error as the answer: status, JSON body, the bearer challenge and `Retry-After` when they apply. */
export function sendError(req: IncomingMessage, res: ServerResponse, error: GatehouseHttpError): void {
  if (res.headersSent) {
    // Failed half-way through an answer: nothing more can be said to the client, but it must not wait.
    if (!res.writableEnded) res.end();
    return;
  }
  send(req, res, {
    status: error.httpCode,
    type: 'application/json; charset=utf-8',
    body: JSON.stringify(error.toJSON()),
    headers: errorHeaders(error),
  });
}

/** Answers a thrown error as `errorAnswer` says (an unexpected one is logged and is a generic 500). */
export function answerError(req: IncomingMessage, res: ServerResponse, error: unknown): Promise<void> {
  return errorAnswer(error, req).then(
    (answer) => sendError(req, res, answer),
    // errorAnswer itself failing (the logger throwing, say) must still answer.
    () => sendError(req, res, { httpCode: 500, toJSON: () => internalBody, challenge: false } as GatehouseHttpError),
  );
}

const internalBody = { detail: { detail: 'Internal server error', code: 'internal_error' } };
