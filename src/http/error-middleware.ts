import type { Context, Middleware } from 'koa';
import { resolveLogger } from '../di/resolve';
import { recordedAuthError } from './request-auth';
import { ConfigurationError } from '../errors/configuration-error';
import { GatehouseHttpError, httpErrorForStatus, internalError } from './http-errors';
import { toHttpError } from './to-http-error';

/**
 * Renders every failure below it as JSON: account errors with the code→status table, validation, body-parser,
 * routing (404, 405 with its `Allow` header) and authentication errors in the shapes of the spec, and anything
 * unexpected as a generic 500 after logging it. Part of `gatehouseHttp()`; exported for hosts that compose
 * their own stack.
 */
export function errorMiddleware(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const answer = (await toHttpError(error, ctx)) ?? logUnexpected(ctx, error);
      renderError(ctx, answer);
      return;
    }
    // Successful answers (nearly all of them) skip the asynchronous check below: it only ever finds errors.
    if (ctx.status < 400) return;
    const unrendered = await unrenderedError(ctx);
    if (unrendered) renderError(ctx, unrendered);
  };
}

/** Writes the error as the answer: status, JSON body, and the bearer challenge when it is an authentication error. */
export function renderError(ctx: Context, error: GatehouseHttpError): void {
  if (ctx.headerSent) return;
  ctx.status = error.httpCode;
  ctx.body = error.toJSON();
  // A handler may have set another type before it failed; the error body is JSON whatever it was.
  ctx.type = 'application/json';
  if (error.challenge) ctx.set('WWW-Authenticate', 'Bearer');
  if (error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
}

/**
 * Answers that ended without an exception but are not ours yet: an unmatched route (404) or method (405), and a
 * 401 that routing-controllers' default error handler rendered for a required `@CurrentUser()` in a host
 * controller, which lacks our body and challenge.
 */
async function unrenderedError(ctx: Context): Promise<GatehouseHttpError | null> {
  if (ctx.status === 401 && !ctx.response.get('WWW-Authenticate')) {
    const authError = await recordedAuthError(ctx);
    if (authError) return authError;
  }
  if (ctx.status >= 400 && ctx.body == null) return httpErrorForStatus(ctx.status);
  return null;
}

function logUnexpected(ctx: Context, error: unknown): GatehouseHttpError {
  // The class, code and stack frames only: driver and library messages can quote the data that caused them. A
  // configuration error's message is ours and says what to fix, so it is kept.
  const { name, code, frames } = summarize(error);
  const message = error instanceof ConfigurationError ? { message: error.message } : {};
  resolveLogger().error(
    { method: ctx.method, path: ctx.path, error: { name, code, ...message }, stack: frames },
    'unexpected error',
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
