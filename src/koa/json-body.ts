import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware, Next } from 'koa';
import { carriesBody, DEFAULT_BODY_LIMIT, PARSED_METHODS, readJsonBody, type JsonBodyOptions } from '../http/json-body';

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
  const parsed = async (ctx: Context, next: Next) => {
    const request = ctx.request as BodyRequest;
    const parse = async () => {
      await parser(ctx, async () => {});
      return request.body;
    };
    request.body = await readJsonBody(ctx.req, { limit, parsed: request.body, parse });
    await next();
  };
  return (ctx, next) => {
    // Most requests (every GET) carry no body: they go on without an async frame or the parser's promises.
    if (carriesBody(ctx.req)) return parsed(ctx, next);
    (ctx.request as BodyRequest).body ??= {};
    return next();
  };
}

type BodyRequest = Context['request'] & { body?: unknown };
