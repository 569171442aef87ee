import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Request } from 'playwright-core';
import request from 'supertest';
import { parseMail, startSmtpServer, type SmtpTestServer } from '../email/smtp-test-server';
import { StandaloneServer } from '../server/standalone-server';
import { freePort } from '../support/free-port';
import { totpCode } from '../support/rfc6238';
import { collectConsoleProblems, launchChromium, requireChromium } from './chromium';

const SCREENSHOTS = join(__dirname, '../../../test-artifacts/screenshots');
const PASSWORD = 'violet staircase 42 umbrella';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
/** Short, so the test can outlive it; the page must then ask for the password before acting. */
const REAUTH_WINDOW_MS = 3_000;

/**
 * The security page in a real browser, against `npm start` with a real SMTP server: the sessions of three devices,
 * ending one after the password is asked for again, ending the others, and an email change confirmed from the link
 * sent to the new address, which ends the sessions started since (the default) and keeps this one.
 */
describe('browser: sessions and email change, end to end', function () {
  this.timeout(120_000);
  let cwd: string;
  let smtp: SmtpTestServer;
  let server: StandaloneServer;
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  const requests: { sent: Request; headers: Promise<Record<string, string>> }[] = [];
  const consoleProblems: string[] = [];

  before(async function () {
    requireChromium(this);
    mkdirSync(SCREENSHOTS, { recursive: true });
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-browser-'));
    smtp = await startSmtpServer();
    server = await StandaloneServer.start(cwd, {
      PORT: String(await freePort()),
      GATEHOUSE_SMTP_URL: smtp.url,
      GATEHOUSE_REAUTH_WINDOW: `${REAUTH_WINDOW_MS}ms`,
    });
    ({ browser, close: closeBrowser } = await launchChromium());
    browser.on('request', (sent) => requests.push({ sent, headers: sent.allHeaders().catch(() => sent.headers()) }));
    collectConsoleProblems(browser, consoleProblems);
  });

  after(async () => {
    await closeBrowser?.();
    await server?.stop('SIGKILL');
    await smtp?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  const mailsTo = (address: string) => smtp.received.filter((mail) => mail.rcptTo.includes(address));

  /** The newest link to `path` mailed to `address`, once more than `seen` mails have reached it. */
  async function emailedLink(address: string, path: string, seen: number): Promise<string> {
    const pattern = new RegExp(`${server.url}/auth/${path}\\?token=[A-Za-z0-9_-]+`);
    await server.waitFor(() => mailsTo(address).length > seen, `mail to ${address}`);
    let link: string | undefined;
    for (const mail of mailsTo(address)) link = pattern.exec((await parseMail(mail)).text ?? '')?.[0] ?? link;
    expect(link, `a ${path} link`).to.be.a('string');
    return link!;
  }

  async function alertText(page: Page): Promise<string> {
    const alert = page.getByRole('alert');
    await alert.waitFor();
    return (await alert.textContent()) ?? '';
  }
  const focusedId = (page: Page) => page.evaluate<string>('document.activeElement ? document.activeElement.id : ""');
  const sessionToken = (page: Page) =>
    page.evaluate<string | undefined>(
      'Object.entries(sessionStorage).filter(([key]) => key.startsWith("gatehouse.session")).map(([, value]) => value)[0]',
    );
  const rows = (page: Page) => page.locator('#sessions-body tr');
  const apiLogin = async (userAgent: string) =>
    (
      await request(server.url)
        .post('/auth/login')
        .set('User-Agent', userAgent)
        .send({ username: 'alice', password: PASSWORD })
        .expect(200)
    ).body.access_token as string;
  const stillSignedIn = async (token: string) =>
    (await request(server.url).get('/auth/me').set('Authorization', `Bearer ${token}`)).status === 200;

  it('lists the sessions, ends one after asking for the password, ends the others, and changes the address', async () => {
    const email = 'alice@example.com';
    const newEmail = 'alice.new@example.com';
    await request(server.url).post('/auth/register').send({ username: 'alice', email, password: PASSWORD }).expect(201);
    const verifyLink = await emailedLink(email, 'verify-email', 0);
    await request(server.url)
      .post('/auth/verify-email')
      .send({ token: new URL(verifyLink).searchParams.get('token') })
      .expect(200);

    // Two other devices, signed in before this browser.
    const firefox = await apiLogin(FIREFOX);
    const script = await apiLogin('curl/8.5.0');

    const page = await browser.newPage();
    await page.goto(`${server.url}/auth/login`);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/auth/account`);
    await page.getByRole('link', { name: 'sessions and security' }).click();
    await page.waitForURL(`${server.url}/auth/security`);
    await rows(page).nth(2).waitFor();
    expect(await rows(page).count()).to.equal(3);
    // Newest first: this browser, marked as this device; then the other two.
    expect(await rows(page).nth(0).innerText()).to.include('This device');
    const firefoxRow = rows(page).filter({ hasText: 'Firefox 128' });
    expect(await firefoxRow.innerText()).to.include('Windows');
    expect(await firefoxRow.innerText()).to.not.include('This device');
    expect(await page.locator('#sessions-body time').first().getAttribute('datetime')).to.match(/^\d{4}-\d\d-\d\dT/);
    await page.screenshot({ path: join(SCREENSHOTS, 'security-sessions.png'), fullPage: true });

    // Past the re-authentication window, ending another session asks for the password first, then does it.
    await page.waitForTimeout(REAUTH_WINDOW_MS + 500);
    await firefoxRow.getByRole('button', { name: /^End the session of Firefox 128/ }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    expect(await focusedId(page)).to.equal('reauth-form-password');
    expect(await page.locator('#reauth-code').isHidden(), 'no code asked without two-factor sign-in').to.equal(true);
    expect(await stillSignedIn(firefox)).to.equal(true);
    await page.getByLabel('Your password').fill('not the password at all');
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    expect(await alertText(page)).to.equal('The password is wrong.');
    await page.screenshot({ path: join(SCREENSHOTS, 'security-reauth-wrong.png'), fullPage: true });
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    await page.getByRole('status').getByText('The session has ended.').waitFor();
    expect(await page.locator('#reauth').isHidden()).to.equal(true);
    expect(await rows(page).count()).to.equal(2);
    expect(await stillSignedIn(firefox)).to.equal(false);
    expect(await stillSignedIn(script)).to.equal(true);

    // Within the window now: the others end at once.
    await page.getByRole('button', { name: 'End all other sessions' }).click();
    await page.getByRole('status').getByText('One other session has ended.').waitFor();
    expect(await rows(page).count()).to.equal(1);
    expect(await stillSignedIn(script)).to.equal(false);

    // The change of address, other devices signed out by default: a laptop that signs in meanwhile is ended by it.
    const noticesBefore = mailsTo(email).length;
    expect(await page.getByLabel('Sign out my other devices').isChecked()).to.equal(true);
    await page.getByLabel('New email address').fill(newEmail);
    await page.getByRole('button', { name: 'Send the confirmation link' }).click();
    await page.getByRole('status').getByText('Check the new address for a link to confirm the change').waitFor();
    expect(await page.getByLabel('New email address').inputValue()).to.equal('');
    await page.screenshot({ path: join(SCREENSHOTS, 'security-email-requested.png'), fullPage: true });
    const laptop = await apiLogin('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15');
    const changeLink = await emailedLink(newEmail, 'email-change/confirm', 0);
    const changeToken = new URL(changeLink).searchParams.get('token')!;
    // The current address is told of the request.
    await server.waitFor(() => mailsTo(email).length > noticesBefore, `notice to ${email}`);

    const landing = await browser.newPage();
    await landing.goto(changeLink);
    await landing.getByRole('heading', { name: `Make ${newEmail} the address of alice` }).waitFor();
    expect(landing.url()).to.equal(`${server.url}/auth/email-change/confirm`);
    await landing.screenshot({ path: join(SCREENSHOTS, 'email-change-landing.png'), fullPage: true });
    // Opening the link changed nothing.
    const mine = (await sessionToken(page))!;
    const me = () => request(server.url).get('/auth/me').set('Authorization', `Bearer ${mine}`).expect(200);
    expect((await me()).body.email).to.equal(email);
    await landing.getByRole('button', { name: `Use ${newEmail}` }).click();
    await landing.getByRole('heading', { name: 'Your email address is changed' }).waitFor();
    await landing.screenshot({ path: join(SCREENSHOTS, 'email-change-done.png'), fullPage: true });
    expect((await me()).body.email).to.equal(newEmail);
    expect(await stillSignedIn(laptop)).to.equal(false);
    // The previous address is told that it changed.
    await server.waitFor(() => mailsTo(email).length > noticesBefore + 1, `change notice to ${email}`);

    // The same link again fails in words.
    await landing.goto(changeLink);
    expect(await alertText(landing)).to.include('This link does not work');

    // This browser stays signed in, alone.
    await page.reload();
    await rows(page).first().waitFor();
    expect(await rows(page).count()).to.equal(1);
    expect(await rows(page).first().innerText()).to.include('This device');

    // What the person did not see: nothing left the origin, no Referer, the token only in the link and its POST.
    const origin = new URL(server.url).origin;
    for (const { sent, headers } of requests) {
      expect(new URL(sent.url()).origin, sent.url()).to.equal(origin);
      expect(await headers, `headers of ${sent.url()}`).to.not.have.property('referer');
    }
    const carrying = requests
      .map(({ sent }) => sent)
      .filter((sent) => sent.url().includes(changeToken) || (sent.postData() ?? '').includes(changeToken));
    for (const sent of carrying) {
      const kind = `${sent.method()} ${sent.isNavigationRequest() ? 'navigation' : new URL(sent.url()).pathname}`;
      expect(kind).to.be.oneOf(['GET navigation', 'POST /auth/email-change/confirm']);
    }
    expect(consoleProblems, consoleProblems.join('\n')).to.deep.equal([]);
    expect(server.stdout + server.stderr).to.not.include(changeToken);
  });
  it('with two-factor sign-in on, confirming it is you takes a code too, and a recovery code used there is spent', async () => {
    const email = 'carol@example.com';
    const api = request(server.url);
    await api.post('/auth/register').send({ username: 'carol', email, password: PASSWORD }).expect(201);
    const verifyLink = await emailedLink(email, 'verify-email', 0);
    await api
      .post('/auth/verify-email')
      .send({ token: new URL(verifyLink).searchParams.get('token') })
      .expect(200);
    const setUp = (await api.post('/auth/login').send({ username: 'carol', password: PASSWORD }).expect(200)).body
      .access_token as string;
    const started = await api.post('/auth/second-factor/totp').set('Authorization', `Bearer ${setUp}`).expect(200);
    const secret = started.body.secret as string;
    const confirmed = await api
      .post('/auth/second-factor/totp/confirm')
      .set('Authorization', `Bearer ${setUp}`)
      .send({ code: totpCode(secret, new Date()) })
      .expect(200);
    const recoveryCodes = confirmed.body.recovery_codes as string[];

    const page = await browser.newPage();
    await page.goto(`${server.url}/auth/login`);
    await page.getByLabel('Username').fill('carol');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    // The set-up's step is spent; the next one is within the drift allowed.
    await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, new Date(), 1));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${server.url}/auth/account`);
    await page.goto(`${server.url}/auth/security`);
    await page.getByText(/^Two-factor sign-in is on/).waitFor();

    // Past the window the page asks for the password and a code; the password alone is not sent.
    await page.waitForTimeout(REAUTH_WINDOW_MS + 500);
    await page.getByRole('button', { name: 'End all other sessions' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    expect(await page.locator('#reauth-code').isVisible()).to.equal(true);
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    expect(await alertText(page)).to.include('Enter a code from your authenticator app');
    await page.locator('#reauth-form-code').fill('aaaa-bbbb-cccc-dddd');
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    await page.getByRole('alert').getByText('That code is not right').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'security-reauth-second-factor.png'), fullPage: true });
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.locator('#reauth-form-code').fill(recoveryCodes[0]);
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    await page.getByRole('status').getByText('One other session has ended.').waitFor();
    expect(await page.locator('#reauth').isHidden()).to.equal(true);

    const status = await api.get('/auth/second-factor').set('Authorization', `Bearer ${await sessionToken(page)}`);
    expect(status.body.recovery_codes_left, 'the recovery code is spent').to.equal(recoveryCodes.length - 1);
    expect(consoleProblems, consoleProblems.join('\n')).to.deep.equal([]);
  });
});
