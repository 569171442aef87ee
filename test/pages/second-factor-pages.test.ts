import { expect } from 'chai';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { PAGE_CSP, SECURITY_PAGE_CSP } from '../../src/pages/page-headers';
import { DRIVERS, TEST_SECRET } from '../support/test-app';
import { buildPagesAppOn } from './pages-app';

/** The opening tag of the element with this id. */
function tagOf(page: string, id: string): string {
  const match = new RegExp(`<[a-z]+ (?:[^>]* )?id="${id}"[^>]*>`).exec(page);
  expect(match, `#${id}`).to.not.equal(null);
  return match![0];
}

for (const driver of DRIVERS)
  describe(`pages: two-factor sign-in (${driver})`, () => {
    it('the sign-in page has a hidden second step: a six-digit code field, a recovery-code form, both to /login/second-factor', async () => {
      const { http } = buildPagesAppOn(driver);
      const response = await http.get('/auth/login').expect(200);
      // The sign-in page shows no image: it keeps the pages' CSP.
      expect(response.headers['content-security-policy']).to.equal(PAGE_CSP);
      const page = response.text;
      expect(tagOf(page, 'second-factor')).to.match(/ hidden/);
      const code = tagOf(page, 'second-factor-form-code');
      expect(code).to.include('autocomplete="one-time-code"');
      expect(code).to.include('inputmode="numeric"');
      // No bound of 6: the paste of "123 456" must arrive whole (the script drops the space).
      expect(code).to.not.include('maxlength');
      expect(page).to.include('The 6 digits the app shows for this account now.');
      expect(page).to.include('<label for="second-factor-form-code">Code from your authenticator app</label>');
      expect(tagOf(page, 'second-factor-form')).to.include('action="/auth/login/second-factor"');
      // The recovery code is the other way, one click away: its form starts hidden, and takes letters.
      const recoveryForm = tagOf(page, 'recovery-form');
      expect(recoveryForm).to.include('action="/auth/login/second-factor"');
      expect(recoveryForm).to.match(/ hidden>$/);
      const recovery = tagOf(page, 'recovery-form-recovery_code');
      expect(recovery).to.include('autocomplete="one-time-code"');
      expect(recovery).to.not.include('inputmode');
      expect(page).to.include(
        '<button type="button" id="use-recovery-button" class="secondary">Use a recovery code</button>',
      );
      expect(tagOf(page, 'use-totp-button')).to.match(/ hidden>$/);
      expect(page).to.include('id="second-factor-cancel"');
      // The password step itself is unchanged, and shows first.
      expect(tagOf(page, 'login-form')).to.not.include('hidden');
      expect(page).to.match(/Finish signing in within 5 minutes\./);
    });

    it('the sign-in page states the challenge lifetime in force', async () => {
      const { http } = buildPagesAppOn(driver);
      Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, loginChallengeTtlMs: 2 * 60_000 });
      expect((await http.get('/auth/login').expect(200)).text).to.match(/Finish signing in within 2 minutes\./);
    });

    it('the security page has the two-factor section: set-up, an image slot for the QR code, recovery codes, renew and turn off', async () => {
      const { http } = buildPagesAppOn(driver);
      const response = await http.get('/auth/security').expect(200);
      // Images from data: URLs and from nowhere else, on this page only: the QR code comes as one.
      expect(response.headers['content-security-policy']).to.equal(`${PAGE_CSP}; img-src data:`);
      expect(SECURITY_PAGE_CSP).to.equal(`${PAGE_CSP}; img-src data:`);
      const page = response.text;
      expect(page).to.include('<h2 id="second-factor-title" tabindex="-1">Two-factor sign-in</h2>');
      expect(page).to.include('id="second-factor-setup-button"');
      // The image has no source until the script sets the QR code's data: URL, and a text alternative.
      const qr = tagOf(page, 'second-factor-qr');
      expect(qr).to.not.match(/\ssrc=/);
      expect(qr).to.match(/alt="QR code[^"]+"/);
      expect(tagOf(page, 'second-factor-enrol')).to.match(/ hidden/);
      expect(tagOf(page, 'totp-confirm-form')).to.include('action="/auth/second-factor/totp/confirm"');
      const confirm = tagOf(page, 'totp-confirm-form-code');
      expect(confirm).to.include('inputmode="numeric"');
      expect(confirm).to.include('autocomplete="one-time-code"');
      expect(tagOf(page, 'recovery-codes')).to.match(/ hidden/);
      expect(page).to.include('shown only this once');
      expect(tagOf(page, 'recovery-codes-form')).to.include('action="/auth/second-factor/recovery-codes"');
      expect(tagOf(page, 'second-factor-disable-form')).to.include('action="/auth/second-factor/disable"');
      // Renewing and turning off take a code of the app or a recovery code: no number pad, no six-digit bound.
      for (const id of ['recovery-codes-form-code', 'second-factor-disable-form-code']) {
        expect(tagOf(page, id), id).to.not.include('inputmode');
        expect(tagOf(page, id), id).to.include('maxlength="64"');
      }
      expect(page).to.match(/<button type="submit" class="danger">Turn off<\/button>/);
    });

    it('the script writes the QR code as an image source and every code as text, never markup', async () => {
      const { http } = buildPagesAppOn(driver);
      const script = (await http.get('/auth/assets/gatehouse-pages.js').expect(200)).text;
      expect(script).to.include('data:image/svg+xml;base64,${btoa(');
      expect(script).to.include("setAttribute('src'");
      expect(script).to.not.match(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/,
      );
    });
  });
