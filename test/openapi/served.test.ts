import { expect } from 'chai';
import { accountApiDocument } from '../../src/app/account-api-document';
import { PAGE_CSP } from '../../src/pages/page-headers';
import { buildPagesApp } from '../pages/pages-app';
import type { Document } from './api-document';

describe('OpenAPI: served beside the routes', () => {
  it('serves the document at {prefix}/openapi.json, readable by tools on other origins', async () => {
    const { http } = buildPagesApp();
    const response = await http.get('/auth/openapi.json').expect(200);
    expect(response.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(response.headers['access-control-allow-origin']).to.equal('*');
    expect(response.headers['cache-control']).to.equal('no-store');
    expect(response.body).to.deep.equal(
      JSON.parse(JSON.stringify(accountApiDocument({ prefix: '/auth', pages: true, apiDocs: true }))),
    );
    expect(response.body.servers).to.deep.equal([
      { url: '/auth', description: 'The account routes, relative to this document’s host' },
    ]);
  });

  it('serves a reference page built from the document: every route, body field and error code, nothing from elsewhere', async () => {
    const { http } = buildPagesApp({ pages: false });
    const page = await http.get('/auth/reference').expect(200);
    expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).to.equal(PAGE_CSP);
    const document = accountApiDocument({ prefix: '/auth', apiDocs: true }) as unknown as Document;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect(page.text).to.include(`<span class="method">${method.toUpperCase()}</span> <code>${path}</code>`);
        for (const response of Object.values(operation.responses)) {
          for (const { code } of response['x-error-codes'] ?? []) expect(page.text).to.include(`<code>${code}</code>`);
        }
      }
    }
    for (const field of ['username', 'email', 'new_password', 'old_password', 'access_token', 'token_type']) {
      expect(page.text).to.include(`<td><code>${field}</code></td>`);
    }
    expect(page.text).to.not.include('<script');
    for (const [, url] of page.text.matchAll(/\s(?:src|href)="([^"]*)"/g)) expect(url).to.match(/^(\/auth\/|#)/);
    // Without the pages, the docs still serve the stylesheet the reference page uses.
    await http.get('/auth/assets/gatehouse-pages.css').expect(200);
    await http.get('/auth/login').expect(405);
  });

  it('describes a host serializer’s user, and serves under the host’s prefix', async () => {
    const userSchema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
    const document = accountApiDocument({ prefix: '/accounts', userSchema }) as unknown as Document;
    expect(document.components.schemas.User).to.deep.equal(userSchema);
    expect(document.servers[0].url).to.equal('/accounts');
    const { http } = buildPagesApp({ prefix: '/accounts', apiDocs: { userSchema } });
    const served = (await http.get('/accounts/openapi.json').expect(200)).body;
    expect(served.servers[0].url).to.equal('/accounts');
    expect(served.components.schemas.User).to.deep.equal(userSchema);
    expect((await http.get('/accounts/reference').expect(200)).text).to.include('href="/accounts/openapi.json"');
  });
});
