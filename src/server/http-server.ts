import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { httpErrorForStatus } from '../http/http-errors';
import { REQUEST_ID_HEADER } from '../http/request-context';
import { SECURITY_HEADERS } from '../http/security-headers';
import { servedMethods } from '../koa/served-methods';

/** A whole request (headers and the at most 16 KiB body) must arrive within this, or the connection is answered 408. */
export const REQUEST_TIMEOUT_MS = 15_000;
export const HEADERS_TIMEOUT_MS = 10_000;

/**
 * The Node HTTP server of the standalone app. Three things Koa never sees are handled here: slow or stalled clients
 * (a request that trickles in is cut off instead of holding a connection for minutes), requests Node's parser refuses
 * before any middleware runs (oversized headers, malformed request lines), and the answers Node would otherwise give
 * by itself, bare (417 to an `Expect` other than `100-continue`, a dropped connection for `CONNECT`). Each gets the
 * same JSON error shape, security headers and request id as every other answer.
 */
export function createHttpServer(
  app: Koa,
  timeouts: { requestTimeoutMs?: number; headersTimeoutMs?: number } = {},
): Server {
  const handle = app.callback();
  const server = createServer(
    {
      requestTimeout: timeouts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      headersTimeout: timeouts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
      // How often Node looks for timed-out requests; its default (30 s) would let them run far past the limit.
      connectionsCheckingInterval: 1_000,
      // Node's own refusal of an HTTP/1.1 request without Host is a bare 400; the same refusal is made below instead.
      requireHostHeader: false,
    },
    (request, response) => {
      // RFC 9112 section 3.2: an HTTP/1.1 request without Host is refused. (Nothing here reads Host: email links come
      // from the configuration.)
      if (request.headers.host === undefined && !(request.httpVersionMajor === 1 && request.httpVersionMinor === 0)) {
        answer(response, 400, 'The Host header is required');
        return;
      }
      void handle(request, response);
    },
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket));
  // Without a listener Node answers 417 itself, with an empty body and none of our headers.
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => answer(response, 417));
  // Without a listener Node closes a CONNECT request's connection without a word; this is no proxy. `Allow` names
  // what the app's routes serve, read from them when asked: a CONNECT names no path, so it is the whole app's.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) =>
    writeRaw(socket, 405, { Allow: servedMethods(app) }),
  );
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
  writeRaw(socket, CLIENT_ERROR_STATUS[error.code ?? ''] ?? 400);
}

/** The JSON error answer of `status`, as the error middleware renders it, with the headers every answer carries. */
function errorAnswer(status: number, extra: Record<string, string> = {}, message?: string) {
  const body = JSON.stringify(httpErrorForStatus(status, message).toJSON());
  const head = {
    ...SECURITY_HEADERS,
    [REQUEST_ID_HEADER]: randomUUID(),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...extra,
  };
  return { head, body };
}

/** Answers before Koa sees the request, and closes the connection (a body may still be on its way). */
function answer(response: ServerResponse, status: number, message?: string): void {
  const { head, body } = errorAnswer(status, {}, message);
  response.shouldKeepAlive = false;
  response.writeHead(status, head);
  response.end(body);
}

/** Writes the answer on a socket no `ServerResponse` owns (the parser refused the request, or it was CONNECT). */
function writeRaw(socket: Duplex, status: number, extra: Record<string, string> = {}): void {
  const { head, body } = errorAnswer(status, extra);
  const lines = Object.entries(head)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines}\r\n\r\n${body}`);
}
