import { ConfigurationError } from '../../src/errors/configuration-error';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { loadConfig } from '../../src/server/config';
import { StandaloneServer } from '../server/standalone-server';

const KEY = 'k'.repeat(40);

describe('pages: configuration of the standalone server', () => {
  let cwd: string;
  let server: StandaloneServer | undefined;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-pages-'));
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
    rmSync(cwd, { recursive: true, force: true });
  });

  it('reads GATEHOUSE_PAGES, GATEHOUSE_API_DOCS and the link variables, on by default', () => {
    expect(loadConfig({ GATEHOUSE_SECRET_KEY: KEY }, { cwd })).to.deep.include({
      pages: true,
      apiDocs: true,
      verifyUrl: undefined,
      resetUrl: undefined,
      emailChangeUrl: undefined,
    });
    const config = loadConfig(
      {
        GATEHOUSE_SECRET_KEY: KEY,
        GATEHOUSE_PAGES: 'OFF',
        GATEHOUSE_API_DOCS: ' off ',
        GATEHOUSE_VERIFY_URL: 'https://app.example.com/#/verify',
        GATEHOUSE_RESET_URL: 'https://app.example.com/reset?from=mail',
        GATEHOUSE_EMAIL_CHANGE_URL: 'https://app.example.com/email',
      },
      { cwd },
    );
    expect(config).to.deep.include({
      pages: false,
      apiDocs: false,
      verifyUrl: 'https://app.example.com/#/verify',
      resetUrl: 'https://app.example.com/reset?from=mail',
      emailChangeUrl: 'https://app.example.com/email',
    });
    expect(() => loadConfig({ GATEHOUSE_SECRET_KEY: KEY, GATEHOUSE_PAGES: 'yes' }, { cwd })).to.throw(
      ConfigurationError,
      'GATEHOUSE_PAGES must be on or off, got "yes"',
    );
    expect(() =>
      loadConfig({ GATEHOUSE_SECRET_KEY: KEY, GATEHOUSE_RESET_URL: 'javascript:alert(1)' }, { cwd }),
    ).to.throw(ConfigurationError, 'GATEHOUSE_RESET_URL must be an absolute http(s) URL');
  });

  it('npm start serves the pages and the API description, and the emailed link opens a page', async function () {
    this.timeout(30_000);
    server = await StandaloneServer.start(cwd, {});
    const page = await request(server.url).get('/auth/register').expect(200);
    expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
    await request(server.url).get('/auth/openapi.json').expect(200);
    await request(server.url).get('/auth/reference').expect(200);

    await request(server.url)
      .post('/auth/register')
      .send({ username: 'alice', email: 'alice@example.com', password: 'violet staircase 42 umbrella' })
      .expect(201);
    await server.waitFor(() => server!.stdout.includes('To: alice@example.com'), 'the verification email');
    const link = `/auth/verify-email?token=${server.lastLinkToken('verify-email')}`;
    const landing = await request(server.url).get(link).expect(200);
    expect(landing.text).to.include('data-page="verify-email"');
  });

  it('with the pages and docs off, only the JSON API answers; the links can point at the host’s front end', async function () {
    this.timeout(30_000);
    server = await StandaloneServer.start(cwd, {
      GATEHOUSE_PAGES: 'off',
      GATEHOUSE_API_DOCS: 'off',
      GATEHOUSE_VERIFY_URL: 'https://app.example.com/verify',
    });
    const refused = await request(server.url).get('/auth/login').expect(405);
    expect(refused.body.detail.code).to.equal('method_not_allowed');
    await request(server.url).get('/auth/openapi.json').expect(404);
    await request(server.url)
      .post('/auth/register')
      .send({ username: 'bob', email: 'bob@example.com', password: 'violet staircase 42 umbrella' })
      .expect(201);
    await server.waitFor(() => server!.stdout.includes('To: bob@example.com'), 'the verification email');
    expect(server.stdout).to.match(/https:\/\/app\.example\.com\/verify\?token=[A-Za-z0-9_-]{43}/);
  });

  it('stops at start with one line when GATEHOUSE_PAGES is neither on nor off', async () => {
    const { code, stderr } = await StandaloneServer.run(cwd, { GATEHOUSE_PAGES: 'maybe' });
    expect(code).to.equal(1);
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.include('GATEHOUSE_PAGES must be on or off, got "maybe"');
  });
});
