import { expect } from 'chai';
import { Container } from 'typedi';
import { accountApiDocument } from '../../src/app/account-api-document';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { StoreUnavailableError } from '../../src/errors/store-unavailable-error';
import { PAGE_CSP, SECURITY_PAGE_CSP } from '../../src/pages/page-headers';
import { bearer, DRIVERS, PASSWORD, TEST_SECRET } from '../support/test-app';
import { buildPagesAppOn } from './pages-app';

/** The values of every src, href and action attribute of a page. */
function linkedUrls(page: string): string[] {
  return [...page.matchAll(/\s(?:src|href|action)="([^"]*)"/g)].map((match) => match[1]);
}

for (const driver of DRIVERS)
  describe(`pages: security and email change (${driver})`, () => {
    /** A verified account signed in once; the login counts as a recent password. */
    async function signedIn(built: ReturnType<typeof buildPagesAppOn>, username = 'alice') {
      const { http, sender, accounts } = built;
      const email = `${username}@example.com`;
      await http.post('/auth/register').send({ username, email, password: PASSWORD }).expect(201);
      await accounts.drain();
      await http
        .post('/auth/verify-email')
        .send({ token: sender.lastToken('sendVerification', email) })
        .expect(200);
      const login = await http.post('/auth/login').send({ username, password: PASSWORD }).expect(200);
      return { email, token: login.body.access_token as string };
    }

    /** Asks for a change of address and returns the emailed link's token. */
    async function requestChange(built: ReturnType<typeof buildPagesAppOn>, token: string, newEmail: string) {
      await built.http.post('/auth/email-change').set(bearer(token)).send({ new_email: newEmail }).expect(200);
      await built.accounts.drain();
      return built.sender.lastToken('sendEmailChange', newEmail);
    }

    it('GET /auth/security: the sessions table, end-others, a hidden password form and the email form', async () => {
      const { http } = buildPagesAppOn(driver);
      const response = await http.get('/auth/security').expect(200);
      expect(response.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).to.equal(SECURITY_PAGE_CSP);
      expect(response.headers['cache-control']).to.equal('no-store');
      const page = response.text;
      expect(page).to.include('data-page="security"');
      expect(page).to.include('<script src="/auth/assets/gatehouse-pages.js" defer></script>');
      // Nothing is inline: the CSP allows Gatehouse's own script and stylesheet only.
      expect(page).to.not.match(/<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle="|\son[a-z]+="/);
      for (const url of linkedUrls(page)) expect(url, url).to.match(/^\/auth\//);
      expect(page).to.include('<tbody id="sessions-body"></tbody>');
      expect(page).to.include('>End all other sessions</button>');
      expect(page).to.match(/<section id="reauth" hidden aria-labelledby="reauth-title">/);
      expect(page).to.include('action="/auth/reauthenticate"');
      expect(page).to.match(/<input id="reauth-form-password" name="password" type="password"/);
      // The code of an account with two-factor sign-in: hidden and not required until the script finds it on.
      expect(page).to.match(/<div id="reauth-code" hidden>/);
      expect(page).to.match(/<input id="reauth-form-code" name="code" type="text" autocomplete="one-time-code"/);
      expect(page).to.not.match(/<input id="reauth-form-code"[^>]* required/);
      // Switching two-factor sign-in on ends the other sessions by default, as an email change does.
      expect(page).to.match(
        /<input id="totp-confirm-form-end_other_sessions" name="end_other_sessions" type="checkbox" checked/,
      );
      expect(page).to.include('action="/auth/email-change"');
      expect(page).to.match(/<input id="email-form-new_email" name="new_email" type="email" autocomplete="email"/);
      // Other devices are signed out by default: the person unticks the box to keep them.
      expect(page).to.match(
        /<input id="email-form-end_other_sessions" name="end_other_sessions" type="checkbox" checked/,
      );
      expect(page).to.include('<label for="email-form-end_other_sessions">Sign out my other devices</label>');
      // Signed out, the page offers to sign in (the script decides which part shows).
      expect(page).to.include('<a href="/auth/login">Sign in</a>');
    });

    it('explains the windows in force: the re-authentication window and the link lifetime', async () => {
      const { http } = buildPagesAppOn(driver);
      Container.set(ACCOUNT_OPTIONS, {
        secretKey: TEST_SECRET,
        reauthenticationWindowMs: 5 * 60_000,
        emailChangeTokenTtlMs: 2 * 3_600_000,
      });
      const page = (await http.get('/auth/security').expect(200)).text;
      expect(page).to.match(/For the next 5 minutes this browser is not\s+asked again\./);
      expect(page).to.match(/within\s+2 hours\./);
    });

    it('the account page links to the security page', async () => {
      const { http } = buildPagesAppOn(driver);
      expect((await http.get('/auth/account').expect(200)).text).to.include('<a href="/auth/security">');
    });

    it('opening the email-change link names the account and the new address and changes nothing; the POST does, once', async () => {
      const built = buildPagesAppOn(driver);
      const { http } = built;
      const { email, token } = await signedIn(built);
      const linkToken = await requestChange(built, token, 'alice.new@example.com');
      for (const method of ['get', 'get', 'head'] as const) {
        const page = await http[method](`/auth/email-change/confirm?token=${linkToken}`).expect(200);
        expect(page.headers['content-security-policy']).to.equal(PAGE_CSP);
        expect(page.headers['referrer-policy']).to.equal('no-referrer');
        // The token stays out of the markup: only the address bar holds it, until the script removes it.
        expect(page.text ?? '').to.not.include(linkToken);
      }
      const landing = (await http.get(`/auth/email-change/confirm?token=${linkToken}`).expect(200)).text;
      expect(landing).to.include('data-page="email-change-confirm"');
      expect(landing).to.include('Make <strong>alice.new@example.com</strong> the address of <strong>alice</strong>');
      expect(landing).to.include('If you did not ask for this change, do not press the button.');
      expect(landing).to.include('<button type="button" id="email-change-button">Use alice.new@example.com</button>');
      // Three GETs and a HEAD later, the address is still the old one.
      expect((await http.get('/auth/me').set(bearer(token)).expect(200)).body.email).to.equal(email);

      await http.post('/auth/email-change/confirm').send({ token: linkToken }).expect(200);
      expect((await http.get('/auth/me').set(bearer(token)).expect(200)).body.email).to.equal('alice.new@example.com');
      const again = await http.post('/auth/email-change/confirm').send({ token: linkToken }).expect(400);
      expect(again.body.detail.code).to.equal('invalid_email_change_token');

      const dead = (await http.get(`/auth/email-change/confirm?token=${linkToken}`).expect(200)).text;
      expect(dead).to.include('This link does not work');
      expect(dead).to.not.include('email-change-button');
      expect(dead).to.not.include('alice.new@example.com');
      expect(dead).to.include('<a href="/auth/security">your security page</a>');
    });

    it('the email-change page names nothing for an unknown, malformed, repeated or missing token', async () => {
      const { http } = buildPagesAppOn(driver);
      for (const query of [`token=${'x'.repeat(43)}`, 'token=not-a-token', 'token=', 'token=a&token=b']) {
        const page = (await http.get(`/auth/email-change/confirm?${query}`).expect(200)).text;
        expect(page, query).to.include('This link does not work');
        expect(page, query).to.not.include('email-change-button');
      }
      const plain = (await http.get('/auth/email-change/confirm').expect(200)).text;
      expect(plain).to.not.include('This link does not work');
      expect(plain).to.include('Open the link in the email we sent to the new address.');
      expect(plain).to.not.include('email-change-button');
    });

    it('the email-change page answers 503 with Retry-After, naming nothing, while the database is unreachable', async () => {
      const built = buildPagesAppOn(driver);
      const { token } = await signedIn(built);
      const linkToken = await requestChange(built, token, 'alice.new@example.com');
      built.memory.emailChanges.find = async () => {
        throw new StoreUnavailableError('connection refused');
      };
      const page = await built.http.get(`/auth/email-change/confirm?token=${linkToken}`).expect(503);
      expect(page.headers['retry-after']).to.equal('5');
      expect(page.headers['content-security-policy']).to.equal(PAGE_CSP);
      expect(page.text).to.include('This link cannot be checked right now');
      expect(page.text).to.not.include('email-change-button');
      expect(page.text).to.not.include('alice.new@example.com');
    });

    it('the API document lists both pages, the link page with its token and its 503; Allow agrees', async () => {
      const { http } = buildPagesAppOn(driver);
      const document = accountApiDocument({ prefix: '/auth', pages: true, apiDocs: true }) as {
        paths: Record<string, Record<string, { tags: string[]; parameters?: { name: string }[]; responses: object }>>;
      };
      for (const path of ['/security', '/email-change/confirm']) {
        expect(document.paths[path].get.tags, path).to.deep.equal(['Hosted pages']);
        expect(document.paths[path], path).to.have.property('head');
      }
      const confirm = document.paths['/email-change/confirm'];
      expect(confirm.get.parameters!.map((parameter) => parameter.name)).to.deep.equal(['token']);
      expect(confirm.get.responses).to.have.property('503');
      expect(confirm).to.have.property('post');
      const security = await http.options('/auth/security').expect(204);
      expect(security.headers.allow.split(', ').sort()).to.deep.equal(['GET', 'HEAD']);
      const link = await http.options('/auth/email-change/confirm').expect(204);
      expect(link.headers.allow.split(', ').sort()).to.deep.equal(['GET', 'HEAD', 'POST']);
      const put = await http.put('/auth/security').send({}).expect(405);
      expect(put.body.detail.code).to.equal('method_not_allowed');
    });

    it('without pages, GET /auth/security is 404 and GET on the confirmation route 405', async () => {
      const { http } = buildPagesAppOn(driver, { pages: false, apiDocs: false });
      await http.get('/auth/security').expect(404);
      const response = await http.get('/auth/email-change/confirm?token=abc').expect(405);
      expect(response.body.detail.code).to.equal('method_not_allowed');
    });
  });
