import { expect } from 'chai';
import { accountApiDocument } from '../../src/app/account-api-document';
import { PAGE_CSP } from '../../src/pages/page-headers';
import { DRIVERS, PASSWORD } from '../support/test-app';
import { buildPagesAppOn } from './pages-app';

/** The values of every src, href and action attribute of a page. */
function linkedUrls(page: string): string[] {
  return [...page.matchAll(/\s(?:src|href|action)="([^"]*)"/g)].map((match) => match[1]);
}

for (const driver of DRIVERS)
  describe(`pages: administration (${driver})`, () => {
    it('GET /auth/admin: the pages’ CSP, one script, nothing inline, everything under the prefix', async () => {
      const { http } = buildPagesAppOn(driver);
      const response = await http.get('/auth/admin').expect(200);
      expect(response.headers['content-type']).to.equal('text/html; charset=utf-8');
      // No image on this page: the plain CSP, not the security page's.
      expect(response.headers['content-security-policy']).to.equal(PAGE_CSP);
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(response.headers['referrer-policy']).to.equal('no-referrer');
      expect(response.headers['cross-origin-opener-policy']).to.equal('same-origin');
      const page = response.text;
      expect(page).to.include('data-page="admin"');
      expect(page).to.include('<script src="/auth/assets/gatehouse-pages.js" defer></script>');
      expect(page).to.not.match(/<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle="|\son[a-z]+="/);
      for (const url of linkedUrls(page)) expect(url, url).to.match(/^\/auth\//);
    });

    it('renders the frame only: the signed-out, refused and signed-in parts hidden until the script picks one', async () => {
      const { http } = buildPagesAppOn(driver);
      const page = (await http.get('/auth/admin').expect(200)).text;
      expect(page).to.include('<section id="signed-out" hidden>');
      expect(page).to.include('<a href="/auth/login">Sign in</a>');
      expect(page).to.include('<section id="denied" hidden>');
      expect(page).to.include('<div id="signed-in" hidden>');
      expect(page).to.include('<tbody id="users-body"></tbody>');
      expect(page).to.match(
        /<button type="button" id="users-next-button" class="secondary" hidden>Next page<\/button>/,
      );
      expect(page).to.match(/<section id="user" hidden aria-labelledby="user-title">/);
      expect(page).to.include('<dl id="user-details"></dl>');
      expect(page).to.include('<tbody id="events-body"></tbody>');
      for (const id of [
        'disable-button',
        'enable-button',
        'end-sessions-button',
        'verify-button',
        'resend-button',
        'delete-button',
        'revoke-role-button',
        'events-next-button',
      ]) {
        expect(page, id).to.match(new RegExp(`<button type="button" id="${id}"`));
      }
      // A change refused for want of a recent proof asks for it, as the security page does: the password, and a
      // code whose field the script shows (and requires) while the administrator has two-factor sign-in on.
      expect(page).to.match(/<section id="reauth" hidden aria-labelledby="reauth-title">/);
      expect(page).to.include('action="/auth/reauthenticate"');
      expect(page).to.match(/<input id="reauth-form-password" name="password" type="password"/);
      expect(page).to.match(/<div id="reauth-code" hidden>/);
      expect(page).to.match(/<input id="reauth-form-code" name="code" type="text" autocomplete="one-time-code"/);
      expect(page).to.not.match(/<input id="reauth-form-code"[^>]* required/);
      expect(page).to.include('<label for="reauth-form-code">');
      expect(page).to.match(/<button type="button" id="reauth-cancel"/);
      // Deleting takes a second, explicit step.
      expect(page).to.match(/<section id="delete-confirm" hidden aria-labelledby="delete-confirm-title">/);
      expect(page).to.include('id="delete-confirm-button" class="danger">Delete it for good</button>');
    });

    it('the search may be sent empty (every account); the role name may not', async () => {
      const { http } = buildPagesAppOn(driver);
      const page = (await http.get('/auth/admin').expect(200)).text;
      const search = page.match(/<input id="user-search-form-prefix"[^>]*>/)![0];
      expect(search).to.not.match(/\srequired/);
      expect(search).to.include('maxlength="320"');
      const role = page.match(/<input id="role-form-role"[^>]*>/)![0];
      expect(role).to.match(/\srequired/);
      expect(role).to.include('maxlength="64"');
      expect(role).to.include('data-missing="Enter the name of a role"');
      for (const form of page.match(/<form [^>]*>/g)!)
        expect(form).to.match(/method="post" action="\/auth\/(admin\/users|reauthenticate)"/);
    });

    it('writes no account data into the page, whoever asks for it', async () => {
      const built = buildPagesAppOn(driver);
      const { http, accounts } = built;
      await http
        .post('/auth/register')
        .send({ username: 'zelda', email: 'zelda@example.com', password: PASSWORD })
        .expect(201);
      await accounts.drain();
      const page = (await http.get('/auth/admin').expect(200)).text;
      expect(page).to.not.include('zelda');
    });

    it('the script drives the page through the admin API with the tab’s bearer token', async () => {
      const { http } = buildPagesAppOn(driver);
      const script = (await http.get('/auth/assets/gatehouse-pages.js').expect(200)).text;
      expect(script).to.include('admin: adminPage');
      expect(script).to.include('/admin/users?');
      expect(script).to.include('/audit-events?');
      expect(script).to.include('prompt.ask(() => act(method, path, done, form))');
      expect(script).to.not.match(/<script/);
      expect(script).to.not.match(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
    });

    it('the re-authentication prompt is the security page’s own: the same markup, the window in force, one script for both', async () => {
      const { http } = buildPagesAppOn(driver);
      const admin = (await http.get('/auth/admin').expect(200)).text;
      const security = (await http.get('/auth/security').expect(200)).text;
      // The form and its fields, from the heading to Cancel, are the same markup on both pages; only the opening
      // sentence says why each page asks.
      const promptOf = (page: string) => {
        const section = page.match(
          /<section id="reauth"[\s\S]*?id="reauth-cancel"[^>]*>Cancel<\/button><\/p>\n<\/section>/,
        );
        expect(section, 'the prompt').to.not.equal(null);
        return section![0].replace(/<p>[^<]*For the next/, '<p>For the next');
      };
      expect(promptOf(admin)).to.equal(promptOf(security));
      expect(admin).to.match(/a code as well while you have two-factor sign-in on\. For the next 10 minutes/);
      const script = (await http.get('/auth/assets/gatehouse-pages.js').expect(200)).text;
      // One handler of the prompt's form, called by these pages and the organization page; it sends the code when
      // the field shows.
      expect(script.match(/onSubmit\('reauth-form'/g)).to.have.length(1);
      expect(script.match(/= reauthentication\(token, afterFailure/g)).to.have.length(3);
      expect(script).to.include('asksCode ? { password, code: proofOf(code) } : { password }');
      // The administration page asks its administrator's state at once, so the code is asked with the password.
      expect(script).to.include('await prompt.loadSecondFactor()');
    });

    it('HEAD answers the headers; OPTIONS allows GET and HEAD; the API document lists the page', async () => {
      const { http } = buildPagesAppOn(driver);
      const head = await http.head('/auth/admin').expect(200);
      expect(head.headers['content-security-policy']).to.equal(PAGE_CSP);
      const options = await http.options('/auth/admin').expect(204);
      expect(options.headers.allow.split(', ').sort()).to.deep.equal(['GET', 'HEAD']);
      const document = accountApiDocument({ prefix: '/auth', pages: true, apiDocs: true }) as {
        paths: Record<string, Record<string, { tags: string[]; summary: string }>>;
      };
      expect(document.paths['/admin'].get.tags).to.deep.equal(['Hosted pages']);
      expect(document.paths['/admin'].get.summary).to.match(/^The administration page/);
      expect(document.paths['/admin']).to.have.property('head');
    });

    it('without pages, GET /auth/admin is 404', async () => {
      const { http } = buildPagesAppOn(driver, { pages: false, apiDocs: false });
      await http.get('/auth/admin').expect(404);
    });
  });
