import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { StandaloneServer } from '../server/standalone-server';
import { freePort } from '../support/free-port';
import { VirtualAuthenticator } from '../support/virtual-authenticator';
import { collectConsoleProblems, launchChromium, requireChromium } from './chromium';

const SCREENSHOTS = join(__dirname, '../../../test-artifacts/screenshots');
const PASSWORD = 'violet staircase 42 umbrella';
/** Short, so the test can outlive it: adding and removing a passkey then go through the "confirm it is you" prompt. */
const REAUTH_WINDOW_MS = 5_000;

/**
 * Passkeys in a real browser, against `npm start`, with Chromium's virtual authenticator (a platform authenticator
 * that verifies the user) doing real ceremonies: add one on the security page (after the password is asked for
 * again), sign out, sign in with it through the autofill and through the button (no username either way), see it
 * listed, rename it, and remove it after re-authenticating with the passkey itself.
 *
 * The page runs on http://localhost:<port>, not 127.0.0.1: WebAuthn refuses IP addresses as RP IDs, and localhost is
 * a secure context.
 */
describe('browser: passkeys, end to end', function () {
  this.timeout(120_000);
  let cwd: string;
  let server: StandaloneServer;
  let base: string;
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  const consoleProblems: string[] = [];

  before(async function () {
    requireChromium(this);
    mkdirSync(SCREENSHOTS, { recursive: true });
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-browser-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    server = await StandaloneServer.start(cwd, {
      PORT: String(port),
      GATEHOUSE_PUBLIC_URL: base,
      GATEHOUSE_WEBAUTHN_RP_ID: 'localhost',
      GATEHOUSE_WEBAUTHN_ORIGINS: base,
      GATEHOUSE_REAUTH_WINDOW: `${REAUTH_WINDOW_MS}ms`,
    });
    ({ browser, close: closeBrowser } = await launchChromium());
    collectConsoleProblems(browser, consoleProblems);
  });

  after(async () => {
    await closeBrowser?.();
    await server?.stop('SIGKILL');
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const rows = (page: Page) => page.locator('#passkeys-body tr');
  async function noticeText(page: Page): Promise<string> {
    const notice = page.getByRole('status');
    await notice.waitFor();
    return (await notice.textContent()) ?? '';
  }
  async function logOut(page: Page): Promise<void> {
    await page.goto(`${base}/auth/account`);
    await page.getByRole('button', { name: 'Log out', exact: true }).click();
    // Not the account page's own URL: the log-out's navigation to the sign-in page must have happened.
    await page.waitForURL(`${base}/auth/login`);
  }

  it('adds a passkey, signs in with it (autofill and button), renames and removes it', async () => {
    await request(base)
      .post('/auth/register')
      .send({ username: 'alice', email: 'alice@example.com', password: PASSWORD })
      .expect(201);
    await server.waitFor(() => /verify-email\?token=/.test(server.stdout), 'the verification link');
    await request(base)
      .post('/auth/verify-email')
      .send({ token: server.lastLinkToken('verify-email') })
      .expect(200);

    const page = await browser.newPage();
    const authenticator = await VirtualAuthenticator.attach(page);
    // This page never autofills: Chromium's virtual authenticator answers a conditional request at once, which would
    // sign in whenever a sign-in page shows. The autofill has its own page below.
    await page.addInitScript('PublicKeyCredential.isConditionalMediationAvailable = async () => false;');
    await page.goto(`${base}/auth/login`);
    // The library is served by Gatehouse and loaded under the pages' CSP: the passkey button shows.
    await page.getByRole('button', { name: 'Continue with a passkey' }).waitFor();
    expect(await page.evaluate('typeof SimpleWebAuthnBrowser')).to.equal('object');
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/auth/account`);

    // No passkey yet; adding one, once the sign-in is no longer recent, asks for the password first.
    await page.goto(`${base}/auth/security`);
    await page.getByText('You have no passkeys yet.').waitFor();
    await sleep(REAUTH_WINDOW_MS + 500);
    await page.getByLabel('Name of the passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    // No passkey yet, so the prompt does not offer one.
    expect(await page.locator('#reauth-passkey').isHidden()).to.equal(true);
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    expect(await noticeText(page)).to.include('The passkey “Work laptop” is added.');
    await rows(page).first().waitFor();
    expect(await rows(page).count()).to.equal(1);
    const added = await rows(page).first().innerText();
    expect(added).to.include('Work laptop');
    expect(added).to.include('Never');
    expect(added).to.match(/Synced|This device only/);
    expect(await authenticator.credentials()).to.have.length(1);
    // The same authenticator cannot hold a second passkey of the account (excludeCredentials).
    await page.getByLabel('Name of the passkey').fill('Again');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).to.include('already holds a passkey');
    expect(await rows(page).count()).to.equal(1);
    await page.screenshot({ path: join(SCREENSHOTS, 'passkeys-security.png'), fullPage: true });

    // Signed out, the button signs in with no username.
    await logOut(page);
    await page.goto(`${base}/auth/login`);
    await page.getByRole('button', { name: 'Continue with a passkey' }).click();
    await page.waitForURL(`${base}/auth/account`);
    expect(await page.getByLabel('Username').count()).to.equal(0);

    // In a tab with no session, the sign-in page's autofill (conditional mediation) offers the passkey; the virtual
    // authenticator picks it at once, as a person choosing it in the username field would. No username typed.
    const tab = await browser.newPage();
    const holder = await VirtualAuthenticator.attach(tab);
    for (const credential of await authenticator.credentials()) await holder.addCredential(credential);
    await tab.goto(`${base}/auth/login`, { waitUntil: 'commit' });
    await tab.waitForURL(`${base}/auth/account`);
    // One passkey in two authenticators: the first takes the counter the second moved on, or its next use would look
    // like a clone's.
    for (const used of await holder.credentials()) {
      await authenticator.removeCredential(used.credentialId);
      await authenticator.addCredential(used);
    }
    await tab.close();

    // Listed, with its last use now set; renamed.
    await page.goto(`${base}/auth/security`);
    await rows(page).first().waitFor();
    expect(await rows(page).first().innerText()).to.not.include('Never');
    await page.getByRole('button', { name: 'Rename the passkey Work laptop' }).click();
    expect(await page.getByLabel('New name').inputValue()).to.equal('Work laptop');
    await page.getByLabel('New name').fill('Old laptop');
    await page.getByRole('button', { name: 'Save the name' }).click();
    expect(await noticeText(page)).to.include('renamed “Old laptop”');
    expect(await rows(page).first().innerText()).to.include('Old laptop');

    // Removing it needs a recent proof: the prompt offers the passkey itself, which re-authenticates this session.
    const token = await page.evaluate<string | undefined>(
      'Object.entries(sessionStorage).filter(([key]) => key.startsWith("gatehouse.session")).map(([, value]) => value)[0]',
    );
    const sessions = async () =>
      (await request(base).get('/auth/sessions').set('Authorization', `Bearer ${token}`).expect(200)).body.sessions;
    const sessionsBefore = (await sessions()).map((session: { id: string }) => session.id);
    await sleep(REAUTH_WINDOW_MS + 500);
    await page.getByRole('button', { name: 'Remove the passkey Old laptop' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await page.getByRole('button', { name: 'Use a passkey instead' }).click();
    expect(await noticeText(page)).to.include('The passkey “Old laptop” is removed.');
    await page.getByText('You have no passkeys yet.').waitFor();
    expect(await rows(page).count()).to.equal(0);
    // Re-authenticating moved this session's proof and made no new session.
    expect((await sessions()).map((session: { id: string }) => session.id)).to.deep.equal(sessionsBefore);
    await page.screenshot({ path: join(SCREENSHOTS, 'passkeys-removed.png'), fullPage: true });

    // The page told the browser the passkey is gone (PublicKeyCredential.signalUnknownCredential and
    // signalAllAcceptedCredentials, which this Chromium has): its passkey manager, here the virtual
    // authenticator, dropped it, so it is offered no more.
    expect(await authenticator.credentials()).to.deep.equal([]);
    expect(consoleProblems).to.deep.equal([]);
  });
});
