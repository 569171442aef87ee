import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import { answerDriverMixup } from '../http/driver-mixup';
import { ConfigurationError } from '../errors/configuration-error';
import type { KoaMiddleware } from './koa-types';

/**
 * Wraps a Koa middleware of the `gatehouse` entry so that, if Express calls it (`fn(req, res, next)`, Node's request
 * first), it answers a JSON 500 and logs which entry to use instead of failing on `ctx`.
 */
export function refuseOtherDriver(name: string, middleware: Middleware): KoaMiddleware {
  const guarded = (first: unknown, second: unknown) => {
    if (first instanceof IncomingMessage) {
      answerDriverMixup(
        first,
        second as ServerResponse,
        `Gatehouse: ${name} from 'gatehouse' is Koa middleware, and Express called it; import it from 'gatehouse/express'`,
      );
      return Promise.resolve();
    }
    return middleware(first as never, second as never);
  };
  return guarded as KoaMiddleware;
}

/** Koa's application, recognised without loading Koa: its middleware list and its `callback()`. */
export function isKoaApp(app: unknown): boolean {
  const candidate = app as { middleware?: unknown; callback?: unknown; use?: unknown } | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    Array.isArray(candidate.middleware) &&
    typeof candidate.callback === 'function' &&
    typeof candidate.use === 'function'
  );
}

/** Fails the boot of a host that hands a Koa setup function something other than a Koa application. */
export function requireKoaApp(app: unknown, name: string): void {
  if (isKoaApp(app)) return;
  const express = typeof app === 'function' && typeof (app as { handle?: unknown }).handle === 'function';
  throw new ConfigurationError(
    express
      ? `Gatehouse: ${name} from 'gatehouse' mounts on Koa, and was given an Express app; import it from 'gatehouse/express'`
      : `Gatehouse: ${name} from 'gatehouse' needs a Koa application (new Koa())`,
  );
}
