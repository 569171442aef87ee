import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { BrowserContext, Page, Request } from 'playwright-core';
import request from 'supertest';
import { createAccountService } from '../../src/di/create-account-service';
import { silentLogger } from '../../src/services/logger';
import { SqliteUserStore } from '../../src/stores/sqlite-user-store';
import { StandaloneServer } from '../server/standalone-server';
import { freePort } from '../support/free-port';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { totpCode } from '../support/rfc6238';
import { collectConsoleProblems, launchChromium, requireChromium } from './chromium';

const SCREENSHOTS = join(__dirname, '../../../test-artifacts/screenshots');
const PASSWORD = 'violet staircase 42 umbrella';
const SECRET = 'admin-journey-secret-key-0123456789-abcdef';

/**
 * The administration page in a real browser, against `npm start`: an administrator (made through the core, as the
 * CLI's `admin grant` does) signs in, finds an account by the start of its name, disables it (its session stops at
 * once and its sign-in is refused), reads its audit events, enables it, grants and revokes a role, and deletes
 * another account after the confirm step. A person without the permission sees the API's refusal; nobody signed in
 * a link to the sign-in page. Once the administrator has two-factor sign-in on, confirming a change takes a code too.
 */
describe('browser: the administration page, end to end', function () {
  this.timeout(120_000);
  let cwd: string;
  let database: string;
  let server: StandaloneServer;
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  const requests: Request[] = [];
  const consoleProblems: string[] = [];

  before(async function () {
    requireChromium(this);
    mkdirSync(SCREENSHOTS, { recursive: true });
    cwd = mkdtempSync(join(tmpdir(), 'gatehouse-browser-'));
    database = join(cwd, 'accounts.db');
    // Four verified accounts, one administrator and one reader, written through the core into the file the server then opens.
    const store = await SqliteUserStore.open({ filename: database });
    const sender = new RecordingEmailSender();
    const accounts = createAccountService({ store, sender, options: { secretKey: SECRET }, logger: silentLogger });
    for (const username of ['alice', 'bob', 'carol', 'dave']) {
      const email = `${username}@example.com`;
      await accounts.register({ username, email, password: PASSWORD });
      await accounts.drain();
      await accounts.verifyEmail(sender.lastToken('sendVerification', email));
    }
    expect(await accounts.admin.makeAdministrator('alice')).to.equal(true);
    // dave may read accounts and their events, and change nothing.
    await accounts.access.createRole('support');
    await accounts.access.grantPermission('support', 'gatehouse.users.read');
    await accounts.access.grantPermission('support', 'gatehouse.audit.read');
    await accounts.access.grantRole('dave', 'support');
    await accounts.drain();
    await store.close();

    server = await StandaloneServer.start(cwd, {
      PORT: String(await freePort()),
      GATEHOUSE_DATABASE_URL: `sqlite:${database}`,
      GATEHOUSE_SECRET_KEY: SECRET,
    });
    ({ browser, close: closeBrowser } = await launchChromium());
    browser.on('request', (sent) => requests.push(sent));
    collectConsoleProblems(browser, consoleProblems);
  });

  after(async () => {
    await closeBrowser?.();
    await server?.stop('SIGKILL');
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  async function signIn(page: Page, username: string): Promise<void> {
    await page.goto(`${server.url}/auth/login`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/auth/account`);
    await page.goto(`${server.url}/auth/admin`);
  }
  async function alertText(page: Page): Promise<string> {
    const alert = page.getByRole('alert');
    await alert.waitFor();
    return (await alert.textContent()) ?? '';
  }
  const notice = (page: Page, text: string | RegExp) => page.getByRole('status').getByText(text).waitFor();
  const userRows = (page: Page) => page.locator('#users-body tr');
  const eventRows = (page: Page) => page.locator('#events-body tr');
  // The administrator's own reads are recorded too (viewing the account, reading its trail); these are the changes.
  const changeRows = (page: Page) => eventRows(page).filter({ hasNotText: /admin\.(user_viewed|audit_read)/ });
  /** The value the details list shows beside `label`. */
  const detail = (page: Page, label: string) =>
    page.locator('#user-details dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');
  const apiLogin = (username: string) => request(server.url).post('/auth/login').send({ username, password: PASSWORD });

  it('nobody signed in: a link to the sign-in page', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/auth/admin`);
    await page.getByText('You are not signed in.').waitFor();
    expect(await page.getByRole('link', { name: 'Sign in' }).getAttribute('href')).to.equal('/auth/login');
    expect(await page.locator('#signed-in').isHidden()).to.equal(true);
    await page.close();
  });

  it('signed in without the permission: the API’s refusal, and nothing of the administration', async () => {
    const page = await browser.newPage();
    await signIn(page, 'carol');
    const refusal = (
      await request(server.url)
        .get('/auth/admin/users')
        .set('Authorization', `Bearer ${(await apiLogin('carol').expect(200)).body.access_token}`)
        .expect(403)
    ).body.detail;
    expect(refusal.code).to.equal('permission_denied');
    expect((await alertText(page)).trim()).to.equal(refusal.detail);
    expect(await page.locator('#signed-in').isHidden()).to.equal(true);
    expect(await page.getByRole('link', { name: 'Back to your account' }).isVisible()).to.equal(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'admin-denied.png'), fullPage: true });
    await page.close();
  });

  it('allowed to read, not to change: the accounts and events show, and a refused action says why in place', async () => {
    const page = await browser.newPage();
    await signIn(page, 'dave');
    await page.getByRole('button', { name: 'bob', exact: true }).click();
    await page.getByRole('heading', { name: 'bob', exact: true }).waitFor();
    await eventRows(page).first().waitFor();
    const bobId = await detail(page, 'Id').innerText();
    await page.getByRole('button', { name: 'Disable the account' }).click();
    const dave = (await apiLogin('dave').expect(200)).body.access_token as string;
    const refusal = (
      await request(server.url)
        .post(`/auth/admin/users/${bobId}/disable`)
        .set('Authorization', `Bearer ${dave}`)
        .expect(403)
    ).body.detail;
    expect((await alertText(page)).trim()).to.equal(refusal.detail);
    expect(await page.locator('#user').isVisible()).to.equal(true);
    expect(await page.locator('#signed-in').isVisible()).to.equal(true);
    expect(await page.locator('#denied').isHidden()).to.equal(true);
    expect(await detail(page, 'Disabled').innerText()).to.equal('No');
    await page.close();
  });

  it('an administrator finds an account, disables it, reads its audit events, enables it, manages roles, deletes another', async () => {
    const bob = (await apiLogin('bob').expect(200)).body.access_token as string;
    const page = await browser.newPage();
    await signIn(page, 'alice');
    await userRows(page).nth(3).waitFor();
    expect(await userRows(page).count()).to.equal(4);
    // Newest first.
    expect(await userRows(page).nth(0).innerText()).to.include('dave');
    expect(await page.locator('#users-next-button').isHidden()).to.equal(true);

    await page.getByLabel('Username or email address starts with').fill('BO');
    await page.getByRole('button', { name: 'Search' }).click();
    // Locators, not waitForFunction: a predicate given as a string is eval, which the page's CSP refuses.
    await userRows(page).filter({ hasText: 'alice' }).waitFor({ state: 'detached' });
    expect(await userRows(page).count()).to.equal(1);
    expect(await userRows(page).first().innerText()).to.include('bob@example.com');
    await page.getByRole('button', { name: 'bob', exact: true }).click();
    await page.getByRole('heading', { name: 'bob', exact: true }).waitFor();
    expect(await detail(page, 'Verified').innerText()).to.equal('Yes');
    expect(await detail(page, 'Disabled').innerText()).to.equal('No');
    expect(await detail(page, 'Sessions').innerText()).to.equal('1');
    expect(await detail(page, 'Roles').innerText()).to.equal('None');
    expect(await detail(page, 'Two-factor sign-in').innerText()).to.equal('Off');
    expect(await detail(page, 'Last sign-in').locator('time').getAttribute('datetime')).to.match(/^\d{4}-\d\d-\d\dT/);
    expect(await page.getByRole('button', { name: 'Mark the address verified' }).isHidden()).to.equal(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'admin-user.png'), fullPage: true });

    // The administrator's password was proved too long ago: the page asks for it, then does what was asked.
    const sqlite = new Database(database);
    sqlite.prepare('update sessions set authenticated_at = 0').run();
    sqlite.close();
    await page.getByRole('button', { name: 'Disable the account' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    expect(await page.locator('#reauth-code').isHidden(), 'no code asked without two-factor sign-in').to.equal(true);
    expect(await detail(page, 'Disabled').innerText()).to.equal('No');
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    await notice(page, 'bob is disabled: every session has ended, and signing in is refused.');
    expect(await page.locator('#reauth').isHidden()).to.equal(true);
    expect(await detail(page, 'Disabled').locator('time').count()).to.equal(1);
    expect(await detail(page, 'Sessions').innerText()).to.equal('0');
    expect(await userRows(page).first().locator('td').nth(3).innerText()).to.equal('Yes');
    expect(await page.getByRole('button', { name: 'Enable the account' }).isVisible()).to.equal(true);
    // Newest first: the disabling, by the administrator, then bob's own sign-in.
    const newest = await changeRows(page).first().innerText();
    expect(newest).to.include('admin.user_disabled');
    expect(newest).to.include('success');
    expect(newest).to.match(/Administrator [0-9a-f-]{36}/);
    expect(await page.locator('#events-body').innerText()).to.include('login');
    await page.screenshot({ path: join(SCREENSHOTS, 'admin-disabled.png'), fullPage: true });
    // It took effect: bob's session is dead, and his right password is refused in words.
    await request(server.url).get('/auth/me').set('Authorization', `Bearer ${bob}`).expect(401);
    expect((await apiLogin('bob').expect(403)).body.detail.code).to.equal('account_disabled');

    await page.getByRole('button', { name: 'Enable the account' }).click();
    await notice(page, 'bob can sign in again.');
    expect(await changeRows(page).first().innerText()).to.include('admin.user_enabled');
    await apiLogin('bob').expect(200);

    // Roles by name: an unknown one is refused beside the field; a real one is granted, then revoked.
    await page.getByLabel('Role name').fill('no-such-role');
    await page.getByRole('button', { name: 'Grant the role' }).click();
    await alertText(page);
    expect(await page.getByLabel('Role name').getAttribute('aria-invalid')).to.equal('true');
    await page.getByLabel('Role name').fill('gatehouse-admin');
    await page.getByRole('button', { name: 'Grant the role' }).click();
    await notice(page, 'bob has the role gatehouse-admin.');
    expect(await detail(page, 'Roles').innerText()).to.equal('gatehouse-admin');
    expect(await detail(page, 'Permissions').innerText()).to.include('gatehouse.users.manage');
    await page.getByLabel('Role name').fill('gatehouse-admin');
    await page.getByRole('button', { name: 'Revoke the role' }).click();
    await notice(page, 'bob no longer has the role gatehouse-admin.');
    expect(await detail(page, 'Roles').innerText()).to.equal('None');
    expect(await changeRows(page).first().innerText()).to.include('admin.role_revoked');

    // Deleting takes the confirm step; cancelling it deletes nothing.
    await page.getByLabel('Username or email address starts with').fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await userRows(page).nth(3).waitFor();
    await page.getByRole('button', { name: 'carol', exact: true }).click();
    await page.getByRole('heading', { name: 'carol', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete the account' }).click();
    await page.getByRole('heading', { name: 'Delete this account?' }).waitFor();
    expect(await page.locator('#delete-confirm-text').innerText()).to.include('carol (carol@example.com)');
    await page.screenshot({ path: join(SCREENSHOTS, 'admin-delete-confirm.png'), fullPage: true });
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.locator('#delete-confirm').isHidden()).to.equal(true);
    await apiLogin('carol').expect(200);
    await page.getByRole('button', { name: 'Delete the account' }).click();
    await page.getByRole('button', { name: 'Delete it for good' }).click();
    await notice(page, 'carol is deleted.');
    expect(await page.locator('#user').isHidden()).to.equal(true);
    expect(await userRows(page).count()).to.equal(3);
    expect(await page.locator('#users-body').innerText()).to.not.include('carol');
    await apiLogin('carol').expect(401);

    // Nothing left the origin, and the CSP refused nothing.
    const origin = new URL(server.url).origin;
    for (const sent of requests) expect(new URL(sent.url()).origin, sent.url()).to.equal(origin);
    expect(consoleProblems, consoleProblems.join('\n')).to.deep.equal([]);
  });

  it('an administrator with two-factor sign-in on confirms a change with the password and a code, never the password alone', async () => {
    const api = request(server.url);
    // alice turns two-factor sign-in on through the API (her other sessions end with it).
    const setUp = (await apiLogin('alice').expect(200)).body.access_token as string;
    const started = await api.post('/auth/second-factor/totp').set('Authorization', `Bearer ${setUp}`).expect(200);
    const secret = started.body.secret as string;
    const confirmed = await api
      .post('/auth/second-factor/totp/confirm')
      .set('Authorization', `Bearer ${setUp}`)
      .send({ code: totpCode(secret, new Date()) })
      .expect(200);
    const recoveryCodes = confirmed.body.recovery_codes as string[];

    // Signed in with the password and a recovery code, so that the app's codes are left for confirming below.
    const page = await browser.newPage();
    await page.goto(`${server.url}/auth/login`);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${server.url}/auth/account`);
    await page.goto(`${server.url}/auth/admin`);
    await userRows(page).first().waitFor();
    // The page asked whether the administrator has a second factor: the code is required before anything is sent.
    await page.locator('#reauth-form-code[required]').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'bob', exact: true }).click();
    await page.getByRole('heading', { name: 'bob', exact: true }).waitFor();
    const bob = (await apiLogin('bob').expect(200)).body.access_token as string;

    const reauthentications = () =>
      requests.filter((sent) => sent.method() === 'POST' && new URL(sent.url()).pathname === '/auth/reauthenticate');
    const sentBefore = reauthentications().length;
    const sqlite = new Database(database);
    sqlite.prepare('update sessions set authenticated_at = 0').run();
    sqlite.close();
    await page.getByRole('button', { name: 'End all sessions' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    expect(await page.locator('#reauth-code').isVisible()).to.equal(true);
    // The password alone is not sent: the code is asked for beside its field.
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    expect(await alertText(page)).to.include('Enter a code from your authenticator app');
    expect(await page.locator('#reauth-form-code').getAttribute('aria-invalid')).to.equal('true');
    expect(reauthentications().length).to.equal(sentBefore);
    // A wrong code is refused by the API, beside the field, and nothing is done.
    await page.locator('#reauth-form-code').fill('aaaa-bbbb-cccc-dddd');
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    await page.getByRole('alert').getByText('That code is not right').waitFor();
    await request(server.url).get('/auth/me').set('Authorization', `Bearer ${bob}`).expect(200);
    await page.screenshot({ path: join(SCREENSHOTS, 'admin-reauth-second-factor.png'), fullPage: true });
    // The password and the app's code ("123 456", as apps show it): confirmed, and the action sent again.
    const code = totpCode(secret, new Date(), 1);
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.locator('#reauth-form-code').fill(`${code.slice(0, 3)} ${code.slice(3)}`);
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    await notice(page, /^\d+ sessions? of bob ended\.$/);
    expect(await page.locator('#reauth').isHidden()).to.equal(true);
    await request(server.url).get('/auth/me').set('Authorization', `Bearer ${bob}`).expect(401);
    expect(await changeRows(page).first().innerText()).to.include('admin.sessions_ended');
    // Every re-authentication the page sent carried a code, the last one the app's six digits.
    const sent = reauthentications().slice(sentBefore);
    expect(sent).to.have.length(2);
    for (const one of sent) expect(JSON.parse(one.postData() ?? '{}')).to.have.property('code');
    expect(JSON.parse(sent[1].postData() ?? '{}').code).to.equal(code);
    // The recovery code spent at sign-in is the only one gone: the app's code proved the change.
    const status = await api.get('/auth/second-factor').set('Authorization', `Bearer ${setUp}`).expect(200);
    expect(status.body.recovery_codes_left).to.equal(recoveryCodes.length - 1);
    expect(consoleProblems, consoleProblems.join('\n')).to.deep.equal([]);
    await page.close();
  });
});
