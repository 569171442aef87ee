import { expect } from 'chai';
import Koa from 'koa';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { accountApiDocument } from '../../src/app/account-api-document';
import { SECURITY_HEADERS } from '../../src/http/security-headers';
import { createApp } from '../../src/server/create-app';
import { createHttpServer } from '../../src/server/http-server';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { CHEAP_HASHING } from '../support/fixtures';
import { RecordingEmailSender } from '../support/recording-email-sender';

/** Writes raw bytes to the server and resolves with everything it answers before closing. */
function rawExchange(server: Server, bytes: string): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function parse(answer: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head, body] = answer.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

const CONNECT = 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n';

describe('the standalone HTTP server: requests Koa never sees', () => {
  let server: Server;
  beforeEach(async () => {
    const app = new Koa();
    app.silent = true; // the timed-out request's aborted body is expected here
    app.use(async (ctx) => {
      // Reads the whole body first, as the JSON body parser does.
      for await (const chunk of ctx.req) void chunk;
      ctx.body = { ok: true };
    });
    server = createHttpServer(app, { requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function expectJson(answer: string, status: number, code: string) {
    const parsed = parse(answer);
    expect(parsed.status).to.equal(status);
    expect(parsed.headers['content-type']).to.match(/^application\/json/);
    expect(parsed.body).to.have.nested.property('detail.code', code);
    for (const [name, value] of Object.entries(SECURITY_HEADERS))
      expect(parsed.headers[name.toLowerCase()], name).to.equal(value);
    expect(parsed.headers['x-request-id'], 'X-Request-Id').to.match(/^[0-9a-f-]{36}$/);
  }

  it('answers a stalled body with 408 JSON instead of waiting for it (slowloris)', async () => {
    const started = Date.now();
    const answer = await rawExchange(
      server,
      'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    );
    expectJson(answer, 408, 'request_timeout');
    expect(Date.now() - started).to.be.below(5_000);
  });

  it('answers oversized headers with 431 JSON', async () => {
    const answer = await rawExchange(
      server,
      `GET /auth/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectJson(answer, 431, 'headers_too_large');
  });

  it('answers a malformed request with 400 JSON', async () => {
    expectJson(await rawExchange(server, 'NOT A REQUEST\r\n\r\n'), 400, 'bad_request');
    const smuggling = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n';
    expectJson(await rawExchange(server, smuggling), 400, 'bad_request');
  });

  it('answers an Expect other than 100-continue with 417 JSON, and still honours 100-continue', async () => {
    expectJson(
      await rawExchange(server, 'GET /auth/me HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n'),
      417,
      'expectation_failed',
    );
    const continued = await rawExchange(
      server,
      'POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expect(continued).to.match(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
  });

  it('answers CONNECT with 405 JSON instead of dropping the connection; an app with no router to read may serve any method', async () => {
    const answer = await rawExchange(server, CONNECT);
    expectJson(answer, 405, 'method_not_allowed');
    expect(parse(answer).headers.allow).to.equal('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
  });

  it('answers an HTTP/1.1 request without Host with 400 JSON (Node would answer it bare), and serves HTTP/1.0 without', async () => {
    const answer = await rawExchange(server, 'GET / HTTP/1.1\r\n\r\n');
    expectJson(answer, 400, 'bad_request');
    expect(parse(answer).body).to.have.nested.property('detail.detail', 'The Host header is required');
    expect(await rawExchange(server, 'GET / HTTP/1.0\r\n\r\n')).to.match(/^HTTP\/1\.1 200 OK/);
  });

  it('answers an HTTP/2 preface, an unknown version and an unknown method with 400 JSON', async () => {
    for (const request of [
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
      'GET / HTTP/9.9\r\nHost: x\r\n\r\n',
      'FOO / HTTP/1.1\r\nHost: x\r\n\r\n',
    ]) {
      expectJson(await rawExchange(server, request), 400, 'bad_request');
    }
  });

  it('treats an Upgrade request as an ordinary request: no protocol switch, no dropped connection', async () => {
    const answer = await rawExchange(
      server,
      'GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n\r\n',
    );
    expect(answer).to.match(/^HTTP\/1\.1 200 OK/);
  });

  it('still serves ordinary requests', async () => {
    const answer = await rawExchange(server, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).to.match(/^HTTP\/1\.1 200/);
    expect(answer).to.include('{"ok":true}');
  });
});

describe('the standalone HTTP server: CONNECT on the standalone app', () => {
  let server: Server;
  before(async () => {
    const app = createApp({
      store: new MemoryUserStore(),
      sender: new RecordingEmailSender(),
      options: { secretKey: 'connect-test-secret-0123456789abcdef-0123456789', hashing: CHEAP_HASHING },
      pages: true,
      apiDocs: true,
    });
    server = createHttpServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers 405 with an Allow read from the app's routes: every method the document lists (PUT of the admin routes, PATCH of the passkeys too), and no other", async () => {
    const allow = parse(await rawExchange(server, CONNECT)).headers.allow.split(', ');
    const document = accountApiDocument({ prefix: '/auth' }) as { paths: Record<string, Record<string, unknown>> };
    const listed = new Set(
      Object.values(document.paths).flatMap((item) =>
        Object.keys(item)
          .filter((key) => ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'].includes(key))
          .map((key) => key.toUpperCase()),
      ),
    );
    expect(listed).to.include('PUT');
    // As the document's description says: HEAD wherever GET, OPTIONS on every path.
    if (listed.has('GET')) listed.add('HEAD');
    listed.add('OPTIONS');
    expect([...allow].sort()).to.deep.equal([...listed].sort());
    expect(allow).to.deep.equal(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
  });
});
