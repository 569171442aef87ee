import type { IncomingMessage } from 'node:http';
import { resolveLogger } from '../di/resolve';
import { ConfigurationError } from '../errors/configuration-error';
import { GatehouseHttpError, internalError } from './http-errors';
import { pathOf } from './node-message';
import { toHttpError } from './to-http-error';

/**
 * The answer for an error thrown while handling a request: account errors with the code→status table, validation,
 * body-parser, routing and authentication errors in the shapes of the spec, and anything unexpected as a generic
 * 500 after logging it. Each driver's renderer writes it (`koa/error-middleware`, `express/gatehouse-errors`).
 */
export async function errorAnswer(error: unknown, req: IncomingMessage): Promise<GatehouseHttpError> {
  return (await toHttpError(error, req)) ?? logUnexpected(req, error);
}

/** The headers of an error answer, beside its JSON body. */
export function errorHeaders(error: GatehouseHttpError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.challenge) headers['WWW-Authenticate'] = 'Bearer';
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  return headers;
}

export function logUnexpected(req: IncomingMessage, error: unknown, note = 'unexpected error'): GatehouseHttpError {
  // The class, code and stack frames only: driver and library messages can quote the data that caused them. A
  // configuration error's message is ours and says what to fix, so it is kept.
  const { name, code, frames } = summarize(error);
  const message = error instanceof ConfigurationError ? { message: error.message } : {};
  resolveLogger(req).error(
    { method: req.method, path: pathOf(req), error: { name, code, ...message }, stack: frames },
    note,
  );
  return internalError();
}

function summarize(error: unknown): { name: string; code?: string; frames?: string } {
  if (!(error instanceof Error)) return { name: typeof error };
  const code = (error as { code?: unknown }).code;
  const frames = error.stack
    ?.split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
  return { name: error.name, ...(code !== undefined ? { code: String(code) } : {}), frames };
}
