import { expect } from 'chai';
import { Container } from 'typedi';
import { accountApiDocument } from '../../src/app/account-api-document';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { PAGES_SCRIPT } from '../../src/pages/assets/pages-script';
import { PAGE_CSP, SECURITY_PAGE_CSP } from '../../src/pages/page-headers';
import type { OidcOptions } from '../../src/services/oidc/oidc-options';
import { DRIVERS, TEST_SECRET } from '../support/test-app';
import { buildPagesAppOn } from './pages-app';

/** A provider's name is the deployer's text: this one would run if it reached the page as markup. */
const HOSTILE_NAME = 'Corp <script>alert("x")</script> & Co';
const ESCAPED_NAME = 'Corp &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co';

const OIDC: OidcOptions = {
  callbackBase: 'http://localhost:3000/auth',
  providers: [
    { id: 'google', preset: 'google', clientId: 'google-client', clientSecret: 'google-secret-value' },
    {
      id: 'corp',
      name: HOSTILE_NAME,
      issuer: 'https://idp.example.com',
      clientId: 'corp-client',
      clientSecret: 'corp-secret-value',
    },
  ],
};

/** The opening tag of the element with this id. */
function tagOf(page: string, id: string): string {
  const match = new RegExp(`<[a-z0-9]+ (?:[^>]* )?id="${id}"[^>]*>`).exec(page);
  expect(match, `#${id}`).to.not.equal(null);
  return match![0];
}

const scriptsOf = (page: string) => [...page.matchAll(/<script[^>]*>/g)].map((match) => match[0]);

/** Nothing inline: the CSP allows Gatehouse's own script and stylesheet only. */
const INLINE = /<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle="|\son[a-z]+="/;

/** The values of every src, href and action attribute of a page. */
const linkedUrls = (page: string) => [...page.matchAll(/\s(?:src|href|action)="([^"]*)"/g)].map((match) => match[1]);

for (const driver of DRIVERS)
  describe(`pages: OpenID providers (${driver})`, () => {
    const withProviders = (extra: object = {}) => {
      const built = buildPagesAppOn(driver);
      Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, oidc: OIDC, ...extra });
      return built;
    };

    it('without providers configured, the sign-in, sign-up and security pages show no provider parts', async () => {
      const { http } = buildPagesAppOn(driver);
      for (const path of ['/auth/login', '/auth/register', '/auth/security']) {
        const page = (await http.get(path).expect(200)).text;
        expect(page, path).to.not.include('/oidc/');
        expect(page, path).to.not.include('oidc-');
        expect(page, path).to.not.include('Continue with');
        expect(page, path).to.not.include('Linked sign-in providers');
      }
    });

    it('the sign-in and sign-up pages link each provider to its start, named as configured, under the CSP', async () => {
      const { http } = withProviders();
      for (const path of ['/auth/login', '/auth/register']) {
        const response = await http.get(path).expect(200);
        expect(response.headers['content-security-policy'], path).to.equal(PAGE_CSP);
        const page = response.text;
        expect(scriptsOf(page), path).to.deep.equal(['<script src="/auth/assets/gatehouse-pages.js" defer>']);
        expect(page, path).to.not.match(INLINE);
        for (const url of linkedUrls(page)) expect(url, url).to.match(/^\/auth\//);
        expect(tagOf(page, 'oidc-start-google'), path).to.include('href="/auth/oidc/google/start"');
        expect(tagOf(page, 'oidc-start-corp'), path).to.include('href="/auth/oidc/corp/start"');
        const labels = [...page.matchAll(/<a [^>]*id="oidc-start-[^"]*"[^>]*>([^<]*)<\/a>/g)].map((match) => match[1]);
        expect(labels, path).to.deep.equal(['Continue with Google', `Continue with ${ESCAPED_NAME}`]);
        // Hidden checks find the password form's button by the name "Sign in": no provider's link may share it.
        for (const label of labels) expect(label).to.not.match(/sign in/i);
      }
    });

    it('a provider name is shown as text, in content and in attributes alike, never as markup', async () => {
      const { http } = withProviders();
      for (const path of ['/auth/login', '/auth/register', '/auth/security']) {
        const page = (await http.get(path).expect(200)).text;
        expect(page, path).to.not.include('<script>alert');
        expect(page, path).to.not.include(HOSTILE_NAME);
        expect(page, path).to.include(ESCAPED_NAME);
        expect(
          scriptsOf(page).every((tag) => tag.includes(' src="/auth/assets/')),
          path,
        ).to.equal(true);
      }
    });

    it('the security page has the linked providers section, a hidden "Link" button per provider', async () => {
      const { http } = withProviders();
      const response = await http.get('/auth/security').expect(200);
      expect(response.headers['content-security-policy']).to.equal(SECURITY_PAGE_CSP);
      const page = response.text;
      expect(page).to.not.match(INLINE);
      expect(tagOf(page, 'oidc-identities')).to.include('aria-labelledby="oidc-identities-title"');
      expect(page).to.include('Linked sign-in providers');
      expect(page).to.include('<tbody id="oidc-identities-body"></tbody>');
      // The script shows the buttons of the providers not linked yet, once it has the list.
      expect(tagOf(page, 'oidc-link-google')).to.match(/ data-provider="google" [^>]* hidden>$/);
      expect(tagOf(page, 'oidc-link-corp')).to.include(`data-provider-name="${ESCAPED_NAME}"`);
      expect(page).to.include('>Link Google</button>');
      expect(page).to.include(`>Link ${ESCAPED_NAME}</button>`);
    });

    it('the return page is served with the pages’ headers and CSP, its parts hidden until the script decides', async () => {
      const { http } = withProviders();
      const response = await http.get('/auth/oidc/return').expect(200);
      expect(response.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).to.equal(PAGE_CSP);
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(response.headers['x-content-type-options']).to.equal('nosniff');
      expect(response.headers['referrer-policy']).to.equal('no-referrer');
      expect(response.headers['cross-origin-opener-policy']).to.equal('same-origin');
      const page = response.text;
      expect(page).to.include('data-page="oidc-return"');
      expect(scriptsOf(page)).to.deep.equal(['<script src="/auth/assets/gatehouse-pages.js" defer>']);
      expect(page).to.not.match(INLINE);
      for (const url of linkedUrls(page)) expect(url, url).to.match(/^\/auth\//);
      // The sign-in page's second step, the same markup, hidden until a challenge comes.
      expect(tagOf(page, 'second-factor')).to.match(/ hidden /);
      expect(tagOf(page, 'second-factor-form')).to.include('action="/auth/login/second-factor"');
      expect(tagOf(page, 'recovery-form')).to.match(/ hidden/);
      expect(page).to.not.include('use-passkey-button');
      expect(tagOf(page, 'oidc-link-required')).to.match(/ hidden /);
      expect(tagOf(page, 'oidc-failed')).to.match(/ hidden>$/);
      expect(page).to.include('<a href="/auth/login">');
      // The script it loads is the one that drives the page.
      expect(PAGES_SCRIPT).to.include("'oidc-return': parts.oidcReturnPage");
    });

    it('the return page offers a passkey as the second step where passkeys are configured', async () => {
      const { http } = withProviders({ passkeys: { rpId: 'localhost', origins: ['http://localhost:3000'] } });
      const page = (await http.get('/auth/oidc/return').expect(200)).text;
      expect(scriptsOf(page)).to.deep.equal([
        '<script src="/auth/assets/webauthn.js" defer>',
        '<script src="/auth/assets/gatehouse-pages.js" defer>',
      ]);
      expect(tagOf(page, 'use-passkey-button')).to.match(/ hidden>$/);
    });

    it('the return page is served without providers too, and the API document lists it', async () => {
      const { http } = buildPagesAppOn(driver);
      const page = (await http.get('/auth/oidc/return').expect(200)).text;
      expect(page).to.include('data-page="oidc-return"');
      const paths = accountApiDocument({ prefix: '/auth', pages: true, apiDocs: true }).paths as Record<
        string,
        { get?: { tags?: string[] } }
      >;
      expect(paths['/oidc/return']?.get?.tags).to.deep.equal(['Hosted pages']);
    });
  });
