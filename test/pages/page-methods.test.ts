import { expect } from 'chai';
import { METHODS } from 'node:http';
import request from 'supertest';
import { accountApiDocument } from '../../src/app/account-api-document';
import { DRIVERS } from '../support/test-app';
import { buildPagesAppOn } from './pages-app';

/**
 * Methods no path of the document lists: some Node's parser knows but no router implements (TRACE, PROPFIND; QUERY
 * where this Node parses it, 20.x and later), and some the routers do (PUT, PATCH).
 */
const OTHER_METHODS = ['TRACE', 'QUERY', 'PROPFIND', 'SEARCH', 'PUT', 'PATCH'].filter((method) =>
  METHODS.includes(method),
);

/** The document's paths with what each takes, as `Allow` should say it. */
function documentedPaths(): [string, string[]][] {
  const document = accountApiDocument({ prefix: '/auth', pages: true, apiDocs: true }) as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(document.paths)
    .filter(([path]) => !path.includes('{'))
    .map(([path, operations]) => [path, Object.keys(operations).map((method) => method.toUpperCase())]);
}

/** Sends any method, including those supertest has no function for. */
function send(http: ReturnType<typeof request>, method: string, path: string) {
  const call = (http as unknown as Record<string, ((url: string) => request.Test) | undefined>)[method.toLowerCase()];
  if (call) return call.call(http, path);
  return (http as unknown as { request: (method: string, url: string) => request.Test }).request(method, path);
}

for (const driver of DRIVERS)
  describe(`pages: methods a page path does not take (${driver})`, () => {
    it(`answers ${OTHER_METHODS.join(', ')} on every page, asset and document path with 405 and its Allow`, async () => {
      const { http } = buildPagesAppOn(driver);
      const paths = documentedPaths();
      // The pages, their assets and the document are among them, not only the API's paths.
      expect(paths.map(([path]) => path)).to.include.members([
        '/',
        '/admin',
        '/security',
        '/password-reset',
        '/reference',
        '/openapi.json',
        '/assets/gatehouse-pages.js',
      ]);
      for (const [path, methods] of paths) {
        for (const method of OTHER_METHODS.filter((candidate) => !methods.includes(candidate))) {
          const url = `/auth${path === '/' ? '' : path}`;
          const response = await send(http, method, url);
          expect(response.status, `${method} ${url}`).to.equal(405);
          expect(response.headers.allow?.split(', ').sort(), `${method} ${url}`).to.deep.equal([...methods].sort());
          if (method !== 'HEAD') expect(response.body.detail.code).to.equal('method_not_allowed');
        }
      }
    });

    it('still answers 404 without Allow on a path under the prefix that nothing serves', async () => {
      const { http } = buildPagesAppOn(driver);
      for (const method of OTHER_METHODS) {
        const response = await send(http, method, '/auth/nothing-here');
        expect(response.status, method).to.equal(404);
        expect(response.headers.allow).to.equal(undefined);
      }
    });
  });
