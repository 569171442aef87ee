import type { Context, Middleware } from 'koa';
import { errorAnswer, errorHeaders } from '../http/error-answer';
import { GatehouseHttpError, httpErrorForStatus } from '../http/http-errors';
import { recordedAuthError } from '../http/request-auth';

/**
 * Renders every failure below it as JSON (see `errorAnswer`): account errors, validation, body-parser, routing
 * (404, 405 with its `Allow` header) and authentication errors in the shapes of the spec, and anything unexpected
 * as a generic 500 after logging it. Part of `gatehouseHttp()`; exported for hosts that compose their own stack.
 */
export function errorMiddleware(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      renderError(ctx, await errorAnswer(error, ctx.req));
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
  ctx.set(errorHeaders(error));
}

/**
 * Answers that ended without an exception but are not ours yet: an unmatched route (404) or method (405), and a
 * 401 that routing-controllers' default error handler rendered for a required `@CurrentUser()` in a host
 * controller, which lacks our body and challenge.
 */
async function unrenderedError(ctx: Context): Promise<GatehouseHttpError | null> {
  if (ctx.status === 401 && !ctx.response.get('WWW-Authenticate')) {
    const authError = await recordedAuthError(ctx.req);
    if (authError) return authError;
  }
  if (ctx.status >= 400 && ctx.body == null) return httpErrorForStatus(ctx.status);
  return null;
}
