import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LogContext, setLogContext } from '../logging/log-context';
import { clientIp } from './client-ip';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const REQUEST_ID_NAME = REQUEST_ID_HEADER.toLowerCase();

/**
 * Gives the request an id, sends it back as `X-Request-Id`, and keeps the log context (that id and the client's IP)
 * with the request (`logContextOf`), so every line logged for the request (the core's security events through
 * `accountsFor(req)`, an unexpected error, the lookups done after the answer) can be found from the id a user
 * reports. (Email delivery is not a request's work: its lines carry the message id instead.)
 *
 * The id is always ours: one taken from the client would let it forge or collide with another request's trail.
 */
export function beginRequest(req: IncomingMessage, res: ServerResponse): void {
  const requestId = randomUUID();
  // Lowercase for the reason in security-headers.ts.
  res.setHeader(REQUEST_ID_NAME, requestId);
  // Read now: Node keeps the peer's address once read, so a client that hangs up early is still logged by its address.
  void req.socket.remoteAddress;
  setLogContext(req, new RequestLogContext(requestId, req));
}

/**
 * The client's address is worked out when a line or an audit event first needs it (the trusted-proxy walk is not
 * free): a session check, most of the traffic, logs nothing.
 */
class RequestLogContext implements LogContext {
  private address: string | undefined;

  constructor(
    readonly requestId: string,
    private readonly req: IncomingMessage,
  ) {}

  get ip(): string {
    return (this.address ??= clientIp(this.req));
  }
}
