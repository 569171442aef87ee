import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Action } from 'routing-controllers';

/** The request and the response as Node made them; both routing-controllers drivers expose them. */
export interface NodeMessages {
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * Node's request and response of a routing-controllers action, whichever driver runs it: Express hands the
 * `IncomingMessage` itself as `action.request`, Koa its own request object, whose `req` is Node's.
 */
export function nodeMessagesOf(action: Action): NodeMessages {
  const request: unknown = action.request;
  if (request instanceof IncomingMessage) return { req: request, res: action.response as ServerResponse };
  const context = action.context as Partial<NodeMessages> | undefined;
  const req = context?.req ?? (request as Partial<NodeMessages> | undefined)?.req;
  const res = context?.res ?? (action.response as Partial<NodeMessages> | undefined)?.res;
  if (!req || !res) throw new TypeError('Gatehouse: this routing-controllers action has no Node request');
  return { req, res };
}

/** The path of a request, without its query string. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The query string of a request, without the `?`; empty when there is none. */
export function queryOf(req: IncomingMessage): string {
  const url = req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? '' : url.slice(query + 1);
}
