import type { IncomingMessage } from 'node:http';

/** What every log line written while handling a request carries, whoever writes it. */
export interface LogContext {
  requestId: string;
  /** The client's address as the rate limiter sees it (trusted-proxy aware). */
  ip?: string;
}

// Keyed by Node's request, which both drivers share, and gone with it. The context is handed on explicitly from
// here (`accountsFor(req)`, `resolveLogger(req)`): AsyncLocalStorage carried it before, at the price of a hook on
// every promise of the process on Node 20 (see `AccountService.forRequest`).
const contexts = new WeakMap<IncomingMessage, LogContext>();

/** Remembers the context of a request for as long as the request lives; `beginRequest` calls it. */
export function setLogContext(req: IncomingMessage, context: LogContext): void {
  contexts.set(req, context);
}

/** The context `gatehouseHttp()` gave the request, or undefined for a request it did not handle. */
export function logContextOf(req: IncomingMessage): LogContext | undefined {
  return contexts.get(req);
}
