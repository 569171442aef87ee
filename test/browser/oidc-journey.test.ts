import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import request from 'supertest';
import { parseMail, startSmtpServer, type SmtpTestServer } from '../email/smtp-test-server';
import { StandaloneServer } from '../server/standalone-server';
import { freePort } from '../support/free-port';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider';
import { CHROMIUM_PATH, collectConsoleProblems, requireChromium } from './chromium';

const PASSWORD = 'violet staircase 42 umbrella';
// The provider's test CA: the server trusts it through NODE_EXTRA_CA_CERTS, as a deployer's would a private CA.
const TEST_CA = resolve(__dirname, '../../../test/fixtures/oidc/ca.pem');

/**
 * Sign-in with an OpenID provider in a real browser, against `npm start` configured by environment and a real
 * provider over HTTPS (test/support/oidc-provider.ts): "Continue with Corp" creates an account and signs in; an
 * address some account holds gets the "link required" page, no session, and a notice to the owner; the owner links
 * the provider from the security page and then signs in with it; unlinking works while a password remains. No
 * console problem (CSP, Trusted Types) on the way.
 */
describe('browser: sign-in with an OpenID provider, end to end', function () {
  this.timeout(180_000);
  let cwd: string;
  let smtp: SmtpTestServer;
  let idp: TestOidcProvider;
  let server: StandaloneServer;
  let browser: BrowserContext;
  let profile: string;
  // The public URL, not the listen address: the flow cookie is set for the host the provider sends the browser back to.
  let site: string;
  const consoleProblems: string[] = [];

  before(async function () {
    requireChromium(this);
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-browser-'));
    smtp = await startSmtpServer();
    const port = await freePort();
    const publicUrl = `http://localhost:${port}`;
    site = publicUrl;
    idp = await startOidcProvider({
      clientId: 'gatehouse',
      clientSecret: 'corp-client-secret',
      redirectUris: [`${publicUrl}/auth/oidc/corp/callback`],
    });
    server = await StandaloneServer.start(cwd, {
      PORT: String(port),
      GATEHOUSE_SMTP_URL: smtp.url,
      GATEHOUSE_PUBLIC_URL: publicUrl,
      GATEHOUSE_OIDC_PROVIDERS: 'corp',
      GATEHOUSE_OIDC_CORP_NAME: 'Corp',
      GATEHOUSE_OIDC_CORP_ISSUER: idp.issuer,
      GATEHOUSE_OIDC_CORP_CLIENT_ID: 'gatehouse',
      GATEHOUSE_OIDC_CORP_CLIENT_SECRET: 'corp-client-secret',
      // StandaloneServer passes PATH and these only: the server must trust the provider's test CA.
      NODE_EXTRA_CA_CERTS: TEST_CA,
    });
    // Chromium does not read NODE_EXTRA_CA_CERTS: the provider's test certificate is accepted for this context only.
    profile = mkdtempSync(join(tmpdir(), 'gatehouse-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      ignoreHTTPSErrors: true,
    });
    collectConsoleProblems(browser, consoleProblems);
  });

  after(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await server?.stop('SIGKILL');
    await idp?.close();
    await smtp?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  // Each person signs in at the provider afresh: its session cookie from an earlier test would sign the last one in.
  beforeEach(() => browser.clearCookies());
  afterEach(() => expect(consoleProblems).to.deep.equal([]));

  const mailsTo = (address: string) => smtp.received.filter((mail) => mail.rcptTo.includes(address));
  async function subjectsTo(address: string): Promise<string[]> {
    return Promise.all(mailsTo(address).map(async (mail) => (await parseMail(mail)).subject ?? ''));
  }
  const session = (page: Page) => page.evaluate<string | null>("sessionStorage.getItem('gatehouse.session /auth')");

  async function continueWithCorp(page: Page): Promise<void> {
    await page.goto(`${site}/auth/login`);
    await page.getByRole('link', { name: 'Continue with Corp' }).click();
  }

  it('a new identity: an account is created and signed in; the fragment’s code is gone from the address', async () => {
    idp.addAccount({ sub: 'ann-at-corp', email: 'ann@example.com', email_verified: true });
    idp.loginAs('ann-at-corp');
    const page = await browser.newPage();
    await continueWithCorp(page);
    await page.waitForURL(`${site}/auth/account`);
    expect(await session(page)).to.be.a('string');
    await page.getByText('ann@example.com').waitFor();
    // The return page's entry of the history keeps no code.
    await page.goBack();
    expect(page.url()).to.equal(`${site}/auth/oidc/return`);
    await page.close();
  });

  it('an address an account holds: the link-required page, no session, and a notice to the owner', async () => {
    const email = 'bob@example.com';
    await request(site).post('/auth/register').send({ username: 'bob', email, password: PASSWORD }).expect(201);
    await server.waitFor(() => mailsTo(email).length > 0, `mail to ${email}`);
    const token = /verify-email\?token=([A-Za-z0-9_-]+)/.exec((await parseMail(mailsTo(email)[0])).text ?? '')![1];
    await request(site).post('/auth/verify-email').send({ token }).expect(200);
    const before = mailsTo(email).length;

    idp.addAccount({ sub: 'bob-at-corp', email, email_verified: true });
    idp.loginAs('bob-at-corp');
    const page = await browser.newPage();
    await continueWithCorp(page);
    await page.getByRole('heading', { name: 'This address has an account already' }).waitFor();
    expect(await page.locator('#oidc-link-required-text').textContent()).to.equal(
      'An account already uses the address Corp gave. If it is yours, sign in to it and link Corp from the ' +
        'security page.',
    );
    expect(await session(page)).to.equal(null);
    await server.waitFor(() => mailsTo(email).length > before, 'the notice to the owner');
    expect(await subjectsTo(email)).to.include(
      'Someone tried to sign in to Gatehouse with your address through a provider',
    );
    await page.close();
  });

  it('the owner links Corp from the security page, then signs in with it; unlinks it while a password remains', async () => {
    idp.loginAs('bob-at-corp');
    const page = await browser.newPage();
    await page.goto(`${site}/auth/login`);
    await page.getByLabel('Username').fill('bob');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${site}/auth/account`);
    await page.goto(`${site}/auth/security`);
    await page.getByText('No provider is linked to your account.').waitFor();
    // The sign-in just now counts as a recent proof: no prompt.
    await page.getByRole('button', { name: 'Link Corp', exact: true }).click();
    await page.waitForURL(`${site}/auth/security`);
    await page.getByRole('status').filter({ hasText: 'Corp is linked' }).waitFor();
    await page.locator('#oidc-identities').getByRole('cell', { name: 'bob@example.com', exact: true }).waitFor();

    // A new tab keeps no session (sessionStorage is per tab): the sign-in below is the provider's alone.
    const fresh = await browser.newPage();
    await continueWithCorp(fresh);
    await fresh.waitForURL(`${site}/auth/account`);
    await fresh.getByText('bob@example.com').waitFor();

    await fresh.goto(`${site}/auth/security`);
    await fresh.getByRole('button', { name: 'Unlink Corp (bob@example.com)' }).click();
    await fresh.getByRole('status').filter({ hasText: 'Corp is unlinked' }).waitFor();
    await fresh.getByRole('button', { name: 'Link Corp', exact: true }).waitFor();
    await page.close();
    await fresh.close();
  });

  it('a cancel at the provider: the return page says so, with a way back, and signs nobody in', async () => {
    idp.loginAs(null);
    const page = await browser.newPage();
    await page.goto(`${site}/auth/login`);
    const start = await page.getByRole('link', { name: 'Continue with Corp' }).getAttribute('href');
    const started = await page.request.get(`${site}${start}`, { maxRedirects: 0 });
    const callback = await idp.authorize(started.headers().location, { as: 'ann-at-corp', deny: true });
    // The flow cookie the start set is in this context: the callback is this browser's.
    await page.goto(callback);
    await page.waitForURL(`${site}/auth/oidc/return`);
    await page.getByText(/The sign-in was cancelled at .*, so nothing changed here\./).waitFor();
    expect(await session(page)).to.equal(null);
    await page.close();
  });
});
