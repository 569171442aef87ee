import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { runCli } from '../../src/cli/main';
import { createAccountService } from '../../src/di/create-account-service';
import type { AccountService } from '../../src/services/account-service';
import { silentLogger } from '../../src/services/logger';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { StandaloneServer } from '../server/standalone-server';
import { freePort } from '../support/free-port';
import { collectConsoleProblems, launchChromium, requireChromium } from './chromium';

const SCREENSHOTS = join(__dirname, '../../../test-artifacts/screenshots');
const PASSWORD = 'violet staircase 42 umbrella';
const NEW_PASSWORD = 'quiet lantern over 7 rivers';
const THIRD_PASSWORD = 'amber kettle under 9 bridges';
const SECRET = 'api-keys-journey-secret-key-0123456789-abcdef';
/** Short, so the test can outlive it: creating a key must then ask for the password first. */
const REAUTH_WINDOW_MS = 3_000;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The six base62 digits of the CRC32 of `text`, computed here again rather than by the code under test. */
function checksumOf(text: string): string {
  let value = crc32(text);
  let digits = '';
  for (let index = 0; index < 6; index++) {
    digits = BASE62[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

/**
 * The security page's API keys in a real browser, against `npm start` on SQLite: a person signs up, verifies and
 * signs in, is given a role by the operator (CLI), creates a key (the page asks for the password first, the window
 * being past), sees it once with a Copy button, and never again after a reload, where the list shows its last four
 * characters. The key is refused by Gatehouse's own routes, a second key's name clash is told in the API's words,
 * and the keys are revoked one and all, each after a confirmation. Then the password reset and change, which keep
 * the keys unless the box is ticked.
 */
describe('browser: API keys on the security page, end to end', function () {
  this.timeout(120_000);
  let cwd: string;
  let env: Record<string, string>;
  let server: StandaloneServer;
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  /** The core on the server's database file, as a host app beside it checks a key on its own routes. */
  let host: { store: SqliteUserStore; accounts: AccountService };
  const consoleProblems: string[] = [];

  const cli = (...argv: string[]) =>
    runCli(
      argv,
      env,
      () => undefined,
      () => undefined,
    );

  before(async function () {
    requireChromium(this);
    mkdirSync(SCREENSHOTS, { recursive: true });
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-browser-'));
    env = { GATEHOUSE_DATABASE_URL: `sqlite:${join(cwd, 'accounts.db')}`, GATEHOUSE_SECRET_KEY: SECRET };
    // What a host's operator sets up: a role whose permissions a key may carry.
    expect(await cli('create-role', 'reporter')).to.equal(0);
    for (const permission of ['reports.read', 'reports.write']) {
      expect(await cli('create-permission', permission)).to.equal(0);
      expect(await cli('grant-permission', 'reporter', permission)).to.equal(0);
    }
    server = await StandaloneServer.start(cwd, {
      ...env,
      PORT: String(await freePort()),
      GATEHOUSE_REAUTH_WINDOW: `${REAUTH_WINDOW_MS}ms`,
    });
    const store = await SqliteUserStore.open({ filename: join(cwd, 'accounts.db') });
    const options = { secretKey: SECRET };
    host = {
      store,
      accounts: createAccountService({ store, sender: new RecordingEmailSender(), options, logger: silentLogger }),
    };
    ({ browser, close: closeBrowser } = await launchChromium());
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    collectConsoleProblems(browser, consoleProblems);
  });

  after(async () => {
    await closeBrowser?.();
    await server?.stop('SIGKILL');
    await host?.store.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  async function alertText(page: Page): Promise<string> {
    const alert = page.getByRole('alert');
    await alert.waitFor();
    return (await alert.textContent()) ?? '';
  }
  const notice = (page: Page, text: string | RegExp) => page.getByRole('status').getByText(text).waitFor();
  const keyRows = (page: Page) => page.locator('#api-keys-body tr');
  const keyField = (page: Page) => page.locator('#api-key-created-value');
  const sessionToken = (page: Page) =>
    page.evaluate<string | undefined>(
      'Object.entries(sessionStorage).filter(([key]) => key.startsWith("gatehouse.session")).map(([, value]) => value)[0]',
    );
  /** Everything the page keeps in web storage, as one string. */
  const webStorage = (page: Page) =>
    page.evaluate<string>('JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage)])');
  const listed = async (token: string) =>
    (await request(server.url).get('/auth/api-keys').set('Authorization', `Bearer ${token}`).expect(200)).body
      .api_keys as { name: string; last_four: string; scopes: string[] }[];

  async function signIn(page: Page, password = PASSWORD): Promise<void> {
    await page.goto(`${server.url}/auth/login`);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/auth/account`);
  }

  async function createKey(page: Page, name: string, scopes: string[], days?: number): Promise<void> {
    await page.getByLabel('Name of the key').fill(name);
    for (const scope of scopes) await page.locator('#api-key-scopes-list').getByLabel(scope).check();
    if (days !== undefined) await page.getByLabel('Lifetime in days').fill(String(days));
    await page.getByRole('button', { name: 'Create the API key' }).click();
  }

  it('signs up, creates a key after re-authenticating, shows it once, lists it, and revokes one and all', async () => {
    const page = await browser.newPage();

    // Sign up and verify through the pages; the console mailer prints the link.
    await page.goto(`${server.url}/auth/register`);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Email address', { exact: true }).fill('alice@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await server.waitFor(() => server.stdout.includes('/verify-email?token='), 'the verification link');
    await page.goto(`${server.url}/auth/verify-email?token=${server.lastLinkToken('verify-email')}`);
    await page.getByRole('button', { name: 'Confirm for alice' }).click();
    await page.getByRole('heading', { name: 'Your email address is confirmed' }).waitFor();

    // Holding no permission, there is nothing a key could carry: no form, and the page says why.
    await signIn(page);
    await page.goto(`${server.url}/auth/security`);
    await page.getByText('You hold no permission a key could carry').waitFor();
    expect(await page.locator('#api-key-create-form').isHidden()).to.equal(true);
    expect(await cli('grant-role', 'alice', 'reporter')).to.equal(0);
    await page.reload();
    await page.getByText('You have no API keys.').waitFor();
    await page.getByRole('button', { name: 'Create the API key' }).waitFor();
    // The boxes are the permissions alice holds, and nothing of Gatehouse's own.
    const scopeLabels = await page.locator('#api-key-scopes-list label').allInnerTexts();
    expect(scopeLabels).to.deep.equal(['reports.read', 'reports.write']);
    expect(await page.getByLabel('Lifetime in days').inputValue()).to.equal('30');
    await page.screenshot({ path: join(SCREENSHOTS, 'api-keys-none.png'), fullPage: true });

    // No scope ticked: told before anything is sent.
    await page.getByLabel('Name of the key').fill('Nightly report');
    await page.getByRole('button', { name: 'Create the API key' }).click();
    expect(await alertText(page)).to.equal('Choose at least one scope');

    // Past the re-authentication window, the creation asks for the password, then goes on by itself.
    await page.waitForTimeout(REAUTH_WINDOW_MS + 500);
    await createKey(page, 'Nightly report', ['reports.read']);
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    expect(await keyRows(page).count()).to.equal(0);
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    await page.getByRole('heading', { name: 'Your new API key' }).waitFor();
    expect(await page.getByText('it will not be shown again').count()).to.equal(1);
    const key = await keyField(page).inputValue();
    // The configured prefix, 32 random base62 characters and the CRC32 of all before, in six base62 digits.
    expect(key).to.match(/^gatehouse_[0-9A-Za-z]{38}$/);
    expect(key.slice(-6)).to.equal(checksumOf(key.slice(0, -6)));
    expect(await keyField(page).getAttribute('readonly')).to.equal('');
    await page.screenshot({ path: join(SCREENSHOTS, 'api-keys-created.png'), fullPage: true });

    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await notice(page, /^The key is copied/);
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).to.equal(key);

    // Listed by its last four characters, with its scope, its creator and no use yet.
    await keyRows(page).first().waitFor();
    expect(await keyRows(page).count()).to.equal(1);
    const row = await keyRows(page).first().innerText();
    for (const text of ['Nightly report', `…${key.slice(-4)}`, 'reports.read', 'Never', 'alice']) {
      expect(row).to.include(text);
    }
    expect(row).to.not.include(key.slice(0, -4));
    // Never kept anywhere the next page could read it.
    expect(await webStorage(page)).to.not.include(key);

    // A host app's check: the key is live, carries its scope and not the other, and its use is recorded.
    const checked = await host.accounts.checkApiKey(key, 'reports.read', '203.0.113.7');
    expect(checked?.user.username).to.equal('alice');
    expect(checked?.scopes).to.deep.equal(['reports.read']);
    await host.accounts.drain();

    // A key is no credential for Gatehouse itself.
    const refused = await request(server.url).get('/auth/api-keys').set('Authorization', `Bearer ${key}`).expect(403);
    expect(refused.body.detail.code).to.equal('api_key_not_allowed');
    const token = (await sessionToken(page))!;
    const [only] = await listed(token);
    expect(only).to.deep.include({ name: 'Nightly report', last_four: key.slice(-4), scopes: ['reports.read'] });

    // After a reload the key is gone for good: only its last four remain.
    await page.reload();
    await keyRows(page).first().waitFor();
    expect(await page.locator('#api-key-created').isHidden()).to.equal(true);
    expect(await keyField(page).inputValue()).to.equal('');
    expect(await page.content()).to.not.include(key);
    expect(await keyRows(page).first().innerText()).to.include(`…${key.slice(-4)}`);
    expect(await keyRows(page).first().innerText()).to.include('from 203.0.113.7');
    expect(await keyRows(page).first().innerText()).to.not.include('Never');

    // A second key, within the window now: no prompt. Then the same name again: the API's words, and no key shown.
    await createKey(page, 'Build server', ['reports.read', 'reports.write'], 7);
    await page.getByRole('heading', { name: 'Your new API key' }).waitFor();
    const second = await keyField(page).inputValue();
    expect(second).to.match(/^gatehouse_[0-9A-Za-z]{38}$/);
    expect(second).to.not.equal(key);
    expect(await keyRows(page).count()).to.equal(2);
    await createKey(page, 'Build server', ['reports.read']);
    const clash = await alertText(page);
    // The API's own words: what it answers a fresh session for the same name.
    const fresh = (
      await request(server.url).post('/auth/login').send({ username: 'alice', password: PASSWORD }).expect(200)
    ).body.access_token as string;
    const refusal = await request(server.url)
      .post('/auth/api-keys')
      .set('Authorization', `Bearer ${fresh}`)
      .send({ name: 'Build server', scopes: ['reports.read'] })
      .expect(409);
    expect(refusal.body.detail.code).to.equal('api_key_name_taken');
    expect(clash.trim()).to.equal(refusal.body.detail.detail);
    expect(await keyField(page).inputValue(), 'the shown key is wiped by the next creation').to.equal('');
    expect(await page.locator('#api-key-created').isHidden()).to.equal(true);
    expect(await page.getByLabel('Name of the key').getAttribute('aria-invalid')).to.equal('true');
    expect(await keyRows(page).count()).to.equal(2);

    // Revoking one asks first; Cancel changes nothing.
    const nightly = keyRows(page).filter({ hasText: 'Nightly report' });
    await nightly.getByRole('button', { name: 'Revoke the API key Nightly report' }).click();
    await page.getByRole('heading', { name: 'Revoke the API key “Nightly report”?' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.locator('#api-key-revoke-confirm').isHidden()).to.equal(true);
    expect(await listed(token)).to.have.length(2);
    await nightly.getByRole('button', { name: 'Revoke the API key Nightly report' }).click();
    await page.getByRole('button', { name: 'Revoke the key' }).click();
    await notice(page, 'The API key “Nightly report” is revoked.');
    expect(await keyRows(page).count()).to.equal(1);
    expect((await listed(token)).map((listedKey) => listedKey.name)).to.deep.equal(['Build server']);
    expect(await host.accounts.checkApiKey(key, 'reports.read'), 'revoked: refused at once').to.equal(null);
    expect(await host.accounts.checkApiKey(second, 'reports.write')).to.not.equal(null);

    // And all.
    await page.getByRole('button', { name: 'Revoke all API keys' }).click();
    await page.getByRole('heading', { name: 'Revoke all your API keys?' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'api-keys-revoke-all.png'), fullPage: true });
    await page.getByRole('button', { name: 'Revoke all keys' }).click();
    await notice(page, 'Your API key is revoked.');
    await page.getByText('You have no API keys.').waitFor();
    expect(await page.getByRole('button', { name: 'Revoke all API keys' }).isHidden()).to.equal(true);
    expect(await listed(token)).to.deep.equal([]);
    expect(await host.accounts.checkApiKey(second, 'reports.write')).to.equal(null);
    expect(await webStorage(page)).to.not.include(second);
    expect(consoleProblems).to.deep.equal([]);
    await page.close();
  });

  it('a password reset keeps the keys unless ticked; a password change revokes them when ticked', async () => {
    const signedIn = async (password: string) =>
      (await request(server.url).post('/auth/login').send({ username: 'alice', password }).expect(200)).body
        .access_token as string;
    /** A key made over the API, with a session just signed in (so recent enough to create one). */
    const createdOverApi = async (password: string, name: string) =>
      request(server.url)
        .post('/auth/api-keys')
        .set('Authorization', `Bearer ${await signedIn(password)}`)
        .send({ name, scopes: ['reports.read'] })
        .expect(201);
    const page = await browser.newPage();
    const reset = async (password: string, revoke: boolean) => {
      const before = server.stdout.split('/password-reset?token=').length;
      await request(server.url).post('/auth/password-reset/request').send({ email: 'alice@example.com' }).expect(200);
      await server.waitFor(() => server.stdout.split('/password-reset?token=').length > before, 'the reset link');
      await page.goto(`${server.url}/auth/password-reset?token=${server.lastLinkToken('password-reset')}`);
      await page.getByLabel('New password', { exact: true }).fill(password);
      await page.getByLabel('New password again').fill(password);
      const box = page.getByLabel('Also revoke all my API keys');
      expect(await box.isChecked(), 'unticked by default').to.equal(false);
      if (revoke) await box.check();
      await page.getByRole('button', { name: 'Set the new password' }).click();
      await page.getByRole('heading', { name: 'Your password has been changed' }).waitFor();
    };

    // A reset, box unticked: the keys stay, and the page says so and where to revoke them.
    expect((await createdOverApi(PASSWORD, 'Kept')).body.key).to.match(/^gatehouse_/);
    await reset(NEW_PASSWORD, false);
    await page.getByText('Your API keys keep working unless you revoke them.').waitFor();
    expect(await page.getByRole('link', { name: 'security page' }).getAttribute('href')).to.equal('/auth/security');
    expect((await listed(await signedIn(NEW_PASSWORD))).map((key) => key.name)).to.deep.equal(['Kept']);
    await page.screenshot({ path: join(SCREENSHOTS, 'api-keys-reset-kept.png'), fullPage: true });

    // A change of password on the account page, box ticked: every key goes with the old password.
    await signIn(page, NEW_PASSWORD);
    await page.getByLabel('Current password').fill(NEW_PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill(THIRD_PASSWORD);
    await page.getByLabel('New password again').fill(THIRD_PASSWORD);
    expect(await page.getByLabel('Also revoke all my API keys').isChecked()).to.equal(false);
    await page.getByLabel('Also revoke all my API keys').check();
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(`${server.url}/auth/login`);
    await notice(page, /every API key revoked/);
    expect(await listed(await signedIn(THIRD_PASSWORD))).to.deep.equal([]);

    // A reset, box ticked: the new key goes too, and the page says so.
    await createdOverApi(THIRD_PASSWORD, 'Short-lived');
    await reset(PASSWORD, true);
    await page.getByText('Your API keys are revoked').waitFor();
    expect(await page.getByText('Your API keys keep working unless you revoke them.').isHidden()).to.equal(true);
    expect(await listed(await signedIn(PASSWORD))).to.deep.equal([]);
    expect(consoleProblems).to.deep.equal([]);
    await page.close();
  });
});
