import { expect } from 'chai';
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import type { Response } from 'supertest';
import { Container } from 'typedi';
import { RATE_LIMITS } from '../../src/di/tokens';
import { EmailLinks } from '../../src/email/email-links';
import { SmtpEmailSender } from '../../src/email/smtp-email-sender';
import { parseMail, rawHeaderLines, startSmtpServer } from '../email/smtp-test-server';
import { mountAdmin } from './fixtures/admin-controller';
import { expectError, observable } from './support/answers';
import { PUBLIC_URL } from './support/mailbox-sender';
import { bearer, openSecurityApp, PASSWORD, PREFIX, SecurityApp } from './support/security-app';
import { execute } from './support/sqlite-file';
import { DRIVERS } from '../support/test-app';

/** Every account route with a valid body, so that one field at a time can be made wrong. */
const ROUTES: { method: 'post' | 'get' | 'delete'; path: string; body: Record<string, string>; bearer: boolean }[] = [
  {
    method: 'post',
    path: '/register',
    body: { username: 'zed', email: 'zed@example.com', password: PASSWORD },
    bearer: false,
  },
  { method: 'post', path: '/verify-email', body: { token: 'A'.repeat(43) }, bearer: false },
  { method: 'post', path: '/resend-verification', body: { email: 'zed@example.com' }, bearer: false },
  { method: 'post', path: '/login', body: { username: 'zed', password: PASSWORD }, bearer: false },
  { method: 'post', path: '/logout', body: {}, bearer: true },
  { method: 'post', path: '/logout-all', body: {}, bearer: true },
  { method: 'get', path: '/me', body: {}, bearer: true },
  { method: 'post', path: '/password-reset/request', body: { email: 'zed@example.com' }, bearer: false },
  {
    method: 'post',
    path: '/password-reset/confirm',
    body: { token: 'A'.repeat(43), new_password: PASSWORD },
    bearer: false,
  },
  { method: 'post', path: '/password/change', body: { old_password: PASSWORD, new_password: PASSWORD }, bearer: true },
  { method: 'delete', path: '/account', body: { password: PASSWORD }, bearer: true },
];

/** Posts the bytes exactly as given (supertest would serialize a Buffer as JSON). */
function postBytes(
  t: SecurityApp,
  path: string,
  bytes: string | Buffer,
  headers: Record<string, string> = {},
): Promise<Response> {
  const call = t.http.post(`${PREFIX}${path}`).set({ 'Content-Type': 'application/json', ...headers });
  call.write(bytes);
  return call.then((response) => response);
}

describe('Security checklist: Input and headers', () => {
  let t: SecurityApp;
  beforeEach(async () => {
    t = await openSecurityApp({ mount: mountAdmin });
  });
  afterEach(() => t.close());

  const json = (path: string, bytes: string | Buffer, headers: Record<string, string> = {}) =>
    postBytes(t, path, bytes, headers);

  it('I1: bodies are limited to 16 KiB once decoded (413) and must be application/json in UTF-8 (415)', async () => {
    const body = (size: number) => JSON.stringify({ username: 'alice', password: 'x'.repeat(size) });
    expectError(await json('/login', body(17 * 1024)), 413, 'payload_too_large');
    expectError(await json('/login', body(15 * 1024)), 400, 'validation_error');
    const bomb = gzipSync(body(200 * 1024));
    expect(bomb.length).to.be.below(2048);
    expectError(await json('/login', bomb, { 'Content-Encoding': 'gzip' }), 413, 'payload_too_large');
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/json; charset=latin1',
    ]) {
      const answer = await t.http.post(`${PREFIX}/login`).set('Content-Type', type).send('username=alice&password=x');
      expectError(answer, 415, 'unsupported_media_type');
    }
  });

  it('I2: wrong types are 400 validation_error on every route, and random JSON bodies never get a 5xx', async () => {
    const session = await t.loginNewUser('alice');
    const send = (route: (typeof ROUTES)[number], text: string) => {
      const call = t.http[route.method](`${PREFIX}${route.path}`).set('Content-Type', 'application/json');
      return (route.bearer ? call.set(bearer(session)) : call).send(text);
    };
    for (const route of ROUTES) {
      for (const field of Object.keys(route.body)) {
        for (const wrong of [42, true, null, ['x'], { x: 'y' }]) {
          const answer = await send(route, JSON.stringify({ ...route.body, [field]: wrong }));
          expectError(answer, 400, 'validation_error');
          expect(answer.text, 'the submitted value is not echoed').not.to.include(PASSWORD);
        }
      }
    }
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.jsonValue({ maxDepth: 2 }), async (route, value) => {
        const answer = await send(route, JSON.stringify(value));
        expect(answer.status, `${route.path} ${JSON.stringify(value)}: ${answer.text}`).to.be.below(500);
      }),
      { numRuns: 300 },
    );
  });

  it('I3: emails are NFKC-normalized, have one @ and no CR/LF, commas, quotes or controls, fit 254 bytes, and are unique canonically', async () => {
    const local64 = 'a'.repeat(64);
    const domain = (last: number) => `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(last)}.com`;
    expect(Buffer.byteLength(`${local64}@${domain(57)}`)).to.equal(254);
    const invalid = [
      'alice@@example.com',
      'al@ice@example.com',
      'alice.example.com',
      'alice@example.com\r\nBcc: evil@example.net',
      'alice\n@example.com',
      'a,b@example.com',
      '"alice"@example.com',
      'ali ce@example.com',
      'alice\u0000@example.com',
      'alice\u0007@example.com',
      `${local64}@${domain(58)}`,
    ];
    for (const [i, email] of invalid.entries()) {
      expectError(await t.register(`user${i}`, email), 400, 'invalid_email');
    }
    expect((await t.register('longest', `${local64}@${domain(57)}`)).status).to.equal(201);

    expect((await t.register('alice', 'ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ')).status).to.equal(201);
    expect(execute(t.filename, "select email from users where username = 'alice'")).to.deep.equal([
      { email: 'alice@example.com' },
    ]);
    for (const [i, twin] of ['ALICE@EXAMPLE.COM', 'Alice@Example.com', 'ａｌｉｃｅ@example.com'].entries()) {
      expect((await t.register(`twin${i}`, twin)).status).to.equal(201);
    }
    // Every spelling is the one address: the twins are claims on it (unverified, and never sent to its owner's inbox).
    expect(execute(t.filename, "select count(*) as n from users where email_key = 'alice@example.com'")).to.deep.equal([
      { n: 4 },
    ]);

    t.sender.sent.length = 0;
    const plain = observable(
      await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'nobody@example.com' }),
    );
    for (const email of ['alice@example.com\r\nBcc: evil@example.net', 'alice@example.com,evil@example.net']) {
      expect(observable(await t.http.post(`${PREFIX}/password-reset/request`).send({ email }))).to.deep.equal(plain);
    }
    await t.drain();
    expect(t.sender.sent).to.deep.equal([]);
  });

  it('I4: user-controlled values are HTML-escaped in email and never reach a mail header', async () => {
    const smtp = await startSmtpServer();
    const links = new EmailLinks({ publicUrl: PUBLIC_URL, prefix: PREFIX });
    const sender = new SmtpEmailSender({ url: smtp.url, from: 'Gatehouse <no-reply@example.com>', links });
    const m = await openSecurityApp({ sender });
    try {
      const email = "o'brien&co+{x}@example.com";
      await m.register('obrien', email);
      const token = /token=([A-Za-z0-9_-]{43})/.exec((await parseMail(smtp.received[0])).text ?? '')![1];
      await m.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
      await m.drain();
      const verified = String((await parseMail(smtp.received[1])).html);
      expect(verified).to.include('o&#39;brien&amp;co+{x}@example.com is now verified');
      expect(verified).not.to.include("o'brien&co");
      for (const mail of smtp.received) {
        expect(mail.rcptTo).to.deep.equal([email]);
        const headers = rawHeaderLines(mail.raw);
        expect(headers.filter((line) => /^(bcc|cc|reply-to):/i.test(line))).to.deep.equal([]);
        expect(headers.filter((line) => line.includes('obrien') || line.includes('brien'))).to.deep.equal([
          `To: ${email}`,
        ]);
      }
      // The sender's own check, should anything upstream let a line break through.
      const injected = await sender
        .send({ kind: 'emailVerified', username: 'obrien', email: 'victim@example.com\r\nBcc: evil@example.net' })
        .then(
          () => 'sent',
          () => 'refused',
        );
      expect(injected).to.equal('refused');
    } finally {
      await m.close();
      await sender.close();
      await smtp.close();
    }
    expect(smtp.recipientsOffered).not.to.include('evil@example.net');
  });
});

for (const driver of DRIVERS)
  describe(`Security checklist: headers (${driver})`, () => {
    let t: SecurityApp;
    beforeEach(async () => {
      t = await openSecurityApp({ mount: mountAdmin, driver });
    });
    afterEach(() => t.close());
    const json = (path: string, bytes: string | Buffer) => postBytes(t, path, bytes);

    it('H1: every answer, errors included (404, 413, 429, 500...), is JSON with nosniff, no-store and no-referrer', async () => {
      const session = await t.loginNewUser('alice');
      await t.accounts().access.createRole('admin');
      Container.set(RATE_LIMITS, { limits: { 'reset-request.ip': { points: 1, duration: 60 } } });
      const answers: [number, Response][] = [
        [200, await t.http.get(`${PREFIX}/me`).set(bearer(session))],
        [
          201,
          await t.http
            .post(`${PREFIX}/register`)
            .send({ username: 'bob', email: 'bob@example.com', password: PASSWORD }),
        ],
        [204, await t.http.options(`${PREFIX}/login`)],
        [400, await json('/login', '{"username":')],
        [401, await t.http.get(`${PREFIX}/me`)],
        [403, await t.http.get('/host/admin/area').set(bearer(session))],
        [404, await t.http.get(`${PREFIX}/nowhere`)],
        [405, await t.http.get(`${PREFIX}/login`)],
        [413, await json('/login', JSON.stringify({ password: 'x'.repeat(17 * 1024) }))],
        [415, await t.http.post(`${PREFIX}/login`).set('Content-Type', 'text/plain').send('hello')],
        [200, await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'bob@example.com' })],
        [429, await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'bob@example.com' })],
        [500, await t.http.get('/host/admin/boom')],
        [503, await t.http.get('/host/admin/unavailable')],
      ];
      for (const [status, answer] of answers) {
        const what = `${status}: ${answer.status} ${answer.text}`;
        expect(answer.status, what).to.equal(status);
        expect(answer.headers['x-content-type-options'], what).to.equal('nosniff');
        expect(answer.headers['cache-control'], what).to.equal('no-store');
        expect(answer.headers['referrer-policy'], what).to.equal('no-referrer');
        expect(answer.headers['content-security-policy'], what).to.equal("default-src 'none'; frame-ancestors 'none'");
        expect(answer.headers['x-request-id'], what).to.match(/^[0-9a-f-]{36}$/);
        if (status === 204) continue;
        expect(answer.headers['content-type'], what).to.match(/^application\/json; charset=utf-8$/);
        expect(() => JSON.parse(answer.text), what).not.to.throw();
      }
    });
  });
