import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type Koa from 'koa';
import { httpErrorForStatus } from '../errors/http-errors';
import { REQUEST_ID_HEADER } from '../http/request-context';
import { SECURITY_HEADERS } from '../http/security-headers';

/** A whole request (headers and the at most 16 KiB body) must arrive within this, or the connection is answered 408. */
export const REQUEST_TIMEOUT_MS = 15_000;
export const HEADERS_TIMEOUT_MS = 10_000;

/**
 * The Node HTTP server of the standalone app. Two things Koa never sees are handled here: slow or stalled clients
 * (a request that trickles in is cut off instead of holding a connection for minutes), and requests Node's parser
 * refuses before any middleware runs (oversized headers, malformed request lines), which get the same JSON error
 * shape and security headers as every other answer.
 */
export function createHttpServer(
  app: Koa,
  timeouts: { requestTimeoutMs?: number; headersTimeoutMs?: number } = {},
): Server {
  const server = createServer(
    {
      requestTimeout: timeouts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      headersTimeout: timeouts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
      // How often Node looks for timed-out requests; its default (30 s) would let them run far past the limit.
      connectionsCheckingInterval: 1_000,
    },
    app.callback(),
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket));
  return server;
}

/** Node's parser errors by code; anything else it refuses is a malformed request. */
const CLIENT_ERROR_STATUS: Record<string, number> = { HPE_HEADER_OVERFLOW: 431, ERR_HTTP_REQUEST_TIMEOUT: 408 };

function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset or an already-answered socket: nothing can be written, only released.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = CLIENT_ERROR_STATUS[error.code ?? ''] ?? 400;
  const body = JSON.stringify(httpErrorForStatus(status).toJSON());
  const headers = {
    ...SECURITY_HEADERS,
    [REQUEST_ID_HEADER]: randomUUID(),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n\r\n${body}`);
}
