import type { Middleware } from 'koa';
import { readJsonBody, type JsonBodyOptions } from '../http/json-body';

/**
 * Strict JSON body parsing (see `readJsonBody`) into `ctx.request.body`, which it always leaves defined, so that
 * the koa-bodyparser routing-controllers' Koa driver installs later stands aside.
 */
export function jsonBody(options: Pick<JsonBodyOptions, 'limit'> = {}): Middleware {
  return async (ctx, next) => {
    const request = ctx.request as typeof ctx.request & { body?: unknown };
    request.body = await readJsonBody(ctx.req, { limit: options.limit, parsed: request.body });
    await next();
  };
}
