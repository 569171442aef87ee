import { IncomingMessage, type ServerResponse } from 'node:http';

/** What a route check sees of the request: Node's messages and the body as parsed by `gatehouseHttp()`. */
export interface RouteExchange {
  req: IncomingMessage;
  res: ServerResponse;
  body: unknown;
}

/** A check that runs before an action; it refuses the request by throwing. */
export type RouteCheck = (exchange: RouteExchange) => void | Promise<void>;

/** A function routing-controllers can call as route middleware (`@UseBefore`), whichever its driver. */
export type RouteMiddleware = (...args: never[]) => unknown;

type Next = (error?: unknown) => unknown;

/**
 * Turns a check into a `@UseBefore` middleware that works on both of routing-controllers' drivers, so that
 * controllers need not know which one the host runs. The two call it differently, and these few lines are all
 * that knows it: Express calls `fn(req, res, next)` with Node's request itself (an `IncomingMessage`) and takes a
 * failure as `next(error)`; Koa calls `fn(ctx, next)` and takes a failure as a rejection.
 */
export function routeMiddleware(check: RouteCheck): RouteMiddleware {
  const middleware = (first: unknown, second: unknown, third?: unknown): unknown => {
    if (first instanceof IncomingMessage) return onExpress(check, first, second as ServerResponse, third as Next);
    const ctx = first as { req: IncomingMessage; res: ServerResponse; request?: { body?: unknown } };
    const checked = check({ req: ctx.req, res: ctx.res, body: ctx.request?.body });
    // A synchronous check (most are) goes straight on: this runs before every action of its controllers. What it
    // throws, koa-compose turns into a rejection, as it does for any middleware.
    return checked ? checked.then(() => (second as Next)()) : (second as Next)();
  };
  return middleware as RouteMiddleware;
}

async function onExpress(check: RouteCheck, req: IncomingMessage, res: ServerResponse, next: Next): Promise<unknown> {
  try {
    await check({ req, res, body: (req as { body?: unknown }).body });
  } catch (error) {
    return next(error);
  }
  return next();
}
