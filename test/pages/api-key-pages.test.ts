import { expect } from 'chai';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { PAGES_SCRIPT } from '../../src/pages/assets/pages-script';
import { apiKeysSection } from '../../src/pages/assets/script/api-keys-section';
import { SECURITY_PAGE_CSP } from '../../src/pages/page-headers';
import { DRIVERS, TEST_SECRET } from '../support/test-app';
import { buildPagesAppOn } from './pages-app';

/** The opening tag of the element with this id. */
function tagOf(page: string, id: string): string {
  const match = new RegExp(`<[a-z]+ (?:[^>]* )?id="${id}"[^>]*>`).exec(page);
  expect(match, `#${id}`).to.not.equal(null);
  return match![0];
}

/** The markup of the element with this id, up to its own closing tag (for elements that hold no element alike). */
function elementOf(page: string, id: string, tag: string): string {
  const start = page.indexOf(tagOf(page, id));
  const end = page.indexOf(`</${tag}>`, start);
  expect(end, `</${tag}> of #${id}`).to.be.greaterThan(start);
  return page.slice(start, end);
}

for (const driver of DRIVERS)
  describe(`pages: API keys (${driver})`, () => {
    it('the security page has the API keys section: list, revoke-all, confirmation, key once, creation form', async () => {
      const { http } = buildPagesAppOn(driver);
      const response = await http.get('/auth/security').expect(200);
      expect(response.headers['content-security-policy']).to.equal(SECURITY_PAGE_CSP);
      const page = response.text;
      expect(tagOf(page, 'api-keys')).to.include('aria-labelledby="api-keys-title"');
      expect(page).to.include('<h2 id="api-keys-title" tabindex="-1">API keys</h2>');
      // The rows are the script's, written as text: the markup holds an empty body only.
      expect(page).to.include('<tbody id="api-keys-body"></tbody>');
      for (const column of ['Name', 'Key', 'Scopes', 'Created', 'Expires', 'Last used', 'Created by']) {
        expect(elementOf(page, 'api-keys-table', 'table')).to.include(`<th scope="col">${column}</th>`);
      }
      // Nothing to revoke and nothing to confirm until the script has read the list and a button was pressed.
      expect(tagOf(page, 'api-keys-table')).to.match(/ hidden>$/);
      expect(tagOf(page, 'api-keys-revoke-all')).to.match(/ hidden>$/);
      expect(tagOf(page, 'api-key-revoke-confirm')).to.include(' hidden ');
      // The new key's place: hidden, empty, read-only, never autocompleted, with its Copy button and the warning.
      expect(tagOf(page, 'api-key-created')).to.include(' hidden ');
      const keyField = tagOf(page, 'api-key-created-value');
      expect(keyField).to.include(' readonly ');
      expect(keyField).to.include('autocomplete="off"');
      expect(keyField).to.not.include('value=');
      expect(keyField).to.not.include('name=');
      expect(elementOf(page, 'api-key-created', 'section')).to.include('it will not be shown again');
      expect(page).to.include('<button type="button" id="api-key-copy">Copy</button>');
      // The key's field is outside every form, so no submission carries it.
      const beforeField = page.slice(0, page.indexOf(keyField));
      expect(beforeField.lastIndexOf('<form ')).to.be.lessThan(beforeField.lastIndexOf('</form>'));
    });

    it('the creation form: a name with the API’s bound, scope boxes the script fills, the lifetime in force', async () => {
      const { http } = buildPagesAppOn(driver);
      Container.set(ACCOUNT_OPTIONS, {
        secretKey: TEST_SECRET,
        apiKeyDefaultLifetimeDays: 14,
        apiKeyMaxLifetimeDays: 90,
      });
      const page = (await http.get('/auth/security').expect(200)).text;
      // Shown by the script once it knows the person holds a permission a key could carry.
      const form = tagOf(page, 'api-key-create-form');
      expect(form).to.include('method="post" action="/auth/api-keys"');
      expect(form).to.match(/ hidden>$/);
      expect(tagOf(page, 'api-key-scopes-none')).to.match(/ hidden>$/);
      expect(tagOf(page, 'api-key-create-form-name')).to.include('maxlength="64"');
      expect(tagOf(page, 'api-key-create-form-name')).to.include(' required ');
      expect(page).to.include('<div id="api-key-scopes-list"></div>');
      expect(page).to.include('<legend>Scopes</legend>');
      // The first scope box the script writes is `api-key-scope-0`: a refused scope is told above the boxes.
      expect(page).to.include('<p class="field-error" id="api-key-scope-0-error" hidden></p>');
      const days = tagOf(page, 'api-key-create-form-expires_in_days');
      expect(days).to.include('name="expires_in_days" type="number"');
      expect(days).to.include('min="1" max="90"');
      expect(days).to.include('value="14"');
      expect(page).to.include('From 1 to 90 days.');
    });

    it('the defaults when the options say nothing: 30 days, at most 366', async () => {
      const { http } = buildPagesAppOn(driver);
      const days = tagOf((await http.get('/auth/security').expect(200)).text, 'api-key-create-form-expires_in_days');
      expect(days).to.include('min="1" max="366"');
      expect(days).to.include('value="30"');
    });

    it('the password reset offers to revoke the API keys, unticked, and its success text says keys stay', async () => {
      const { http } = buildPagesAppOn(driver);
      const page = (await http.get('/auth/password-reset').expect(200)).text;
      const box = tagOf(page, 'reset-confirm-form-revoke_api_keys');
      expect(box).to.equal(
        '<input id="reset-confirm-form-revoke_api_keys" name="revoke_api_keys" type="checkbox"' +
          ' aria-describedby="reset-confirm-form-revoke_api_keys-hint">',
      );
      expect(page).to.include('<label for="reset-confirm-form-revoke_api_keys">Also revoke all my API keys</label>');
      // The box is inside the form that sets the new password.
      const form = elementOf(page, 'reset-confirm-form', 'form');
      expect(form).to.include('id="reset-confirm-form-revoke_api_keys"');
      const done = elementOf(page, 'reset-done', 'section');
      expect(done).to.include('Your API keys keep working unless you revoke them.');
      expect(done).to.include('<a href="/auth/security">security page</a>');
      expect(tagOf(page, 'reset-done-keys-revoked')).to.match(/ hidden>$/);
    });

    it('the password change offers to revoke the API keys, unticked', async () => {
      const { http } = buildPagesAppOn(driver);
      const page = (await http.get('/auth/account').expect(200)).text;
      const form = elementOf(page, 'change-form', 'form');
      expect(form).to.include(
        '<input id="change-form-revoke_api_keys" name="revoke_api_keys" type="checkbox" aria-describedby=',
      );
      expect(form).to.include('<label for="change-form-revoke_api_keys">Also revoke all my API keys</label>');
    });

    it('the script keeps the new key out of web storage, and shows names and scopes as text only', () => {
      const source = apiKeysSection.toString();
      expect(PAGES_SCRIPT).to.include(source);
      expect(source).to.not.match(/Storage|setItem|innerHTML|outerHTML|insertAdjacentHTML/);
      expect(source).to.include("window.addEventListener('pagehide', forgetShownKey)");
    });
  });
