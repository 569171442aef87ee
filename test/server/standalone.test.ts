import { expect } from 'chai';
import { PASSWORD } from '../support/fixtures';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { parseMail, startSmtpServer } from '../email/smtp-test-server';
import { StandaloneServer } from './standalone-server';

describe('standalone server (npm start)', function () {
  this.timeout(60_000);
  let cwd: string;
  let server: StandaloneServer | undefined;

  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-server-'));
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
    rmSync(cwd, { recursive: true, force: true });
  });

  async function signUp(url: string, username: string): Promise<string> {
    await request(url)
      .post('/auth/register')
      .send({ username, email: `${username}@example.com`, password: PASSWORD })
      .expect(201);
    await server!.waitFor(() => server!.stdout.includes(`To: ${username}@example.com`), 'the verification email');
    await request(url)
      .post('/auth/verify-email')
      .send({ token: server!.lastLinkToken('verify-email') })
      .expect(200);
    const login = await request(url).post('/auth/login').send({ username, password: PASSWORD }).expect(200);
    return login.body.access_token;
  }

  it("runs the standalone guide's walk-through (docs/guides/standalone-server.md) with the console email, and keeps data and sessions across a restart", async () => {
    server = await StandaloneServer.start(cwd, {});
    expect(server.stderr).to.include('generated a development key');
    const token = await signUp(server.url, 'alice');
    expect(server.stdout).to.include(`${server.url}/auth/verify-email?token=`);
    await request(server.url)
      .get('/auth/me')
      .set('Authorization', `Bearer ${token}`)
      .expect(200, { username: 'alice', email: 'alice@example.com', verified: true });

    expect(await server.stop('SIGTERM')).to.equal(0);
    expect(server.stderr).to.include('"event":"shutdown"');
    server = await StandaloneServer.start(cwd, {});
    await request(server.url).get('/auth/me').set('Authorization', `Bearer ${token}`).expect(200);
    await request(server.url).post('/auth/login').send({ username: 'alice', password: PASSWORD }).expect(200);
  });

  it('rejects every old session after the secret key changes', async () => {
    const first = 'first-secret-key-with-enough-bytes-0123456789';
    server = await StandaloneServer.start(cwd, { GATEHOUSE_SECRET_KEY: first });
    const token = await signUp(server.url, 'bob');
    await server.stop();

    server = await StandaloneServer.start(cwd, { GATEHOUSE_SECRET_KEY: 'second-secret-key-with-enough-bytes-987654' });
    const answer = await request(server.url).get('/auth/me').set('Authorization', `Bearer ${token}`).expect(401);
    expect(answer.headers['www-authenticate']).to.equal('Bearer');
    expect(answer.body).to.deep.equal({
      detail: { detail: 'Invalid or expired session token', code: 'invalid_session_token' },
    });
    // The account itself is untouched: the password still logs in.
    await request(server.url).post('/auth/login').send({ username: 'bob', password: PASSWORD }).expect(200);
  });

  it('serves under GATEHOUSE_PREFIX and builds links from GATEHOUSE_PUBLIC_URL, never from the Host header', async () => {
    server = await StandaloneServer.start(cwd, {
      GATEHOUSE_PREFIX: '/accounts',
      GATEHOUSE_PUBLIC_URL: 'https://id.example.com',
    });
    await request(server.url)
      .post('/accounts/register')
      .set('Host', 'evil.example.net')
      .set('X-Forwarded-Host', 'evil.example.net')
      .send({ username: 'carol', email: 'carol@example.com', password: PASSWORD })
      .expect(201);
    await server.waitFor(() => server!.stdout.includes('To: carol@example.com'), 'the verification email');
    expect(server.stdout).to.match(/https:\/\/id\.example\.com\/accounts\/verify-email\?token=[A-Za-z0-9_-]{43}/);
    expect(server.stdout).to.not.include('evil.example.net');
    await request(server.url).post('/auth/register').send({}).expect(404);
  });

  it('sends real mail through GATEHOUSE_SMTP_URL, and a dead SMTP server does not change the answers', async () => {
    const smtp = await startSmtpServer();
    try {
      server = await StandaloneServer.start(cwd, {
        GATEHOUSE_SMTP_URL: smtp.url,
        GATEHOUSE_EMAIL_FROM: 'Accounts <accounts@example.com>',
        GATEHOUSE_PUBLIC_URL: 'https://id.example.com',
      });
      expect(server.stderr).to.match(/"event":"listening".*"mailer":"smtp"/);
      await request(server.url)
        .post('/auth/register')
        .send({ username: 'dave', email: 'dave@example.com', password: PASSWORD })
        .expect(201);
      await server.waitFor(() => smtp.received.length === 1, 'the SMTP server to receive the verification email');
      const mail = await parseMail(smtp.received[0]);
      expect(smtp.received[0].rcptTo).to.deep.equal(['dave@example.com']);
      expect(mail.from?.value).to.deep.equal([{ address: 'accounts@example.com', name: 'Accounts' }]);
      const token = /https:\/\/id\.example\.com\/auth\/verify-email\?token=([A-Za-z0-9_-]{43})/.exec(
        mail.text ?? '',
      )?.[1];
      expect(token, 'the verification link').to.be.a('string');
      await request(server.url).post('/auth/verify-email').send({ token }).expect(200);
      expect(server.stdout).to.not.include(token!);
    } finally {
      await smtp.close();
    }
    // SMTP is gone now: the request still succeeds, and the failure is logged, to be retried, without the address.
    const before = await request(server.url).post('/auth/password-reset/request').send({ email: 'dave@example.com' });
    const unknown = await request(server.url).post('/auth/password-reset/request').send({ email: 'erin@example.com' });
    expect(before.status).to.equal(200);
    expect(before.body).to.deep.equal(unknown.body);
    await server.waitFor(
      () => /"kind":"passwordReset"[^\n]*"outcome":"retry"/.test(server!.stderr),
      'the delivery failure to be logged',
    );
    expect(server.stderr).to.not.include('dave@example.com');
  });

  for (const [env, message] of [
    [{ GATEHOUSE_SECRET_KEY: 'short' }, 'GATEHOUSE_SECRET_KEY is 5 bytes'],
    [{ GATEHOUSE_DATABASE_URL: 'mongodb://localhost/x' }, 'unknown scheme "mongodb:"'],
    [{ NODE_ENV: 'production' }, 'GATEHOUSE_SECRET_KEY is required when NODE_ENV=production'],
  ] as const) {
    it(`stops at start with one line when ${Object.keys(env)[0]}=${Object.values(env)[0]}`, async () => {
      const { code, stderr } = await StandaloneServer.run(cwd, { ...env });
      expect(code).to.equal(1);
      expect(stderr.trim().split('\n')).to.have.length(1);
      expect(stderr).to.include(message);
    });
  }
});
