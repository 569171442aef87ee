import type { HostedPages } from '../pages/hosted-page';
import { SCRIPT_PATH, STYLES_PATH, WEBAUTHN_SCRIPT_PATH } from '../pages/layout';
import { errorResponses, pageErrorCases } from '../openapi/error-responses';
import { responseHeaders, type JsonObject } from '../openapi/schemas';

/** The paths of an OpenAPI document: path → method → operation. */
export type Paths = Record<string, Record<string, JsonObject>>;

export const PAGES_TAG = 'Hosted pages';
export const DOCUMENT_TAG = 'API description';

export const NON_API_TAGS: JsonObject[] = [
  {
    name: PAGES_TAG,
    description:
      'Server-rendered HTML for people (`accountPages()`, `GATEHOUSE_PAGES`), on the GET of the paths whose POST is ' +
      'the API, with their script and stylesheet. A GET only renders; the page calls the API to act.',
  },
  {
    name: DOCUMENT_TAG,
    description: 'This document, and the same as a page (`accountApiDocs()`, `GATEHOUSE_API_DOCS`).',
  },
];

/** The hosted pages' GETs (each feature's, from `featurePages()`), and the bare prefix, which redirects to the account page. */
export function pagePaths(pages: HostedPages): Paths {
  const paths: Paths = {};
  for (const [path, page] of Object.entries(pages)) {
    paths[path] = { get: publicGet(`${camel(path)}Page`, PAGES_TAG, page.summary, 'text/html') };
    if (page.link) linkPage(paths[path].get, page.link);
  }
  paths['/'] = {
    get: withResponses(
      { operationId: 'landingPage', tags: [PAGES_TAG], summary: 'Redirects to the account page', security: [] },
      {
        '303': {
          description: 'To the account page.',
          headers: responseHeaders({ Location: true }),
          // Koa's redirect note: HTML when the client accepts it, else text.
          content: { 'text/html': { schema: { type: 'string' } }, 'text/plain': { schema: { type: 'string' } } },
        },
      },
    ),
  };
  return paths;
}

/**
 * A link's landing page: its `token` parameter, which the GET only reads to name what it would confirm (`what`), and
 * the 503 it answers while the store cannot say.
 */
function linkPage(operation: JsonObject, what: string): void {
  operation.parameters = [
    {
      name: 'token',
      in: 'query',
      required: false,
      description: `The token of the emailed link; the GET only names the ${what}, it never spends the token.`,
      schema: { type: 'string' },
    },
  ];
  (operation.responses as Record<string, JsonObject>)['503'] = {
    description: 'The store is down: the page says so and asks to retry after `Retry-After` seconds.',
    headers: responseHeaders({ 'Retry-After': true }),
    content: { 'text/html': { schema: { type: 'string' } } },
  };
}

/** The pages' script and stylesheet (served with the pages, and with the document for its reference page). */
export function assetPaths(): Paths {
  return {
    [SCRIPT_PATH]: { get: publicGet('pagesScript', PAGES_TAG, 'The pages’ script', 'application/javascript') },
    [STYLES_PATH]: { get: publicGet('pagesStylesheet', PAGES_TAG, 'The pages’ stylesheet', 'text/css') },
    [WEBAUTHN_SCRIPT_PATH]: {
      get: publicGet(
        'webauthnLibrary',
        PAGES_TAG,
        'The WebAuthn library of the passkey pages',
        'application/javascript',
      ),
    },
  };
}

/** `/openapi.json` and `/reference`. */
export function documentPaths(): Paths {
  const document = publicGet('openApiDocument', DOCUMENT_TAG, 'This document (OpenAPI 3.1)', 'application/json', {
    type: 'object',
    description: 'An OpenAPI 3.1 document.',
  });
  const ok = (document.responses as Record<string, JsonObject>)['200'];
  ok.headers = responseHeaders({ 'Access-Control-Allow-Origin': true });
  return {
    '/openapi.json': { get: document },
    '/reference': { get: publicGet('apiReferencePage', DOCUMENT_TAG, 'This document as a page', 'text/html') },
  };
}

/**
 * Adds HEAD beside every GET: the router answers it (headers of the GET, no body), so the document lists it and
 * `Allow` agrees with it. Its responses are the GET's without content.
 */
export function addHeadOperations(paths: Paths): void {
  for (const operations of Object.values(paths)) {
    const get = operations.get;
    if (!get || operations.head) continue;
    const responses = Object.fromEntries(
      Object.entries(get.responses as Record<string, JsonObject>).map(([status, response]) => {
        // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the content is what HEAD leaves out
        const { content, ...rest } = response;
        return [status, rest];
      }),
    );
    operations.head = {
      ...get,
      operationId: `head${capitalize(String(get.operationId))}`,
      summary: `${String(get.summary)} (headers only)`,
      responses,
    };
  }
}

function publicGet(
  operationId: string,
  tag: string,
  summary: string,
  mediaType: string,
  schema: JsonObject = { type: 'string' },
): JsonObject {
  return withResponses(
    { operationId, tags: [tag], summary, security: [] },
    { '200': { description: summary, content: { [mediaType]: { schema } } } },
  );
}

/** The operation with its success answers, then the errors any page can give (JSON, as every error is). */
function withResponses(operation: JsonObject, success: Record<string, JsonObject>): JsonObject {
  return { ...operation, responses: { ...success, ...errorResponses(pageErrorCases()) } };
}

function camel(path: string): string {
  return path
    .replace(/^\//, '')
    .split(/[-/.]/)
    .map((part, index) => (index === 0 ? part : capitalize(part)))
    .join('');
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
