import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { DEFAULT_BODY_LIMIT, PARSED_METHODS, readJsonBody, type JsonBodyOptions } from '../http/json-body';

/**
 * Strict JSON body parsing (see `readJsonBody`, whose checks and answers both drivers share) into
 * `ctx.request.body`, read by @koa/bodyparser. It always leaves the body defined, so that the koa-bodyparser
 * routing-controllers' Koa driver installs later stands aside.
 */
export function jsonBody(options: Pick<JsonBodyOptions, 'limit'> = {}): Middleware {
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  const parser = bodyParser({
    enableTypes: ['json'],
    jsonLimit: limit,
    jsonStrict: true,
    parsedMethods: PARSED_METHODS,
    encoding: 'utf-8',
  });
  return async (ctx, next) => {
    const request = ctx.request as typeof ctx.request & { body?: unknown };
    const parse = async () => {
      await parser(ctx, async () => {});
      return request.body;
    };
    request.body = await readJsonBody(ctx.req, { limit, parsed: request.body, parse });
    await next();
  };
}
