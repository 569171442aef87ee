import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while handling a request carries, whoever writes it. */
export interface LogContext {
  requestId: string;
  /** The client's address as the rate limiter sees it (trusted-proxy aware). */
  ip?: string;
}

// AsyncLocalStorage follows the request through every await, including the work the core finishes after answering
// (mail), so the core logs with request id and IP without knowing that requests exist.
const storage = new AsyncLocalStorage<LogContext>();

export function runWithLogContext<T>(context: LogContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}

/**
 * Runs `fn` outside any request's context: for work that serves no one request (the email delivery worker, which a
 * request only nudges), so that its lines do not carry the id of whichever request happened to start it.
 */
export function runOutsideLogContext<T>(fn: () => T): T {
  return storage.exit(fn);
}
