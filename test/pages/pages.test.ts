import { expect } from 'chai';
import express from 'express';
import Koa from 'koa';
import { Script } from 'node:vm';
import request from 'supertest';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { accountApiDocument } from '../../src/app/account-api-document';
import * as onExpress from '../../src/express';
import { accountPages } from '../../src/koa/account-pages';
import { PAGE_CSP, SECURITY_PAGE_CSP } from '../../src/pages/page-headers';
import { StoreUnavailableError } from '../../src/errors/store-unavailable-error';
import type { MountAccountRoutesOptions } from '../../src/app/account-routes';
import { DRIVERS, handlerOf, HostApp, PASSWORD, resetContainer, TEST_SECRET } from '../support/test-app';
import { buildPagesAppOn } from './pages-app';

const PAGES = [
  '/register',
  '/login',
  '/verify-email',
  '/password-reset',
  '/account',
  '/security',
  '/email-change/confirm',
  '/admin',
  '/oidc/return',
];
/** The pages with forms; the email-change link's page has a button only. */
const FORM_PAGES = PAGES.filter((path) => path !== '/email-change/confirm');

/** The values of every src and href attribute of a page. */
function linkedUrls(page: string): string[] {
  return [...page.matchAll(/\s(?:src|href|action)="([^"]*)"/g)].map((match) => match[1]);
}

for (const driver of DRIVERS)
  describe(`pages: serving (${driver})`, () => {
    const buildPagesApp = (options: MountAccountRoutesOptions = {}) => buildPagesAppOn(driver, options);

    for (const path of PAGES) {
      it(`GET /auth${path} is an HTML page under the pages' CSP, keeping the other security headers`, async () => {
        const { http } = buildPagesApp();
        const response = await http.get(`/auth${path}`).expect(200);
        expect(response.headers['content-type']).to.equal('text/html; charset=utf-8');
        // The security page alone may show data: images (the QR code of the two-factor set-up).
        const csp = path === '/security' ? SECURITY_PAGE_CSP : PAGE_CSP;
        expect(response.headers['content-security-policy']).to.equal(csp);
        expect(response.headers['cache-control']).to.equal('no-store');
        expect(response.headers['x-content-type-options']).to.equal('nosniff');
        expect(response.headers['referrer-policy']).to.equal('no-referrer');
        expect(response.headers['cross-origin-opener-policy']).to.equal('same-origin');
        expect(response.text).to.include(`data-page="${path.slice(1).replace('/', '-')}"`);
        expect(response.text).to.include('<script src="/auth/assets/gatehouse-pages.js" defer></script>');
        // Everything the page loads, links to or posts to is Gatehouse's own, under the prefix.
        for (const url of linkedUrls(response.text)) expect(url, url).to.match(/^\/auth\//);
      });
    }

    it('gives every input a label, an autocomplete token and an error slot read with it; forms post, never GET', async () => {
      const { http } = buildPagesApp();
      for (const path of FORM_PAGES) {
        const page = (await http.get(`/auth${path}`).expect(200)).text;
        const inputs = [...page.matchAll(/<input id="([^"]+)"[^>]*>/g)];
        expect(inputs, path).to.not.be.empty;
        for (const [tag, id] of inputs) {
          expect(page, `${path} label of ${id}`).to.include(`<label for="${id}">`);
          // A box to tick, and the field that shows a new API key, have nothing to fill in, nothing to autocomplete
          // and nothing to get wrong.
          if (/type="checkbox"|readonly/.test(tag)) continue;
          // The administration page asks for nothing of the person's own (a search and a role name) but the password
          // and code that confirm a change; nor does the API key form (a key's name and lifetime).
          const token =
            (path === '/admin' && !id.startsWith('reauth-form-')) || id.startsWith('api-key-')
              ? /autocomplete="off"/
              : /autocomplete="(username|email|new-password|current-password|one-time-code)"/;
          expect(tag, `${path} ${id}`).to.match(token);
          expect(tag).to.match(new RegExp(`aria-describedby="[^"]*${id}-error`));
          expect(page).to.include(`<p class="field-error" id="${id}-error" hidden></p>`);
        }
        const forms = [...page.matchAll(/<form [^>]*>/g)].map(([tag]) => tag);
        for (const form of forms) expect(form, path).to.match(/method="post"/);
      }
    });

    it('serves its one script and one stylesheet itself; the script is valid JavaScript', async () => {
      const { http } = buildPagesApp();
      const script = await http.get('/auth/assets/gatehouse-pages.js').expect(200);
      expect(script.headers['content-type']).to.equal('application/javascript; charset=utf-8');
      expect(script.headers['x-content-type-options']).to.equal('nosniff');
      expect(() => new Script(script.text)).to.not.throw();
      // It writes text, never markup, so Trusted Types have nothing to refuse.
      expect(script.text).to.not.match(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
      const styles = await http.get('/auth/assets/gatehouse-pages.css').expect(200);
      expect(styles.headers['content-type']).to.equal('text/css; charset=utf-8');
    });

    it('opening the verification link changes nothing: the token still verifies afterwards, once', async () => {
      const { http, sender, accounts } = buildPagesApp();
      await http
        .post('/auth/register')
        .send({ username: 'alice', email: 'alice@example.com', password: PASSWORD })
        .expect(201);
      await accounts.drain();
      const token = sender.lastToken('sendVerification', 'alice@example.com');
      for (const method of ['get', 'get', 'head'] as const) {
        const page = await http[method](`/auth/verify-email?token=${token}`).expect(200);
        // The token is not written into the page: only the address bar holds it, until the script removes it.
        expect(page.text ?? '').to.not.include(token);
      }
      await http.post('/auth/login').send({ username: 'alice', password: PASSWORD }).expect(403);
      await http.post('/auth/verify-email').send({ token }).expect(200);
      await http.post('/auth/verify-email').send({ token }).expect(400);
    });

    it('the verification page names the account its link confirms, warns, and offers a new link for a dead one', async () => {
      const { http, sender, accounts } = buildPagesApp();
      await http
        .post('/auth/register')
        .send({ username: 'mallory', email: 'vic@example.com', password: PASSWORD })
        .expect(201);
      await http
        .post('/auth/register')
        .send({ username: 'vic', email: 'vic@example.com', password: PASSWORD })
        .expect(201);
      await accounts.drain();
      const [malloryLink, vicLink] = sender.of('sendVerification', 'vic@example.com').map((mail) => mail.token!);

      const landing = (await http.get(`/auth/verify-email?token=${malloryLink}`).expect(200)).text;
      expect(landing).to.include('Confirm this address for the account <strong>mallory</strong>');
      expect(landing).to.include('If you did not choose the username mallory, do not press the button');
      expect(landing).to.include('>Confirm for mallory</button>');
      expect(landing).to.match(/<section id="resend" aria-labelledby="resend-title" hidden>/);
      expect((await http.get(`/auth/verify-email?token=${vicLink}`).expect(200)).text).to.include('Confirm for vic');

      // vic confirms: mallory's registration ends, and its link now lands on the dead-link notice and the resend form.
      await http.post('/auth/verify-email').send({ token: vicLink }).expect(200);
      for (const token of [malloryLink, vicLink, 'x'.repeat(43), 'not-a-token']) {
        const dead = (await http.get(`/auth/verify-email?token=${token}`).expect(200)).text;
        expect(dead, token).to.include('This link does not work');
        expect(dead, token).to.not.include('verify-button');
        expect(dead, token).to.match(/<section id="resend" aria-labelledby="resend-title">/);
      }
      const plain = (await http.get('/auth/verify-email').expect(200)).text;
      expect(plain).to.not.include('This link does not work');
      expect(plain).to.not.include('verify-button');
    });

    it('the verification page answers 503 with Retry-After, naming nothing, while the database is unreachable', async () => {
      const { http, memory } = buildPagesApp();
      memory.tokens.findUser = async () => {
        throw new StoreUnavailableError('connection refused');
      };
      const page = await http.get(`/auth/verify-email?token=${'a'.repeat(43)}`).expect(503);
      expect(page.headers['retry-after']).to.equal('5');
      expect(page.text).to.include('This link cannot be checked right now');
      expect(page.text).to.not.include('verify-button');
    });

    it('opening the reset link changes nothing: the old password works, and the token still resets', async () => {
      const { http, sender, accounts } = buildPagesApp();
      await http
        .post('/auth/register')
        .send({ username: 'bob', email: 'bob@example.com', password: PASSWORD })
        .expect(201);
      await accounts.drain();
      await http
        .post('/auth/verify-email')
        .send({ token: sender.lastToken('sendVerification') })
        .expect(200);
      await http.post('/auth/password-reset/request').send({ email: 'bob@example.com' }).expect(200);
      await accounts.drain();
      const token = sender.lastToken('sendPasswordReset', 'bob@example.com');
      const page = await http.get(`/auth/password-reset?token=${token}`).expect(200);
      expect(page.text).to.not.include(token);
      await http.post('/auth/login').send({ username: 'bob', password: PASSWORD }).expect(200);
      const newPassword = 'amber kettle under 9 bridges';
      await http.post('/auth/password-reset/confirm').send({ token, new_password: newPassword }).expect(200);
      await http.post('/auth/login').send({ username: 'bob', password: newPassword }).expect(200);
    });

    it('leaves every other method of a page path to the API, and adds GET to its Allow header', async () => {
      const { http } = buildPagesApp();
      const options = await http.options('/auth/login').expect(204);
      expect(options.headers.allow.split(', ').sort()).to.deep.equal(['GET', 'HEAD', 'POST']);
      const put = await http.put('/auth/login').send({}).expect(405);
      expect(put.body.detail.code).to.equal('method_not_allowed');
      expect(put.headers.allow.split(', ')).to.include.members(['GET', 'POST']);
      const login = await http.post('/auth/login').send({ username: 'nobody', password: PASSWORD }).expect(401);
      expect(login.body.detail.code).to.equal('invalid_credentials');
      expect(login.headers['content-security-policy']).to.equal("default-src 'none'; frame-ancestors 'none'");
    });

    it('matches page paths as the router matches routes (any case, a trailing slash) and sends the prefix to the account page', async () => {
      const { http } = buildPagesApp();
      const page = await http.get('/AUTH/Login/').expect(200);
      expect(page.text).to.include('data-page="login"');
      const root = await http.get('/auth').expect(303);
      expect(root.headers.location).to.equal('/auth/account');
      await http.get('/auth/').expect(303);
      await http.get('/auth/nope').expect(404);
    });

    it('without pages, GET on the API paths is still 405 JSON, and no asset or document is served', async () => {
      const { http } = buildPagesApp({ pages: false, apiDocs: false });
      const response = await http.get('/auth/login').expect(405);
      expect(response.body.detail.code).to.equal('method_not_allowed');
      await http.get('/auth/verify-email?token=abc').expect(405);
      await http.get('/auth/password-reset').expect(404);
      await http.get('/auth/assets/gatehouse-pages.js').expect(404);
      await http.get('/auth/openapi.json').expect(404);
      await http.get('/auth/reference').expect(404);
    });

    it('explains the rules in force: the configured password length and link lifetimes', async () => {
      const { http } = buildPagesApp();
      Container.set(ACCOUNT_OPTIONS, {
        secretKey: TEST_SECRET,
        password: { minLength: 16 },
        resetTokenTtlMs: 30 * 60_000,
        verificationTokenTtlMs: 2 * 24 * 3_600_000,
      });
      expect((await http.get('/auth/register')).text).to.include('Use 16 to 128 characters.');
      expect((await http.get('/auth/password-reset')).text).to.match(/works once, for\s+30 minutes\./);
      expect((await http.get('/auth/verify-email')).text).to.include('expire after 2 days.');
    });

    it('serves under any prefix, or none', async () => {
      const accounts = buildPagesApp({ prefix: '/accounts' });
      const page = (await accounts.http.get('/accounts/login').expect(200)).text;
      expect(page).to.include('data-api="/accounts"');
      for (const url of linkedUrls(page)) expect(url).to.match(/^\/accounts\//);
      await accounts.http.get('/accounts/assets/gatehouse-pages.css').expect(200);
      await accounts.http.get('/auth/login').expect(404);

      const bare = buildPagesApp({ prefix: '' });
      expect((await bare.http.get('/login').expect(200)).text).to.include('data-api=""');
      await bare.http.get('/assets/gatehouse-pages.js').expect(200);
      expect((await bare.http.get('/').expect(303)).headers.location).to.equal('/account');
    });

    it('keeps the security headers when a host installs the pages without gatehouseHttp()', async () => {
      resetContainer();
      const app: HostApp = driver === 'koa' ? new Koa() : express();
      if (app instanceof Koa) app.use(accountPages({ prefix: '/auth' }));
      else app.use(onExpress.accountPages({ prefix: '/auth' }));
      const page = await request(handlerOf(app)).get('/auth/verify-email?token=abc').expect(200);
      expect(page.headers).to.include({
        'content-security-policy': PAGE_CSP,
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      });
      // And the page says it once more, for whatever proxy drops the header.
      expect(page.text).to.include('<meta name="referrer" content="no-referrer">');
    });

    it('a host that forgot its configuration gets the JSON 500 the API routes give, with the reason logged', async () => {
      const { http, logger } = buildPagesApp();
      Container.remove(ACCOUNT_OPTIONS);
      const response = await http.get('/auth/login').expect(500);
      expect(response.body).to.deep.equal({ detail: { detail: 'Internal server error', code: 'internal_error' } });
      expect(logger.text()).to.include('ACCOUNT_OPTIONS');
    });

    it('serves the API description at {prefix}/openapi.json and {prefix}/reference, with their headers', async () => {
      const { http } = buildPagesApp({ prefix: '/accounts' });
      const document = await http.get('/accounts/openapi.json').expect(200);
      expect(document.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(document.headers['access-control-allow-origin']).to.equal('*');
      expect(document.headers['cache-control']).to.equal('no-store');
      expect(document.headers['x-content-type-options']).to.equal('nosniff');
      expect(document.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
      // The document lists the pages and itself, which are served beside it.
      const served = accountApiDocument({ prefix: '/accounts', pages: true, apiDocs: true });
      expect(document.body).to.deep.equal(JSON.parse(JSON.stringify(served)));
      const reference = await http.get('/accounts/reference').expect(200);
      expect(reference.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(reference.headers['content-security-policy']).to.equal(PAGE_CSP);
      expect(reference.text).to.include('href="/accounts/openapi.json"');
      await http.head('/accounts/openapi.json').expect(200);
      // A path only the document serves takes GET and HEAD, and says so.
      const post = await http.post('/accounts/openapi.json').send({}).expect(405);
      expect(post.headers.allow).to.equal('GET, HEAD');
      expect(post.body.detail.code).to.equal('method_not_allowed');
    });
  });
