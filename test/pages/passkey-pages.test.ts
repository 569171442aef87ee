import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { PAGE_CSP, SECURITY_PAGE_CSP } from '../../src/pages/page-headers';
import { DRIVERS, TEST_SECRET } from '../support/test-app';
import { buildPagesAppOn } from './pages-app';

const PASSKEYS = { rpId: 'localhost', origins: ['http://localhost:3000'] };
const BUNDLE = join(dirname(dirname(require.resolve('@simplewebauthn/browser'))), 'dist/bundle/index.umd.min.js');

/** The opening tag of the element with this id. */
function tagOf(page: string, id: string): string {
  const match = new RegExp(`<[a-z]+ (?:[^>]* )?id="${id}"[^>]*>`).exec(page);
  expect(match, `#${id}`).to.not.equal(null);
  return match![0];
}

const scriptsOf = (page: string) => [...page.matchAll(/<script[^>]*>/g)].map((match) => match[0]);

for (const driver of DRIVERS)
  describe(`pages: passkeys (${driver})`, () => {
    const withPasskeys = () => {
      const built = buildPagesAppOn(driver);
      Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, passkeys: PASSKEYS });
      return built;
    };

    it('serves the WebAuthn library itself, with the headers of the other assets', async () => {
      const { http } = buildPagesAppOn(driver);
      const library = await http.get('/auth/assets/webauthn.js').expect(200);
      const script = await http.get('/auth/assets/gatehouse-pages.js').expect(200);
      expect(library.headers['content-type']).to.equal(script.headers['content-type']);
      for (const header of ['cache-control', 'cross-origin-resource-policy', 'x-content-type-options']) {
        expect(library.headers[header], header).to.equal(script.headers[header]);
      }
      expect(library.text).to.equal(readFileSync(BUNDLE, 'utf8'));
      expect(library.text).to.include('SimpleWebAuthnBrowser');
      // It loads nothing and sends nothing: the only address in it is a link in a warning's text.
      expect(library.text).to.not.match(/\bimport\(|importScripts|\bfetch\(|XMLHttpRequest|sendBeacon/);
    });

    it('without passkeys configured, the pages neither load the library nor show passkey controls', async () => {
      const { http } = buildPagesAppOn(driver);
      for (const path of ['/auth/login', '/auth/security']) {
        const page = (await http.get(path).expect(200)).text;
        expect(page, path).to.not.include('webauthn');
        expect(page, path).to.not.include('passkey');
      }
    });

    it('the sign-in page offers a passkey: the button, the autofill token and the second step, under the CSP', async () => {
      const { http } = withPasskeys();
      const response = await http.get('/auth/login').expect(200);
      expect(response.headers['content-security-policy']).to.equal(PAGE_CSP);
      const page = response.text;
      // The library first (deferred scripts run in order), then the pages' script; no inline script at all.
      expect(scriptsOf(page)).to.deep.equal([
        '<script src="/auth/assets/webauthn.js" defer>',
        '<script src="/auth/assets/gatehouse-pages.js" defer>',
      ]);
      expect(tagOf(page, 'login-form-username')).to.include('autocomplete="username webauthn"');
      // Shown by the script once it knows the browser can use passkeys.
      expect(tagOf(page, 'passkey-login')).to.match(/ hidden>$/);
      expect(page).to.include('Continue with a passkey');
      expect(tagOf(page, 'use-passkey-button')).to.match(/ hidden>$/);
    });

    it('the security page has the passkeys section and a passkey in the re-authentication prompt', async () => {
      const { http } = withPasskeys();
      const response = await http.get('/auth/security').expect(200);
      expect(response.headers['content-security-policy']).to.equal(SECURITY_PAGE_CSP);
      const page = response.text;
      expect(scriptsOf(page)).to.deep.equal([
        '<script src="/auth/assets/webauthn.js" defer>',
        '<script src="/auth/assets/gatehouse-pages.js" defer>',
      ]);
      expect(tagOf(page, 'passkeys')).to.include('aria-labelledby="passkeys-title"');
      expect(tagOf(page, 'passkey-add-form')).to.include('action="/auth/passkeys"');
      expect(tagOf(page, 'passkey-add-form-name')).to.include('maxlength="64"');
      expect(tagOf(page, 'passkey-rename')).to.match(/ hidden /);
      expect(tagOf(page, 'reauth-passkey')).to.match(/ hidden>$/);
      // The account page, which runs no ceremony, does not load the library.
      expect((await http.get('/auth/account').expect(200)).text).to.not.include('webauthn');
    });
  });
