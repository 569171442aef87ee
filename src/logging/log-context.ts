import type { IncomingMessage } from 'node:http';

/** What every log line written while handling a request carries, whoever writes it. */
export interface LogContext {
  requestId: string;
  /** The client's address as the rate limiter sees it (trusted-proxy aware). */
  ip?: string;
}

// Kept on Node's request, which both drivers share, under a symbol no other module holds: nothing a host keeps on the
// request or in Koa's ctx.state can collide with it, and it is gone with the request. A symbol, not a WeakMap: a
// WeakMap entry per request costs the garbage collector more than the property does. The context is handed on
// explicitly from here (`accountsFor(req)`, `resolveLogger(req)`): AsyncLocalStorage carried it before, at the price
// of a hook on every promise of the process on Node 20 (see `AccountService.forRequest`).
const CONTEXT = Symbol('gatehouse.logContext');

type WithContext = IncomingMessage & { [CONTEXT]?: LogContext };

/** Remembers the context of a request for as long as the request lives; `beginRequest` calls it. */
export function setLogContext(req: IncomingMessage, context: LogContext): void {
  (req as WithContext)[CONTEXT] = context;
}

/** The context `gatehouseHttp()` gave the request, or undefined for a request it did not handle. */
export function logContextOf(req: IncomingMessage): LogContext | undefined {
  return (req as WithContext)[CONTEXT];
}
