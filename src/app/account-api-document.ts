import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { getMetadataArgsStorage } from 'routing-controllers';
import { getPaths, OpenAPI, parseRoutes } from 'routing-controllers-openapi';
import { API_TAG, documentedActions } from '../openapi/api-doc';
import { ACCOUNT_CONTROLLERS } from './account-controllers';
import { featurePages } from './features';
import { addShadowedOperations } from './shadowed-operations';
import { ACCOUNT_ERROR_CODES } from '../errors/account-error';
import { httpErrorCodes, routingResponses } from '../openapi/error-responses';
import {
  DEFAULT_USER_SCHEMA,
  NO_PROTO_KEY,
  responseSchemas,
  SECURITY_SCHEMES,
  type JsonObject,
} from '../openapi/schemas';
import {
  addHeadOperations,
  assetPaths,
  documentPaths,
  NON_API_TAGS,
  pagePaths,
  PAGES_TAG,
  type Paths,
} from './account-api-doc-pages';

type Schemas = Record<string, JsonObject>;

export interface AccountApiDocumentOptions {
  /** The prefix the account routes are mounted under; it becomes the server URL. Default `/auth`. */
  prefix?: string;
  /** The JSON Schema of `GET /me`'s answer when a USER_SERIALIZER changes it. */
  userSchema?: JsonObject;
  /**
   * The hosted pages are served under the prefix (`accountPages()`): their GET and HEAD are listed, tagged apart.
   * `mountAccountRoutes(app, { pages: true, apiDocs: true })` says so by itself.
   */
  pages?: boolean;
  /** The document is served under the prefix (`accountApiDocs()` sets it): `/openapi.json` and `/reference` are listed. */
  apiDocs?: boolean;
}

const DESCRIPTION = `Account management: registration, email verification, login with opaque bearer sessions that
their user can list and end, logout, re-authentication, password reset and change, email address change, account
deletion.

- Bodies are JSON objects (\`application/json\`, UTF-8, at most 16 KiB by default); unknown fields are ignored, but
  a \`__proto__\` key is refused (400 \`bad_request\`).
- Protected routes take \`Authorization: Bearer <access_token>\`, never a token in the URL.
- Errors answer \`{"detail": {"detail": "<message>", "code": "<code>"}}\`, except a missing bearer header:
  401 \`{"detail": "Not authenticated"}\`. Both 401s carry \`WWW-Authenticate: Bearer\`.
- 429 \`rate_limited\` and 503 \`service_unavailable\` carry \`Retry-After\` (seconds).
- Every answer is \`Cache-Control: no-store\`.
- Every path answers HEAD where it answers GET, and OPTIONS with 204 and \`Allow\` (\`components.responses\`); a
  method it does not list answers 405 with \`Allow\`, and a path under the prefix that is not listed answers 404.`;

/**
 * The OpenAPI 3.1 document of the account routes. Paths, methods, request bodies and success statuses are read
 * from routing-controllers' metadata of the `ACCOUNT_CONTROLLERS` and from the DTOs' class-validator rules; summaries,
 * response bodies, error answers (statuses and codes from the errors' own table) and the bearer requirement come
 * from each action's `@ApiDoc`. Paths are relative to the server URL, which is the prefix.
 *
 * @example
 * const document = accountApiDocument({ prefix: '/auth' });
 */
export function accountApiDocument(options: AccountApiDocumentOptions = {}): JsonObject {
  applyApiDocs();
  const routes = parseRoutes(getMetadataArgsStorage()).filter((route) =>
    (ACCOUNT_CONTROLLERS as readonly unknown[]).includes(route.controller?.target),
  );
  const dtoSchemas = validationMetadatasToSchemas({ refPointerPrefix: '#/components/schemas/' }) as Schemas;
  const paths = getPaths(routes, dtoSchemas) as Paths;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) markBodyRequired(operation);
  }
  const allPaths = mergePaths(
    paths,
    options.pages ? pagePaths(featurePages()) : {},
    options.pages || options.apiDocs ? assetPaths() : {},
    options.apiDocs ? documentPaths() : {},
  );
  addShadowedOperations(allPaths);
  addHeadOperations(allPaths);
  // The assets are tagged as pages: that tag is listed whenever they are.
  const tags = [
    { name: API_TAG, description: 'The JSON API of accounts and sessions.' },
    ...NON_API_TAGS.filter((tag) => (tag.name === PAGES_TAG ? options.pages || options.apiDocs : options.apiDocs)),
  ];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gatehouse account API',
      // The routes are the specification's, without a version scheme; this changes when they do.
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.prefix || '/', description: 'The account routes, relative to this document’s host' }],
    tags,
    paths: allPaths,
    components: {
      schemas: {
        // Every DTO class of the process has a schema; only the account routes' own belong here.
        ...refusingProtoKeys(pick(dtoSchemas, referencedSchemas(paths))),
        ...responseSchemas(options.userSchema ?? DEFAULT_USER_SCHEMA),
        ErrorCode: { type: 'string', enum: [...new Set([...ACCOUNT_ERROR_CODES, ...httpErrorCodes()])] },
      },
      responses: routingResponses(),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** routing-controllers-openapi names the DTO as the body's description and leaves the body optional; it is not. */
function markBodyRequired(operation: JsonObject): void {
  const body = operation.requestBody as JsonObject | undefined;
  if (!body) return;
  delete body.description;
  body.required = true;
}

/** Joins path maps; a path in several (a page on the GET of an API route) gets the methods of each. */
function mergePaths(...sources: Paths[]): Paths {
  const merged: Paths = {};
  for (const source of sources) {
    for (const [path, operations] of Object.entries(source)) merged[path] = { ...merged[path], ...operations };
  }
  return merged;
}

/** The body schemas state the parser's refusal of a `__proto__` key (see `NO_PROTO_KEY`). */
function refusingProtoKeys(schemas: Schemas): Schemas {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, { ...schema, propertyNames: NO_PROTO_KEY }]),
  );
}

function referencedSchemas(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => referencedSchemas(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')) {
        found.add(inner.slice('#/components/schemas/'.length));
      } else referencedSchemas(inner, found);
    }
  }
  return found;
}

function pick(schemas: Schemas, names: Set<string>): Schemas {
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => names.has(name)));
}

let apiDocsApplied = false;

/** Hands each `@ApiDoc` to routing-controllers-openapi as its `@OpenAPI` transform, once, before the first build. */
function applyApiDocs(): void {
  if (apiDocsApplied) return;
  apiDocsApplied = true;
  for (const { target, method, transform } of documentedActions()) {
    OpenAPI(transform)(target, method, Object.getOwnPropertyDescriptor(target, method)!);
  }
}
