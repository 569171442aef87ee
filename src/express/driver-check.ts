import { IncomingMessage, type ServerResponse } from 'node:http';
import { answerDriverMixup } from '../http/driver-mixup';
import { ConfigurationError } from '../errors/configuration-error';

/**
 * True when Express called the middleware (`fn(req, res, next)`, Node's request first). When Koa called it
 * (`fn(ctx, next)`), it answers a JSON 500, logs which entry to use, and returns false.
 */
export function calledByExpress(name: string, first: unknown): first is IncomingMessage {
  if (first instanceof IncomingMessage) return true;
  const ctx = first as { req?: unknown; res?: unknown } | null;
  if (ctx?.req instanceof IncomingMessage) {
    answerDriverMixup(
      ctx.req,
      ctx.res as ServerResponse,
      `Gatehouse: ${name} from 'gatehouse/express' is Express middleware, and Koa called it; import it from 'gatehouse'`,
    );
  }
  return false;
}

/** Express's application, recognised without loading Express: a function with `handle`, `set` and `use`. */
export function isExpressApp(app: unknown): boolean {
  const candidate = app as { handle?: unknown; set?: unknown; use?: unknown };
  return (
    typeof app === 'function' &&
    typeof candidate.handle === 'function' &&
    typeof candidate.set === 'function' &&
    typeof candidate.use === 'function'
  );
}

/** Fails the boot of a host that hands an Express setup function something other than an Express application. */
export function requireExpressApp(app: unknown, name: string): void {
  if (isExpressApp(app)) return;
  const koa = typeof app === 'object' && app !== null && Array.isArray((app as { middleware?: unknown }).middleware);
  throw new ConfigurationError(
    koa
      ? `Gatehouse: ${name} from 'gatehouse/express' mounts on Express, and was given a Koa app; import it from 'gatehouse'`
      : `Gatehouse: ${name} from 'gatehouse/express' needs an Express application (express())`,
  );
}
