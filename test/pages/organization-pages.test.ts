import { expect } from 'chai';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { PAGES_SCRIPT } from '../../src/pages/assets/pages-script';
import { PAGE_CSP } from '../../src/pages/page-headers';
import { DRIVERS, TEST_SECRET } from '../support/test-app';
import { buildPagesAppOn } from './pages-app';

const PAGES = { '/my-organizations': 'organizations', '/organization': 'organization', '/invitation': 'invitation' };

/** Nothing inline: the CSP allows Gatehouse's own script and stylesheet only. */
const INLINE = /<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle="|\son[a-z]+="/;

/** The values of every src, href and action attribute of a page. */
const linkedUrls = (page: string) => [...page.matchAll(/\s(?:src|href|action)="([^"]*)"/g)].map((match) => match[1]);

for (const driver of DRIVERS)
  describe(`pages: organizations (${driver})`, () => {
    const withOptions = (extra: object = {}) => {
      const built = buildPagesAppOn(driver);
      Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, ...extra });
      return built;
    };

    for (const [path, page] of Object.entries(PAGES)) {
      it(`GET /auth${path} is a page under the pages' CSP, driven by the script, with nothing inline`, async () => {
        const { http } = withOptions();
        const response = await http.get(`/auth${path}`).expect(200);
        expect(response.headers['content-type']).to.equal('text/html; charset=utf-8');
        expect(response.headers['content-security-policy']).to.equal(PAGE_CSP);
        expect(response.headers['referrer-policy']).to.equal('no-referrer');
        expect(response.text).to.include(`data-page="${page}"`);
        expect(response.text).to.not.match(INLINE);
        for (const url of linkedUrls(response.text)) expect(url, url).to.match(/^\/auth\//);
        for (const [tag, id] of response.text.matchAll(/<(?:input|select) id="([^"]+)"[^>]*>/g)) {
          expect(response.text, `label of ${id}`).to.include(`<label for="${id}">`);
          expect(tag, id).to.match(/aria-describedby="/);
        }
        for (const [form] of response.text.matchAll(/<form [^>]*>/g)) expect(form, path).to.match(/method="post"/);
      });
    }

    it('GET /auth/organizations stays the API’s list: a page never takes its GET', async () => {
      const { http } = withOptions();
      const response = await http.get('/auth/organizations').expect(401);
      expect(response.headers['content-type']).to.match(/^application\/json/);
    });

    it('the invitation page renders nothing from the link: its token is the script’s, sent by POST only', async () => {
      const { http } = withOptions();
      const token = 'A'.repeat(43);
      const page = (await http.get(`/auth/invitation?token=${token}`).expect(200)).text;
      expect(page).to.not.include(token);
      expect(page).to.include('Looking up your invitation');
    });

    it('the organization page lists the role template in force, for the script to offer the roles one may give', async () => {
      const { http } = withOptions({
        organizations: { roles: { admin: ['gatehouse.members.manage'], viewer: ['projects.read'] } },
      });
      const page = (await http.get('/auth/organization').expect(200)).text;
      expect(page).to.match(
        /<li data-role="owner" data-permissions="[^"]*gatehouse\.organization\.delete[^"]*">owner<\/li>/,
      );
      expect(page).to.include('<li data-role="admin" data-permissions="gatehouse.members.manage">admin</li>');
      expect(page).to.include('<li data-role="viewer" data-permissions="projects.read">viewer</li>');
    });

    it('transfer and deletion ask to confirm it is you with the security page’s own prompt', async () => {
      const { http } = withOptions();
      const promptOf = (page: string) =>
        /<section id="reauth"[\s\S]*?id="reauth-cancel"[^>]*>Cancel<\/button><\/p>\n<\/section>/
          .exec(page)![0]
          .replace(/<p>[^<]*For the next/, '<p>For the next');
      const organization = (await http.get('/auth/organization').expect(200)).text;
      const security = (await http.get('/auth/security').expect(200)).text;
      expect(promptOf(organization)).to.equal(promptOf(security));
      expect(organization).to.include('Handing the ownership over and deleting an organization need your password.');
    });

    it('the account page links to the organizations, and with organizations off no page offers them', async () => {
      const on = withOptions();
      expect((await on.http.get('/auth/account').expect(200)).text).to.include('href="/auth/my-organizations"');
      const off = withOptions({ organizations: false });
      expect((await off.http.get('/auth/account').expect(200)).text).to.not.include('my-organizations');
      for (const path of Object.keys(PAGES)) {
        const page = (await off.http.get(`/auth${path}`).expect(200)).text;
        expect(page, path).to.include('This server does not offer organizations.');
        expect(page, path).to.not.include('<script');
      }
    });

    it('the script writes organizations’ names as text and keeps the invitation’s token out of every URL', () => {
      expect(PAGES_SCRIPT).to.not.match(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
      // The token goes in JSON bodies only: no path or query the script builds carries it.
      expect(PAGES_SCRIPT).to.not.match(/[?&]token=\$\{/);
    });
  });
