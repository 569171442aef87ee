import type { IncomingMessage } from 'node:http';
import { type Logger, withRequest } from '../services/logger';
import { logContextOf } from './log-context';

/** `base` with the request's id and IP added to every line, when `gatehouseHttp()` gave the request a context. */
export function withLogContext(base: Logger, req: IncomingMessage | undefined): Logger {
  const context = req && logContextOf(req);
  return context ? withRequest(base, context) : base;
}
