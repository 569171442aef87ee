import type { Middleware } from 'koa';
import { pageAssetRoutes } from '../pages/account-pages';
import { sendPage } from '../pages/page-headers';
import { pageRoutes } from '../pages/page-routes';
import { apiReferencePage } from '../pages/views/api-reference-page';
import type { AccountApiDocumentOptions } from './account-api-document';
import type { JsonObject } from '../openapi/schemas';

/**
 * Serves the API description beside the account routes: `{prefix}/openapi.json` (OpenAPI 3.1) and
 * `{prefix}/reference`, the same document as a page. Both are built once, on first request, when every route is
 * known. Install it after `gatehouseHttp()`; `mountAccountRoutes(app, { apiDocs: true })` does so. A host that
 * serves the pages too says `pages: true`, so that the document lists them.
 *
 * @example
 * app.use(gatehouseHttp());
 * app.use(accountApiDocs({ prefix: '/auth' }));
 */
/**
 * The OpenAPI 3.1 document of the account routes (see `account-api-document.ts`). Its generator
 * (routing-controllers-openapi's route parser, class-validator-jsonschema's schema builder) is loaded by the first
 * call, not with the package: a host without the API description never loads it.
 */
export function accountApiDocument(options: AccountApiDocumentOptions = {}): JsonObject {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use on purpose (see above)
  const generator: typeof import('./account-api-document') = require('./account-api-document');
  return generator.accountApiDocument(options);
}

export function accountApiDocs(options: AccountApiDocumentOptions = {}): Middleware {
  const prefix = options.prefix ?? '/auth';
  let document: JsonObject | undefined;
  let reference: string | undefined;
  const built = () => (document ??= accountApiDocument({ ...options, prefix, apiDocs: true }));
  return pageRoutes(prefix, {
    '/openapi.json': (ctx) => {
      ctx.status = 200;
      ctx.body = built();
      // A public description, fetched by tools from other origins (editors, generators); it carries no credential.
      ctx.set('Access-Control-Allow-Origin', '*');
    },
    '/reference': (ctx) => sendPage(ctx, (reference ??= apiReferencePage(built(), prefix))),
    ...pageAssetRoutes(),
  });
}
