import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Request } from 'playwright-core';
import request from 'supertest';
import { parseMail, startSmtpServer, type SmtpTestServer } from '../email/smtp-test-server';
import { StandaloneServer } from '../server/standalone-server';
import { freePort } from '../support/free-port';
import { collectConsoleProblems, launchChromium, requireChromium } from './chromium';

const PASSWORD = 'violet staircase 42 umbrella';
/** An organization's name is whatever its creator typed: markup in it must reach every page as text. */
const NAME = 'Acme <img src=x id=injected> & Co';
/** A short "recent proof" window, so that handing the ownership over and deleting ask to confirm it is you. */
const REAUTH_WINDOW_MS = 3_000;

/**
 * Organizations in a real browser, against `npm start` (SQLite) with its mails taken from a real SMTP server: the
 * owner creates an organization and invites a newcomer's address; the newcomer opens the mailed link, signs up,
 * confirms the address and signs in in the same tab, comes back to the invitation and accepts; the owner sees the
 * new member and changes the role; another account opening an invitation meant for someone else is told so, and the
 * invitation stays; the ownership is handed over and the organization deleted, each after confirming the password.
 * On the way: the name is text everywhere, the token leaves the address bar and goes nowhere but
 * in the bodies of POSTs, no request leaves the origin, and the CSP and Trusted Types refuse nothing.
 */
describe('browser: organizations, invitations and members, end to end', function () {
  this.timeout(180_000);
  let cwd: string;
  let smtp: SmtpTestServer;
  let server: StandaloneServer;
  let site: string;
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  const requests: Request[] = [];
  const consoleProblems: string[] = [];
  let organizationId = '';

  before(async function () {
    requireChromium(this);
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-browser-'));
    smtp = await startSmtpServer();
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await StandaloneServer.start(cwd, {
      PORT: String(port),
      GATEHOUSE_SMTP_URL: smtp.url,
      // The invitation mail's link is absolute: the public URL is needed for it.
      GATEHOUSE_PUBLIC_URL: site,
      GATEHOUSE_REAUTH_WINDOW: `${REAUTH_WINDOW_MS}ms`,
    });
    ({ browser, close: closeBrowser } = await launchChromium());
    browser.on('request', (sent) => requests.push(sent));
    collectConsoleProblems(browser, consoleProblems);
  });

  after(async () => {
    await closeBrowser?.();
    await server?.stop('SIGKILL');
    await smtp?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  afterEach(() => expect(consoleProblems).to.deep.equal([]));

  const mailsTo = (address: string) => smtp.received.filter((mail) => mail.rcptTo.includes(address));

  /** The newest link to `path` mailed to `address`, once more than `seen` mails have reached it. */
  async function emailedLink(address: string, path: string, seen = 0): Promise<string> {
    await server.waitFor(() => mailsTo(address).length > seen, `mail to ${address}`);
    const pattern = new RegExp(`${site}/auth${path}\\?token=[A-Za-z0-9_-]+`);
    let link: string | undefined;
    for (const mail of mailsTo(address)) link = pattern.exec((await parseMail(mail)).text ?? '')?.[0] ?? link;
    expect(link, `a ${path} link to ${address}`).to.be.a('string');
    return link!;
  }

  /** An account made and verified through the API, for the people whose sign-up is not the point. */
  async function verifiedAccount(username: string, email: string): Promise<void> {
    await request(site).post('/auth/register').send({ username, email, password: PASSWORD }).expect(201);
    const link = await emailedLink(email, '/verify-email');
    await request(site)
      .post('/auth/verify-email')
      .send({ token: new URL(link).searchParams.get('token') })
      .expect(200);
  }

  async function signIn(page: Page, username: string): Promise<void> {
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  async function alertText(page: Page): Promise<string> {
    const alert = page.locator('#error');
    await alert.waitFor();
    return (await alert.textContent()) ?? '';
  }

  let owner: Page;

  it('the owner creates an organization from the account page; its name shows as text', async () => {
    await verifiedAccount('olivia', 'olivia@example.com');
    owner = await browser.newPage();
    await owner.goto(`${site}/auth/login`);
    await signIn(owner, 'olivia');
    await owner.waitForURL(`${site}/auth/account`);
    await owner.getByRole('link', { name: 'your organizations' }).click();
    await owner.waitForURL(`${site}/auth/my-organizations`);
    await owner.getByText('You do not belong to any organization yet.').waitFor();

    await owner.getByLabel('Name').fill(NAME);
    await owner.getByRole('button', { name: 'Create the organization' }).click();
    await owner.waitForURL(new RegExp(`^${site}/auth/organization#id=[0-9a-f-]{36}$`));
    organizationId = new URLSearchParams(new URL(owner.url()).hash.slice(1)).get('id')!;
    await owner
      .getByRole('status')
      .filter({ hasText: `${NAME} is created. You are its owner.` })
      .waitFor();
    expect(await owner.locator('#organization-name').textContent()).to.equal(NAME);
    expect(await owner.locator('#injected').count()).to.equal(0);
    expect(await owner.locator('#organization-summary').textContent()).to.include('Your role here: owner.');
    // The owner's own row: no actions on themselves; the owner may delete.
    await owner.locator('#members-body tr', { hasText: 'olivia' }).waitFor();
    await owner.getByRole('button', { name: 'Delete the organization' }).waitFor();

    // The list shows it, by name as text, with a link back to it.
    await owner.goto(`${site}/auth/my-organizations`);
    const link = owner.locator('#organizations-body a');
    expect(await link.textContent()).to.equal(NAME);
    expect(await link.getAttribute('href')).to.equal(`/auth/organization#id=${organizationId}`);
    await link.click();
    await owner.locator('#organization-name').filter({ hasText: 'Acme' }).waitFor();
  });

  it('the owner invites a newcomer, who signs up from the mailed link, confirms, signs in and accepts', async () => {
    const email = 'nina@example.com';
    await owner.getByLabel('Their email address').fill(email);
    await owner.getByLabel('Role', { exact: true }).selectOption('member');
    await owner.getByRole('button', { name: 'Send the invitation' }).click();
    await owner
      .getByRole('status')
      .filter({ hasText: `An invitation to join as member is on its way to ${email}.` })
      .waitFor();
    await owner.locator('#invitations-body').getByRole('cell', { name: email, exact: true }).waitFor();

    const link = await emailedLink(email, '/invitation');
    const token = new URL(link).searchParams.get('token')!;
    // A fresh tab: no session (sessionStorage is the tab's).
    const newcomer = await browser.newPage();
    await newcomer.goto(link);
    await newcomer.getByRole('heading', { name: `You are invited to join ${NAME}` }).waitFor();
    // The token is out of the address bar at once.
    expect(newcomer.url()).to.equal(`${site}/auth/invitation`);
    expect(await newcomer.locator('#invitation-role').textContent()).to.equal('member');
    expect(await newcomer.locator('#invitation-by').textContent()).to.equal('olivia');
    expect(await newcomer.locator('#injected').count()).to.equal(0);

    // Sign up with the invited address.
    await newcomer.getByRole('link', { name: 'Create an account' }).click();
    await newcomer.waitForURL(`${site}/auth/register`);
    await newcomer.getByLabel('Username').fill('nina');
    await newcomer.getByLabel('Email address', { exact: true }).fill(email);
    await newcomer.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await newcomer.getByLabel('Password again').fill(PASSWORD);
    await newcomer.getByRole('button', { name: 'Create account' }).click();
    await newcomer.getByRole('heading', { name: 'Check your email' }).waitFor();

    // The verification link, opened in the same tab; then the sign-in, which comes back to the invitation.
    const verify = await emailedLink(email, '/verify-email', 1);
    await newcomer.goto(verify);
    await newcomer.getByRole('button', { name: 'Confirm for nina' }).click();
    await newcomer.getByRole('heading', { name: 'Your email address is confirmed' }).waitFor();
    await newcomer.getByRole('link', { name: 'Sign in', exact: true }).click();
    await newcomer.waitForURL(`${site}/auth/login`);
    await signIn(newcomer, 'nina');
    await newcomer.waitForURL(`${site}/auth/invitation`);
    await newcomer.getByText('You are signed in as nina, nina@example.com.').waitFor();
    await newcomer.getByRole('button', { name: 'Accept and join' }).click();
    await newcomer.waitForURL(`${site}/auth/organization#id=${organizationId}`);
    await newcomer
      .getByRole('status')
      .filter({ hasText: `You joined ${NAME}.` })
      .waitFor();
    expect(await newcomer.locator('#organization-summary').textContent()).to.include('Your role here: member.');
    // A member sees the roster without addresses, and no action on others.
    await newcomer.locator('#members-body tr', { hasText: 'olivia' }).waitFor();
    expect(await newcomer.locator('#members-body').textContent()).to.not.include('olivia@example.com');
    expect(await newcomer.locator('#members-body button').count()).to.equal(0);
    expect(await newcomer.locator('#invite-section').isHidden()).to.equal(true);
    expect(await newcomer.getByRole('button', { name: 'Delete the organization' }).isHidden()).to.equal(true);

    // The token went to the server only in the bodies of POSTs: in no URL but the mailed link's own.
    const carrying = requests.filter((sent) => sent.url().includes(token)).map((sent) => sent.url());
    expect(carrying).to.deep.equal([link]);
    // And it does not work twice.
    await request(site).post('/auth/invitations/preview').send({ token }).expect(400);
    await newcomer.close();
  });

  it('the owner sees the new member and changes the role', async () => {
    await owner.reload();
    const row = owner.locator('#members-body tr', { hasText: 'nina' });
    await row.waitFor();
    expect(await row.textContent()).to.include('nina@example.com');
    expect(await owner.locator('#invitations-empty').isVisible()).to.equal(true);
    await owner.getByLabel('Role of nina', { exact: true }).selectOption('admin');
    await owner.getByRole('button', { name: 'Change the role of nina' }).click();
    await owner.getByRole('status').filter({ hasText: 'nina now has the role admin.' }).waitFor();
    expect(await owner.locator('#members-body tr', { hasText: 'nina' }).locator('td').nth(2).textContent()).to.equal(
      'admin',
    );
  });

  it('another account opening someone else’s invitation is told so, and the invitation stays', async () => {
    await verifiedAccount('mallory', 'mallory@example.com');
    const email = 'wendy@example.com';
    await owner.getByLabel('Their email address').fill(email);
    await owner.getByRole('button', { name: 'Send the invitation' }).click();
    await owner.locator('#invitations-body').getByRole('cell', { name: email, exact: true }).waitFor();
    const link = await emailedLink(email, '/invitation');

    const other = await browser.newPage();
    await other.goto(`${site}/auth/login`);
    await signIn(other, 'mallory');
    await other.waitForURL(`${site}/auth/account`);
    await other.goto(link);
    await other.getByText('You are signed in as mallory, mallory@example.com.').waitFor();
    await other.getByRole('button', { name: 'Accept and join' }).click();
    expect(await alertText(other)).to.include('This invitation was sent to another email address');
    expect(other.url()).to.equal(`${site}/auth/invitation`);
    // Still pending, for wendy.
    await request(site)
      .post('/auth/invitations/preview')
      .send({ token: new URL(link).searchParams.get('token') })
      .expect(200);
    await other.close();
  });

  it('the owner hands the ownership over and leaves; the new owner deletes the organization', async () => {
    await owner.getByRole('button', { name: 'Make nina the owner' }).click();
    expect(await owner.locator('#transfer-confirm-text').textContent()).to.equal(
      `nina becomes an owner of ${NAME}, and your role becomes admin: you can no longer delete it or change its owners.`,
    );
    // The sign-in is no longer recent: the page asks for the password, then hands the ownership over.
    await owner.waitForTimeout(REAUTH_WINDOW_MS + 500);
    await owner.getByRole('button', { name: 'Make them the owner' }).click();
    await owner.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await owner.getByLabel('Your password').fill('not the password');
    await owner.getByRole('button', { name: 'Confirm and continue' }).click();
    expect(await alertText(owner)).to.equal('The password is wrong.');
    await owner.getByLabel('Your password').fill(PASSWORD);
    await owner.getByRole('button', { name: 'Confirm and continue' }).click();
    await owner.getByRole('status').filter({ hasText: 'nina is now an owner. Your role is admin.' }).waitFor();
    expect(await owner.locator('#organization-summary').textContent()).to.include('Your role here: admin.');
    expect(await owner.getByRole('button', { name: 'Delete the organization' }).isHidden()).to.equal(true);
    // An admin has no action on an owner.
    expect(await owner.locator('#members-body tr', { hasText: 'nina' }).locator('button').count()).to.equal(0);
    await owner.getByRole('button', { name: 'Leave the organization' }).click();
    await owner.waitForURL(`${site}/auth/my-organizations`);
    await owner
      .getByRole('status')
      .filter({ hasText: `You left ${NAME}.` })
      .waitFor();
    await owner.getByText('You do not belong to any organization yet.').waitFor();

    const newOwner = await browser.newPage();
    await newOwner.goto(`${site}/auth/login`);
    await signIn(newOwner, 'nina');
    await newOwner.waitForURL(`${site}/auth/account`);
    await newOwner.goto(`${site}/auth/organization#id=${organizationId}`);
    await newOwner.getByRole('button', { name: 'Delete the organization' }).click();
    await newOwner.waitForTimeout(REAUTH_WINDOW_MS + 500);
    await newOwner.getByRole('button', { name: 'Delete it for good' }).click();
    await newOwner.getByLabel('Your password').fill(PASSWORD);
    await newOwner.getByRole('button', { name: 'Confirm and continue' }).click();
    await newOwner.waitForURL(`${site}/auth/my-organizations`);
    await newOwner
      .getByRole('status')
      .filter({ hasText: `${NAME} is deleted.` })
      .waitFor();
    // Gone: its page says so, as for an id that never was.
    await newOwner.goto(`${site}/auth/organization#id=${organizationId}`);
    await newOwner.locator('#missing').waitFor();
    await newOwner.close();
  });

  it('sent no request to another origin', () => {
    const elsewhere = requests.map((sent) => sent.url()).filter((url) => !url.startsWith(`${site}/`));
    expect(elsewhere).to.deep.equal([]);
  });
});
