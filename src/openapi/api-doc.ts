import type { OpenAPIParam } from 'routing-controllers-openapi';
import type { AccountErrorCode } from '../errors/account-error';
import { pathValuesOf, undecodablePathError, type PathValueRule } from '../http/path-values';
import {
  accountErrorCases,
  bearerErrorCases,
  bodyErrorCases,
  commonErrorCases,
  errorResponses,
  queryErrorCases,
  type ErrorCase,
} from './error-responses';
import { BEARER_SCHEME, ref, responseHeaders, type ResponseHeaderName, type SuccessSchemaName } from './schemas';

/** The tag of the account API's operations (the hosted pages and the document itself have their own). */
export const API_TAG = 'Account API';

/** What routing-controllers' metadata cannot say about an action. */
export interface ApiDocOptions {
  summary: string;
  description?: string;
  /**
   * The success body (its status is the action's `@HttpCode`, 200 by default); null for an answer without one (a
   * 204, `@HttpCode(204)` with `@OnUndefined(204)`).
   */
  response: SuccessSchemaName | null;
  /**
   * The account errors of this action. Those every route can give (a rate limit, an overload, a 500), those of
   * reading a JSON body (POST and DELETE), and those of a missing or dead session (with `bearer`) are added.
   */
  errors?: AccountErrorCode[];
  /** The action reads `Authorization: Bearer` (its `@BearerToken()` parameter). */
  bearer?: boolean;
  /** The action reads query parameters (a `@QueryParams()` DTO): a bad one is a `validation_error`. */
  query?: boolean;
  /**
   * What each parameter of the path means, by name (`{ id: 'The session id' }` for `/sessions/:id`). The parameters
   * themselves, required strings (any one path segment), are read from the route's path; a name the path lacks
   * fails the document's build.
   */
  pathParameters?: Record<string, string>;
  /**
   * The action answers 201 with the same body when it creates what it names, and its usual status (200) when that
   * existed already: this says when, as the 201's description.
   */
  createdWhen?: string;
  /** Headers of the success answer (true: always sent), such as the `Set-Cookie` of a provider flow. */
  headers?: Partial<Record<ResponseHeaderName, boolean>>;
  /**
   * The action answers its `@HttpCode` redirect (`@Redirect`), with `Location` and the driver's short note in
   * text or HTML as the body; `response` is then null.
   */
  redirect?: boolean;
}

type Transform = Extract<OpenAPIParam, (...args: never[]) => unknown>;
type Operation = Parameters<Transform>[0];
type Route = Parameters<Transform>[1];

/**
 * Documents an action for the OpenAPI document (`accountApiDocument()`): summary, success body, error answers by
 * status with their codes, and the bearer requirement. Paths, methods, request bodies and success statuses still
 * come from the routing-controllers decorators and the DTOs.
 *
 * @example
 * @Post('/login')
 * @ApiDoc({ summary: 'Log in', response: 'AccessToken', errors: ['invalid_credentials', 'unverified_user'] })
 */
export function ApiDoc(doc: ApiDocOptions): MethodDecorator {
  // Recorded here, and handed to routing-controllers-openapi only when the document is built
  // (`documentedActions`): decorating with its own `@OpenAPI` would load the whole generator with the controllers.
  return (target, method) => {
    documented.push({ target, method: String(method), doc });
  };
}

const documented: { target: object; method: string; doc: ApiDocOptions }[] = [];

/** Every action `@ApiDoc` documented: its controller prototype, method and what to do to its operation. */
export function documentedActions(): { target: object; method: string; transform: Transform }[] {
  return documented.map(({ target, method, doc }) => ({
    target,
    method,
    transform: (operation: Operation, route: Route) => withDocumentation(operation, route, doc),
  }));
}

function withDocumentation(operation: Operation, route: Route, doc: ApiDocOptions): Operation {
  const [successStatus] = Object.keys(operation.responses ?? { 200: {} });
  const pathValues = pathValuesOf(route.action.target, route.action.method);
  const cases: ErrorCase[] = [
    ...(doc.bearer ? bearerErrorCases() : []),
    ...(route.action.type === 'get' ? [] : bodyErrorCases()),
    ...(doc.query ? queryErrorCases() : []),
    ...(doc.errors ?? []).flatMap(accountErrorCases),
    ...pathValueErrorCases(pathValues, doc.errors ?? []),
    ...commonErrorCases(),
  ];
  return {
    ...operation,
    ...(pathValues.size > 0 || doc.pathParameters
      ? { parameters: describePathParameters(operation, doc.pathParameters ?? {}, pathValues) }
      : {}),
    operationId: route.action.method,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [API_TAG],
    // An empty list says "public" in so many words, where no `security` would read as forgotten.
    security: doc.bearer ? [{ [BEARER_SCHEME]: [] }] : [],
    responses: {
      [successStatus]: successResponse(doc),
      ...(doc.createdWhen && doc.response !== null
        ? { 201: { description: doc.createdWhen, content: { 'application/json': { schema: ref(doc.response) } } } }
        : {}),
      ...errorResponses(cases),
    },
  };
}

function successResponse(doc: ApiDocOptions): Record<string, unknown> {
  const headers = doc.redirect ? { Location: true, ...doc.headers } : doc.headers;
  return {
    description: doc.summary,
    ...(headers ? { headers: responseHeaders(headers) } : {}),
    ...(doc.redirect
      ? // Koa's and Express's redirect note: HTML when the client accepts it, else text.
        { content: { 'text/html': { schema: { type: 'string' } }, 'text/plain': { schema: { type: 'string' } } } }
      : doc.response === null
        ? {}
        : { content: { 'application/json': { schema: ref(doc.response) } } }),
  };
}

function describePathParameters(
  operation: Operation,
  descriptions: Record<string, string>,
  rules: ReadonlyMap<string, PathValueRule>,
): Operation['parameters'] {
  const parameters = [...(operation.parameters ?? [])];
  const isPath = (parameter: (typeof parameters)[number], name?: string) =>
    'in' in parameter && parameter.in === 'path' && (name === undefined || parameter.name === name);
  for (const name of Object.keys(descriptions)) {
    if (!parameters.some((parameter) => isPath(parameter, name)))
      throw new Error(`Gatehouse: @ApiDoc describes a path parameter "${name}" its route does not have`);
  }
  return parameters.map((parameter) => {
    if (!isPath(parameter) || !('name' in parameter)) return parameter;
    const name = String(parameter.name);
    // The action reads every path parameter through a rule (`@PathValue`), whose pattern is the schema: the
    // generator's own (the router's segment pattern, `[^\/#\?]+?`) would say any segment is taken.
    const rule = rules.get(name);
    if (!rule) throw new Error(`Gatehouse: the path parameter "${name}" is not read with a @PathValue rule`);
    const description = descriptions[name];
    return { ...parameter, schema: { ...rule.schema }, ...(description ? { description } : {}) };
  });
}

/**
 * What a route answers to a path value its rule refuses (the rule's own error, unless the route lists it already),
 * and to a path that is not percent-encoded UTF-8.
 */
function pathValueErrorCases(rules: ReadonlyMap<string, PathValueRule>, listed: AccountErrorCode[]): ErrorCase[] {
  if (rules.size === 0) return [];
  const refusals = [...rules.values()]
    .map((rule) => rule.refusal().code)
    .filter((code, index, codes) => !listed.includes(code) && codes.indexOf(code) === index);
  return [
    ...refusals.flatMap(accountErrorCases),
    {
      error: undecodablePathError(),
      description: 'A path parameter is not percent-encoded UTF-8 (`%FF`, `%C3%28`, an encoded lone surrogate).',
    },
  ];
}
