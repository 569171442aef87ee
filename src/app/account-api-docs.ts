import { pageAssetRoutes } from '../pages/account-pages';
import type { PageRoute } from '../pages/page-answer';
import { pageAnswer } from '../pages/page-headers';
import { apiReferencePage } from '../pages/views/api-reference-page';
import type { AccountApiDocumentOptions } from './account-api-document';
import type { JsonObject } from '../openapi/schemas';

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

/**
 * The routes of the API description, below the prefix: `{prefix}/openapi.json` (OpenAPI 3.1) and
 * `{prefix}/reference`, the same document as a page. Both are built once, on first request, when every route is
 * known. Each driver serves them as middleware (`accountApiDocs()` of `gatehouse` or `gatehouse/express`).
 */
export function accountApiDocRoutes(options: AccountApiDocumentOptions = {}): Record<string, PageRoute> {
  const prefix = options.prefix ?? '/auth';
  let json: string | undefined;
  let reference: string | undefined;
  let document: JsonObject | undefined;
  const built = () => (document ??= accountApiDocument({ ...options, prefix, apiDocs: true }));
  return {
    '/openapi.json': () => ({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: (json ??= JSON.stringify(built())),
      // A public description, fetched by tools from other origins (editors, generators); it carries no credential.
      headers: { 'Access-Control-Allow-Origin': '*' },
    }),
    '/reference': () => pageAnswer((reference ??= apiReferencePage(built(), prefix))),
    ...pageAssetRoutes(),
  };
}
