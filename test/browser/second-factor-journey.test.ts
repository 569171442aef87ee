import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { parseMail, startSmtpServer, type SmtpTestServer } from '../email/smtp-test-server';
import { StandaloneServer } from '../server/standalone-server';
import { freePort } from '../support/free-port';
import { totpCode } from '../support/rfc6238';
import { collectConsoleProblems, launchChromium, requireChromium } from './chromium';

const SCREENSHOTS = join(__dirname, '../../../test-artifacts/screenshots');
const PASSWORD = 'violet staircase 42 umbrella';

/**
 * Two-factor sign-in in a real browser, against `npm start` with a real SMTP server: set it up on the security page
 * (the QR code must render under the page's CSP), sign out, sign in with a code the test computes from the secret by
 * its own RFC 6238 (test/support/rfc6238.ts, node:crypto), then with a recovery code, which is spent.
 */
describe('browser: two-factor sign-in, end to end', function () {
  this.timeout(120_000);
  let cwd: string;
  let smtp: SmtpTestServer;
  let server: StandaloneServer;
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  const consoleProblems: string[] = [];

  before(async function () {
    requireChromium(this);
    mkdirSync(SCREENSHOTS, { recursive: true });
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-browser-'));
    smtp = await startSmtpServer();
    server = await StandaloneServer.start(cwd, { PORT: String(await freePort()), GATEHOUSE_SMTP_URL: smtp.url });
    ({ browser, close: closeBrowser } = await launchChromium());
    collectConsoleProblems(browser, consoleProblems);
  });

  after(async () => {
    await closeBrowser?.();
    await server?.stop('SIGKILL');
    await smtp?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  const mailsTo = (address: string) => smtp.received.filter((mail) => mail.rcptTo.includes(address));
  async function subjectsTo(address: string): Promise<string[]> {
    return Promise.all(mailsTo(address).map(async (mail) => (await parseMail(mail)).subject ?? ''));
  }
  async function alertText(page: Page): Promise<string> {
    const alert = page.getByRole('alert');
    await alert.waitFor();
    return (await alert.textContent()) ?? '';
  }
  const focusedId = (page: Page) => page.evaluate<string>('document.activeElement ? document.activeElement.id : ""');

  async function signInWithPassword(page: Page): Promise<void> {
    await page.goto(`${server.url}/auth/login`);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
  }
  async function logOut(page: Page): Promise<void> {
    await page.goto(`${server.url}/auth/account`);
    await page.getByRole('button', { name: 'Log out', exact: true }).click();
    await page.waitForURL(`${server.url}/auth/login`);
  }

  it('sets it up, then signs in with a code of the app and with a recovery code', async () => {
    const email = 'alice@example.com';
    await request(server.url).post('/auth/register').send({ username: 'alice', email, password: PASSWORD }).expect(201);
    await server.waitFor(() => mailsTo(email).length > 0, `mail to ${email}`);
    const verifyLink = /https?:\/\/\S+\/auth\/verify-email\?token=[A-Za-z0-9_-]+/.exec(
      (await parseMail(mailsTo(email)[0])).text ?? '',
    )![0];
    await request(server.url)
      .post('/auth/verify-email')
      .send({ token: new URL(verifyLink).searchParams.get('token') })
      .expect(200);

    // Signed in with the password alone, the security page offers to set it up.
    const page = await browser.newPage();
    await page.goto(`${server.url}/auth/login`);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/auth/account`);
    await page.goto(`${server.url}/auth/security`);
    await page.getByText('Two-factor sign-in is off.').waitFor();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();

    // The QR code is drawn (an image from a data: URL, which the page's CSP allows), and the key is there as text.
    await page.getByRole('heading', { name: 'Scan this code with your authenticator app' }).waitFor();
    const qr = page.getByRole('img', { name: /QR code/ });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).to.match(/^data:image\/svg\+xml;base64,/);
    await page.waitForFunction('document.getElementById("second-factor-qr").naturalWidth > 0');
    const secret = ((await page.locator('#second-factor-secret').textContent()) ?? '').replace(/\s/g, '');
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    await page.screenshot({ path: join(SCREENSHOTS, 'second-factor-setup.png'), fullPage: true });

    // A wrong code is refused beside the field; the app's code turns it on and shows the recovery codes once.
    const enrolledAt = new Date();
    const right = totpCode(secret, enrolledAt);
    await page.getByLabel('Then enter the code the app shows').fill(right === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    expect(await alertText(page)).to.include('That code is not right');
    expect(await focusedId(page)).to.equal('totp-confirm-form-code');
    await page.getByLabel('Then enter the code the app shows').fill(right);
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    expect(await focusedId(page)).to.equal('recovery-codes-title');
    const codes = await page.locator('#recovery-codes-list li').allTextContents();
    expect(codes).to.have.length(10);
    for (const code of codes) expect(code).to.match(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    // The set-up's secret and QR code are gone from the page once it is on.
    expect(await page.locator('#second-factor-secret').textContent()).to.equal('');
    expect(await page.locator('#second-factor-qr').getAttribute('src')).to.equal(null);
    await page.screenshot({ path: join(SCREENSHOTS, 'second-factor-recovery-codes.png'), fullPage: true });
    await page.getByRole('button', { name: 'I have stored them' }).click();
    await page.getByText('You have 10 recovery codes left.').waitFor();
    expect(await page.locator('#recovery-codes-list li').count()).to.equal(0);
    expect(await page.getByText(/^Two-factor sign-in is on/).count()).to.equal(1);

    // Signed out, the password is no longer enough: the page asks for the code.
    await logOut(page);
    await signInWithPassword(page);
    expect(await focusedId(page)).to.equal('second-factor-form-code');
    expect(await page.getByLabel('Password').inputValue()).to.equal('');
    await page.screenshot({ path: join(SCREENSHOTS, 'second-factor-sign-in.png'), fullPage: true });
    // The step of the set-up's code is spent; the next step's code is within the allowed drift and is new.
    const code = totpCode(secret, new Date(), 1);
    await page.getByLabel('Code from your authenticator app').fill(`${code.slice(0, 3)} ${code.slice(3)}`);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${server.url}/auth/account`);

    // Once more, with a recovery code this time.
    await logOut(page);
    await signInWithPassword(page);
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    expect(await focusedId(page)).to.equal('recovery-form-recovery_code');
    await page.getByLabel('Recovery code').fill(codes[0].toUpperCase());
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${server.url}/auth/account`);
    await page.goto(`${server.url}/auth/security`);
    await page.getByText('You have 9 recovery codes left.').waitFor();

    // A spent recovery code is refused, and the challenge stays for another answer.
    await logOut(page);
    await signInWithPassword(page);
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(codes[0]);
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await alertText(page)).to.equal('That recovery code is not right, or it was used already.');
    await page.getByLabel('Recovery code').fill(codes[1]);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${server.url}/auth/account`);

    // The person was told: set up, and each recovery code used.
    await server.waitFor(() => mailsTo(email).length >= 4, 'the notices');
    expect((await subjectsTo(email)).length).to.be.at.least(4);
    expect(consoleProblems, consoleProblems.join('\n')).to.deep.equal([]);
  });

  it('a dead challenge sends the person back to the password, with a message', async () => {
    // alice has two-factor sign-in from the journey above; her challenge is spent by five wrong answers.
    const page = await browser.newPage();
    await signInWithPassword(page);
    const answer = async (code: string) => {
      await page.getByLabel('Code from your authenticator app').fill(code);
      const answered = page.waitForResponse((response) => response.url().endsWith('/auth/login/second-factor'));
      await page.getByRole('button', { name: 'Continue' }).click();
      return (await answered).status();
    };
    for (let tries = 0; tries < 5; tries++) expect(await answer(`12345${tries}`)).to.equal(401);
    expect(await page.locator('#second-factor').isVisible()).to.equal(true);
    await answer('000000');
    await page.getByText('This sign-in ran out of time or of tries').waitFor();
    expect(await page.locator('#login-form').isVisible()).to.equal(true);
    expect(await page.locator('#second-factor').isHidden()).to.equal(true);
    expect(await page.getByLabel('Username').inputValue()).to.equal('alice');
    await page.screenshot({ path: join(SCREENSHOTS, 'second-factor-challenge-dead.png'), fullPage: true });
  });
});
