import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Request } from 'playwright-core';
import request from 'supertest';
import { parseMail, startSmtpServer, type SmtpTestServer } from '../email/smtp-test-server';
import { StandaloneServer } from '../server/standalone-server';
import { freePort } from '../support/free-port';
import { collectConsoleProblems, launchChromium, requireChromium } from './chromium';

/** Kept by CI as test artifacts (git-ignored): one picture per step of the journey. */
const SCREENSHOTS = join(__dirname, '../../../test-artifacts/screenshots');

const FIRST_PASSWORD = 'violet staircase 42 umbrella';
const SECOND_PASSWORD = 'quiet lantern over 7 rivers';
const THIRD_PASSWORD = 'amber kettle under 9 bridges';

/**
 * A person's whole journey through the hosted pages of `npm start`, in a real browser, with the emails taken from a
 * real SMTP server: sign up, open the verification link, sign in (by keyboard), change the password, reset it from
 * the emailed link, log out here and everywhere, delete the account. Along the way it checks what the person
 * cannot see: no request leaves the origin, no Referer is sent, the link's token leaves the address bar and is sent
 * nowhere but in the confirming POST, and the CSP refuses nothing.
 */
describe('browser: a person’s account, end to end', function () {
  this.timeout(120_000);
  let cwd: string;
  let smtp: SmtpTestServer;
  let server: StandaloneServer;
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  /** Every request the browser sent, with its headers as they went out. */
  const requests: { sent: Request; headers: Promise<Record<string, string>> }[] = [];
  const consoleProblems: string[] = [];
  let shot = 0;

  before(async function () {
    requireChromium(this);
    rmSync(SCREENSHOTS, { recursive: true, force: true });
    mkdirSync(SCREENSHOTS, { recursive: true });
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-browser-'));
    smtp = await startSmtpServer();
    server = await StandaloneServer.start(cwd, { PORT: String(await freePort()), GATEHOUSE_SMTP_URL: smtp.url });
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

  async function screenshot(page: Page, name: string): Promise<void> {
    shot += 1;
    await page.screenshot({ path: join(SCREENSHOTS, `${String(shot).padStart(2, '0')}-${name}.png`), fullPage: true });
  }

  /** The link of the newest email to `address` whose link goes to `path`, once it has arrived. */
  async function emailedLink(address: string, path: 'verify-email' | 'password-reset', seen: number): Promise<string> {
    const pattern = new RegExp(`${server.url}/auth/${path}\\?token=[A-Za-z0-9_-]+`);
    let link: string | undefined;
    await server.waitFor(
      () => smtp.received.filter((mail) => mail.rcptTo.includes(address)).length > seen,
      `mail to ${address}`,
    );
    for (const mail of smtp.received.filter((candidate) => candidate.rcptTo.includes(address))) {
      link = pattern.exec((await parseMail(mail)).text ?? '')?.[0] ?? link;
    }
    expect(link, `a ${path} link`).to.be.a('string');
    return link!;
  }
  const mailsTo = (address: string) => smtp.received.filter((mail) => mail.rcptTo.includes(address)).length;

  /** What the page says in its alert, once it says something. */
  async function alertText(page: Page): Promise<string> {
    const alert = page.getByRole('alert');
    await alert.waitFor();
    return (await alert.textContent()) ?? '';
  }
  // Evaluated in the page, as strings: the project compiles without the DOM's types.
  const focusedId = (page: Page) => page.evaluate<string>('document.activeElement ? document.activeElement.id : ""');
  const sessionToken = (page: Page) =>
    page.evaluate<string | undefined>(
      'Object.entries(sessionStorage).filter(([key]) => key.startsWith("gatehouse.session")).map(([, value]) => value)[0]',
    );

  it('signs up, verifies, signs in, changes and resets the password, logs out, and deletes the account', async () => {
    const page = await browser.newPage();
    const email = 'alice@example.com';

    // The bare prefix leads to the account page, which offers to sign up.
    await page.goto(`${server.url}/auth`);
    await page.getByText('You are not signed in.').waitFor();
    await screenshot(page, 'signed-out');
    await page.getByRole('link', { name: 'create an account' }).click();

    // Sign up: first with nothing filled in, then with two passwords that differ, then properly.
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await alertText(page)).to.include('Enter a username');
    expect(await focusedId(page)).to.equal('register-form-username');
    await screenshot(page, 'sign-up-missing-fields');
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Email address', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(FIRST_PASSWORD);
    await page.getByLabel('Password again').fill(`${FIRST_PASSWORD}!`);
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await alertText(page)).to.equal('The two passwords are not the same');
    expect(await page.getByLabel('Password again').getAttribute('aria-invalid')).to.equal('true');
    await page.getByLabel('Password again').fill(FIRST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    expect(await focusedId(page)).to.equal('register-done-title');
    await screenshot(page, 'sign-up-done');

    // The verification link: opening it verifies nothing (a mail scanner may do just that); the button does.
    const verifyLink = await emailedLink(email, 'verify-email', 0);
    const verifyToken = new URL(verifyLink).searchParams.get('token')!;
    // The page names the account the link confirms, and warns whoever did not choose that username.
    await page.goto(verifyLink);
    await page.getByRole('heading', { name: 'Confirm this address for the account alice' }).waitFor();
    expect(await page.getByText('If you did not choose the username alice, do not press the button').count()).to.equal(
      1,
    );
    expect(page.url()).to.equal(`${server.url}/auth/verify-email`);
    await screenshot(page, 'verify-landing');
    await request(server.url).post('/auth/login').send({ username: 'alice', password: FIRST_PASSWORD }).expect(403);
    await page.getByRole('button', { name: 'Confirm for alice' }).click();
    await page.getByRole('heading', { name: 'Your email address is confirmed' }).waitFor();
    await screenshot(page, 'verify-done');

    // The same link again: a clear failure, and a way to get a new link.
    await page.goto(verifyLink);
    expect(await alertText(page)).to.include('This link does not work');
    expect(await page.getByRole('button', { name: 'Confirm for alice' }).count()).to.equal(0);
    await page.getByRole('heading', { name: 'Get a new verification link' }).waitFor();
    await screenshot(page, 'verify-used-link');
    await page.getByLabel('Email address', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Send a new link' }).click();
    await page.getByRole('status').getByText('If the address belongs to an unverified account').waitFor();

    // Sign in by keyboard alone; a wrong password first.
    await page.goto(`${server.url}/auth/login`);
    await page.getByLabel('Username').focus();
    await page.keyboard.type('alice');
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password at all');
    await page.keyboard.press('Enter');
    expect(await alertText(page)).to.equal('The username or the password is wrong.');
    expect(await focusedId(page)).to.equal('error');
    await screenshot(page, 'sign-in-wrong-password');
    await page.getByLabel('Password').fill(FIRST_PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.waitForURL(`${server.url}/auth/account`);
    await page.locator('#me').getByText(email).waitFor();
    expect(await page.locator('#me').innerText()).to.match(
      /Username\s+alice\s+Email\s+alice@example\.com\s+Verified\s+Yes/,
    );
    await screenshot(page, 'account');
    const firstSession = await sessionToken(page);
    expect(firstSession).to.be.a('string');

    // Change the password: the wrong current one, then the right one; every session ends.
    await page.getByLabel('Current password').fill(SECOND_PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill(SECOND_PASSWORD);
    await page.getByLabel('New password again').fill(SECOND_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await alertText(page)).to.equal('The current password is wrong.');
    expect(await focusedId(page)).to.equal('change-form-old_password');
    await screenshot(page, 'change-password-wrong');
    await page.getByLabel('Current password').fill(FIRST_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(`${server.url}/auth/login`);
    await page.getByRole('status').getByText('Your password has been changed').waitFor();
    await screenshot(page, 'change-password-done');
    await request(server.url).get('/auth/me').set('Authorization', `Bearer ${firstSession}`).expect(401);

    // Forgot it: a reset link by email; a too common password is refused in words, then a good one is set.
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    const mailsBefore = mailsTo(email);
    await page.getByLabel('Email address', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('status').getByText('If the address belongs to an account').waitFor();
    await screenshot(page, 'reset-requested');
    const resetLink = await emailedLink(email, 'password-reset', mailsBefore);
    const resetToken = new URL(resetLink).searchParams.get('token')!;
    await page.goto(resetLink);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(page.url()).to.equal(`${server.url}/auth/password-reset`);
    await page.getByLabel('New password', { exact: true }).fill('qwertyuiop123');
    await page.getByLabel('New password again').fill('qwertyuiop123');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    expect(await alertText(page)).to.include('too common');
    expect(await page.locator('#reset-confirm-form-new_password-error').innerText()).to.include('too common');
    await screenshot(page, 'reset-weak-password');
    await page.getByLabel('New password', { exact: true }).fill(THIRD_PASSWORD);
    await page.getByLabel('New password again').fill(THIRD_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('heading', { name: 'Your password has been changed' }).waitFor();
    await screenshot(page, 'reset-done');

    // Two tabs, two sessions: "log out everywhere" in one ends the other.
    const signIn = async (tab: Page) => {
      await tab.goto(`${server.url}/auth/login`);
      await tab.getByLabel('Username').fill('alice');
      await tab.getByLabel('Password').fill(THIRD_PASSWORD);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.waitForURL(`${server.url}/auth/account`);
      await tab.locator('#me').getByText(email).waitFor();
    };
    const otherTab = await browser.newPage();
    await signIn(page);
    await signIn(otherTab);
    await page.getByRole('button', { name: 'Log out everywhere' }).click();
    await page.waitForURL(`${server.url}/auth/login`);
    await page.getByRole('status').getByText('You are logged out on every device.').waitFor();
    await otherTab.reload();
    await otherTab.getByRole('status').getByText('Your session has ended. Sign in again.').waitFor();
    await screenshot(otherTab, 'other-tab-session-ended');
    await otherTab.close();

    // Log out, then sign in again and delete the account (the wrong password first).
    await signIn(page);
    const loggedOut = await sessionToken(page);
    await page.getByRole('button', { name: 'Log out', exact: true }).click();
    await page.getByRole('status').getByText('You are logged out.').waitFor();
    await request(server.url).get('/auth/me').set('Authorization', `Bearer ${loggedOut}`).expect(401);
    await signIn(page);
    await page.getByLabel('Your password, to confirm').fill(FIRST_PASSWORD);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    expect(await alertText(page)).to.equal('The password is wrong.');
    await page.getByLabel('Your password, to confirm').fill(THIRD_PASSWORD);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.waitForURL(`${server.url}/auth/register`);
    await page.getByRole('status').getByText('Your account has been deleted.').waitFor();
    await screenshot(page, 'account-deleted');
    await request(server.url).post('/auth/login').send({ username: 'alice', password: THIRD_PASSWORD }).expect(401);

    // What the person did not see.
    const origin = new URL(server.url).origin;
    for (const { sent, headers } of requests) {
      expect(new URL(sent.url()).origin, sent.url()).to.equal(origin);
      expect(await headers, `headers of ${sent.url()}`).to.not.have.property('referer');
    }
    for (const token of [verifyToken, resetToken]) {
      const carrying = requests
        .map(({ sent }) => sent)
        .filter((sent) => sent.url().includes(token) || (sent.postData() ?? '').includes(token));
      // The link itself (opened twice for verification), and the POSTs that spend the token: nothing else.
      const kinds = carrying.map(
        (sent) => `${sent.method()} ${sent.isNavigationRequest() ? 'navigation' : new URL(sent.url()).pathname}`,
      );
      expect(kinds.filter((kind) => kind === 'GET navigation').length).to.be.at.least(1);
      for (const kind of kinds)
        expect(kind).to.be.oneOf(['GET navigation', 'POST /auth/verify-email', 'POST /auth/password-reset/confirm']);
    }
    expect(consoleProblems, consoleProblems.join('\n')).to.deep.equal([]);
    expect(server.stdout + server.stderr)
      .to.not.include(verifyToken)
      .and.not.include(resetToken);
  });
});

describe('browser: the pages say in words what went wrong', function () {
  this.timeout(60_000);
  let cwd: string;
  let server: StandaloneServer;
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;

  before(async function () {
    requireChromium(this);
    mkdirSync(SCREENSHOTS, { recursive: true });
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-browser-'));
    server = await StandaloneServer.start(cwd, { GATEHOUSE_RATE_LIMITS: 'login.ip=2/1m' });
    ({ browser, close: closeBrowser } = await launchChromium());
  });

  after(async () => {
    await closeBrowser?.();
    await server?.stop('SIGKILL');
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it('a rate limit with its wait, then a server that cannot be reached', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/auth/login`);
    const alert = page.getByRole('alert');
    await page.getByLabel('Username').fill('mallory');
    await page.getByLabel('Password').fill('guess number one');
    for (const expected of ['The username or the password is wrong.', 'The username or the password is wrong.']) {
      await page.getByRole('button', { name: 'Sign in' }).click();
      await alert.getByText(expected).waitFor();
    }
    await page.getByRole('button', { name: 'Sign in' }).click();
    await alert.getByText(/^Too many attempts\. Wait \d+ seconds, then try again\.$/).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'words-rate-limited.png'), fullPage: true });

    await server.stop('SIGKILL');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await alert.getByText('The server could not be reached. Check your connection and try again.').waitFor();
  });
});
