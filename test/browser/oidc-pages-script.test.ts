import { expect } from 'chai';
import Koa from 'koa';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { useContainer } from 'routing-controllers';
import request from 'supertest';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { mountAccountRoutes } from '../../src/koa/mount-account-routes';
import type { OidcOptions } from '../../src/services/oidc/oidc-options';
import { PASSWORD, resetContainer } from '../support/test-app';
import { collectConsoleProblems, launchChromium, requireChromium } from './chromium';

const OIDC: OidcOptions = {
  callbackBase: 'http://localhost:3000/auth',
  providers: [
    { id: 'google', preset: 'google', clientId: 'google-client', clientSecret: 'google-secret-value' },
    { id: 'corp', name: 'Corp', issuer: 'https://idp.example.com', clientId: 'corp', clientSecret: 'corp-secret' },
  ],
};
const PROVIDER_PAGE = 'https://provider.test/authorize';

interface Identity {
  id: string;
  provider: string;
  provider_name: string;
  email: string | null;
  linked_at: string;
  last_used_at: string | null;
  configured: boolean;
}

/**
 * The pages' script for OpenID providers in Chromium, under the pages' CSP and Trusted Types: the return page and
 * the security page's linked providers. The provider routes (/oidc/...) are played by a stub in front of the real
 * account routes, answering as the design's routes table says, so these tests hold the script to those answers;
 * the journey against a real provider is test/browser/oidc-journey.test.ts. Sessions, the second step and the
 * re-authentication are the real routes'.
 */
describe('browser: the OpenID provider pages’ script', function () {
  this.timeout(120_000);
  let server: Server;
  let base: string;
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  const consoleProblems: string[] = [];
  /** What the stub was sent: each exchange's code, each unlink's and link's target. */
  const calls: string[] = [];
  let token = '';
  let identities: Identity[] = [];
  let unlinkRefusals = 0;

  async function bodyOf(ctx: Koa.Context): Promise<Record<string, unknown>> {
    let raw = '';
    for await (const chunk of ctx.req) raw += String(chunk);
    return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  }
  const refuse = (ctx: Koa.Context, status: number, code: string, detail: string) => {
    ctx.status = status;
    ctx.body = { detail: { detail, code } };
  };

  /** The provider routes as the routes table of the design describes them. */
  const stub: Koa.Middleware = async (ctx, next) => {
    const { method, path } = ctx;
    if (method === 'GET' && path === '/auth/oidc/corp/start') {
      // As the provider's round trip ends: on the return page, the code in the fragment.
      return ctx.redirect('/auth/oidc/return#code=taken');
    }
    if (method === 'POST' && path === '/auth/oidc/exchange') {
      const code = String((await bodyOf(ctx)).code);
      calls.push(`exchange ${code}`);
      if (code === 'session') ctx.body = { access_token: token, token_type: 'bearer' };
      else if (code === 'challenge') {
        ctx.body = {
          second_factor_required: true,
          challenge_token: 'x'.repeat(43),
          methods: ['totp', 'recovery_code'],
        };
      } else if (code === 'linked') ctx.body = { linked: { id: 'i-3', provider: 'google', provider_name: 'Google' } };
      else if (code === 'taken') refuse(ctx, 409, 'link_required', 'An account holds this address.');
      else refuse(ctx, 400, 'invalid_oidc_code', 'Unknown code.');
      return;
    }
    if (method === 'GET' && path === '/auth/oidc/identities') {
      ctx.body = { identities };
      return;
    }
    const unlink = /^\/auth\/oidc\/identities\/([^/]+)$/.exec(path);
    if (method === 'DELETE' && unlink) {
      calls.push(`unlink ${unlink[1]}`);
      if (unlinkRefusals++ === 0) return refuse(ctx, 403, 'reauthentication_required', 'Confirm it is you.');
      identities = identities.filter((identity) => identity.id !== unlink[1]);
      ctx.status = 204;
      return;
    }
    const link = /^\/auth\/oidc\/([a-z0-9-]+)\/link$/.exec(path);
    if (method === 'POST' && link) {
      calls.push(`link ${link[1]} ${JSON.stringify(await bodyOf(ctx))}`);
      ctx.set('Set-Cookie', `gatehouse_oidc=secret; Path=/auth/oidc/${link[1]}/callback; HttpOnly; SameSite=Lax`);
      ctx.body = { authorizationUrl: `${PROVIDER_PAGE}?client_id=x` };
      return;
    }
    await next();
  };

  before(async function () {
    requireChromium(this);
    const { sender } = resetContainer();
    useContainer(Container);
    const app = new Koa();
    app.use(stub);
    mountAccountRoutes(app, { prefix: '/auth', pages: true });
    Container.set(ACCOUNT_OPTIONS, { ...Container.get(ACCOUNT_OPTIONS), oidc: OIDC });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const http = request(base);
    await http.post('/auth/register').send({ username: 'alice', email: 'alice@example.com', password: PASSWORD });
    await resolveAccountService().drain();
    await http.post('/auth/verify-email').send({ token: sender.lastToken('sendVerification', 'alice@example.com') });
    token = (await http.post('/auth/login').send({ username: 'alice', password: PASSWORD }).expect(200)).body
      .access_token as string;
    ({ browser, close: closeBrowser } = await launchChromium());
    collectConsoleProblems(browser, consoleProblems);
    // The provider: its page sends the browser straight back, as one that remembers its user would.
    await browser.route(`${PROVIDER_PAGE}**`, (route) =>
      route.fulfill({ status: 302, headers: { Location: `${base}/auth/oidc/return#code=linked` } }),
    );
  });

  after(async () => {
    await closeBrowser?.();
    await new Promise((resolve) => server?.close(resolve));
  });

  beforeEach(() => {
    calls.length = 0;
    consoleProblems.length = 0;
  });
  afterEach(() => expect(consoleProblems).to.deep.equal([]));

  const storedSession = (page: Page) =>
    page.evaluate<string | null>("sessionStorage.getItem('gatehouse.session /auth')");
  async function alertText(page: Page): Promise<string> {
    const alert = page.getByRole('alert');
    await alert.waitFor();
    return (await alert.textContent()) ?? '';
  }

  it('a session: the code is sent once and taken out of the address bar, the session kept, the account page opens', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/auth/oidc/return#code=session`);
    await page.waitForURL(`${base}/auth/account`);
    expect(calls).to.deep.equal(['exchange session']);
    expect(await storedSession(page)).to.equal(token);
    // The return page's history entry has no fragment left: going back sends nothing again.
    await page.goBack();
    await page.getByRole('alert').waitFor();
    expect(page.url()).to.equal(`${base}/auth/oidc/return`);
    expect(calls).to.deep.equal(['exchange session']);
    await page.close();
  });

  it('"Continue with Corp" then link_required: the message names the provider and leads to the sign-in page', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/auth/login`);
    await page.getByRole('link', { name: 'Continue with Corp' }).click();
    await page.getByRole('heading', { name: 'This address has an account already' }).waitFor();
    expect(page.url()).to.equal(`${base}/auth/oidc/return`);
    expect(await page.locator('#oidc-link-required-text').textContent()).to.equal(
      'An account already uses the address Corp gave. If it is yours, sign in to it and link Corp from the ' +
        'security page.',
    );
    expect(await storedSession(page)).to.equal(null);
    await page.getByRole('link', { name: 'Go to the sign-in page' }).click();
    await page.waitForURL(`${base}/auth/login`);
    await page.close();
  });

  it('a second-factor challenge shows the sign-in page’s second step; "Start again" goes to the sign-in page', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/auth/oidc/return#code=challenge`);
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    expect(await page.getByText('Your provider confirmed who you are.').isVisible()).to.equal(true);
    await page.getByLabel('Code from your authenticator app').fill('123 456');
    await page.getByRole('button', { name: 'Continue' }).first().click();
    // The real route does not know the challenge: the page says so and offers the way back.
    expect(await alertText(page)).to.include('Start again from the sign-in page.');
    expect(await page.getByRole('link', { name: 'Back to the sign-in page' }).isVisible()).to.equal(true);
    // From another page: a change of fragment alone would not load the page again.
    await page.goto('about:blank');
    await page.goto(`${base}/auth/oidc/return#code=challenge`);
    await page.getByRole('button', { name: 'Start again' }).click();
    await page.waitForURL(`${base}/auth/login`);
    await page.close();
  });

  it('an error in the fragment, or a refused code, is said in words with a way back; nothing is kept', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/auth/oidc/return#error=cancelled`);
    expect(await alertText(page)).to.equal('The sign-in was cancelled at your provider, so nothing changed here.');
    expect(calls).to.deep.equal([]);
    expect(page.url()).to.equal(`${base}/auth/oidc/return`);
    await page.goto('about:blank');
    await page.goto(`${base}/auth/oidc/return#code=forged`);
    expect(await alertText(page)).to.equal('This answer of your provider was used already or is too old. Start again.');
    expect(await page.getByRole('link', { name: 'Back to the sign-in page' }).isVisible()).to.equal(true);
    expect(await storedSession(page)).to.equal(null);
    await page.close();
  });

  it('the security page lists the identities, unlinks through the prompt, and links a provider not linked yet', async () => {
    identities = [
      {
        id: 'i-1',
        provider: 'corp',
        provider_name: 'Corp',
        email: 'alice@corp.example',
        linked_at: '2026-11-01T10:00:00.000Z',
        last_used_at: null,
        configured: true,
      },
      {
        id: 'i-2',
        provider: 'old',
        provider_name: 'old',
        email: null,
        linked_at: '2026-10-01T10:00:00.000Z',
        last_used_at: '2026-10-02T10:00:00.000Z',
        configured: false,
      },
    ];
    const page = await browser.newPage();
    await page.goto(`${base}/auth/login`);
    await page.evaluate(`sessionStorage.setItem('gatehouse.session /auth', ${JSON.stringify(token)})`);
    await page.goto(`${base}/auth/security`);
    const section = page.locator('#oidc-identities');
    await section.getByRole('cell', { name: 'alice@corp.example', exact: true }).waitFor();
    expect(await section.getByRole('cell', { name: 'old (no longer configured)', exact: true }).isVisible()).to.equal(
      true,
    );
    expect(await section.getByRole('cell', { name: 'Never', exact: true }).isVisible()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Link Google', exact: true }).isVisible()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Link Corp', exact: true }).isVisible()).to.equal(false);

    await page.getByRole('button', { name: 'Unlink Corp (alice@corp.example)' }).click();
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    await page.getByRole('status').filter({ hasText: 'Corp is unlinked' }).waitFor();
    expect(calls).to.deep.equal(['unlink i-1', 'unlink i-1']);
    expect(await page.getByRole('button', { name: 'Link Corp', exact: true }).isVisible()).to.equal(true);

    calls.length = 0;
    await page.getByRole('button', { name: 'Link Google', exact: true }).click();
    await page.waitForURL(`${base}/auth/security`);
    await page.getByRole('status').filter({ hasText: 'Google is linked' }).waitFor();
    // No `returnTo`: the default return page; the flow cookie the answer set was kept for the callback's path.
    expect(calls).to.deep.equal(['link google {}', 'exchange linked']);
    const cookies = await browser.cookies(`${base}/auth/oidc/google/callback`);
    expect(cookies.map((cookie) => cookie.name)).to.include('gatehouse_oidc');
    await page.close();
  });
});
