import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** An HTTP answer as the contract sees it: the request's method and path, and what came back. */
export interface Answer {
  method: string;
  /** The request's path, query excluded, as sent (prefix included). */
  path: string;
  status: number;
  /** Lower-case names, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The body as received, `''` when there was none. */
  text: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is JSON, walked by key
type Json = Record<string, any>;

const DOCUMENT_ID = 'urn:gatehouse:openapi';
const BODILESS_STATUSES = new Set([204, 304]);
const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Checks answers against one OpenAPI 3.1 document with Ajv in its JSON Schema 2020-12 mode (the dialect of OpenAPI
 * 3.1's schemas) and ajv-formats, over the document's own schemas: nothing about a body is written here. The rules
 * that are not schemas are the document's own structure: which path, method and status an answer belongs to, its
 * media type, the headers it requires, and the answers the document names for what it does not list
 * (`components.responses`: NotFound, MethodNotAllowed, AllowedMethods).
 */
export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Headers that mean something wherever they appear: those the document declares on any answer. */
  private readonly contractHeaders: Set<string>;
  private readonly base: string;

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.base = String(document.servers?.[0]?.url ?? '/').replace(/\/+$/, '');
    this.contractHeaders = new Set();
    walkResponses(document, (response) => {
      for (const name of Object.keys(response.headers ?? {})) this.contractHeaders.add(name.toLowerCase());
    });
  }

  /** The path is under the document's server URL (its prefix). */
  covers(path: string): boolean {
    return pathBelow(this.base, path) !== null;
  }

  /**
   * What is wrong with the answer by the document, or null when it is right or not the document's business (a path
   * outside the server URL, the prefix).
   */
  violation(answer: Answer): string | null {
    const below = pathBelow(this.base, answer.path);
    if (below === null) return null;
    const where = `${answer.method} ${answer.path} → ${answer.status}`;
    const problems = this.problems(answer, below);
    return problems.length === 0 ? null : `${where}: ${problems.join('; ')}`;
  }

  private problems(answer: Answer, below: string): string[] {
    const pathKey = this.pathOf(below);
    const method = answer.method.toLowerCase();
    if (pathKey === null) return this.named('NotFound', 404, answer);
    const operations: Json = this.document.paths[pathKey];
    const operation: Json | undefined = operations[method];
    if (!operation) {
      const listed = OPERATION_METHODS.filter((name) => operations[name]).map((name) => name.toUpperCase());
      const named =
        method === 'options' ? this.named('AllowedMethods', 204, answer) : this.named('MethodNotAllowed', 405, answer);
      return [...named, ...allowProblems(answer, listed, `${method.toUpperCase()} is not listed for ${pathKey}`)];
    }
    const pointer = ['paths', pathKey, method, 'responses'];
    const status = String(answer.status);
    const key = [status, `${status[0]}XX`, 'default'].find((candidate) => operation.responses[candidate]);
    if (!key) return [`status ${status} is not documented for ${method.toUpperCase()} ${pathKey}`];
    return this.responseProblems([...pointer, key], answer, method === 'head');
  }

  /** The answer must be the named response of `components.responses`, with its status. */
  private named(name: string, status: number, answer: Answer): string[] {
    if (answer.status !== status) return [`expected ${status} (components.responses.${name}), got ${answer.status}`];
    return this.responseProblems(['components', 'responses', name], answer, answer.method === 'HEAD');
  }

  private responseProblems(pointer: string[], answer: Answer, head: boolean): string[] {
    const [response, at] = this.resolve(pointer);
    const problems: string[] = [];
    const declared = new Set<string>();
    for (const name of Object.keys(response.headers ?? {})) {
      const [header, headerAt] = this.resolve([...at, 'headers', name]);
      declared.add(name.toLowerCase());
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const text = Array.isArray(value) ? value.join(', ') : value;
      const errors = this.validate([...headerAt, 'schema'], headerValue(text, schema));
      if (errors) problems.push(`header ${name}: ${errors}`);
    }
    for (const name of this.contractHeaders) {
      if (answer.headers[name] !== undefined && !declared.has(name)) problems.push(`header ${name} is not declared`);
    }
    const hasBody = !head && !BODILESS_STATUSES.has(answer.status) && answer.text !== '';
    const content: Json | undefined = response.content;
    if (!hasBody) {
      if (content && !head && !BODILESS_STATUSES.has(answer.status)) problems.push('the documented body is missing');
      return problems;
    }
    if (!content) return [...problems, 'a body where the document declares none'];
    const mediaType = String(answer.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (!content[mediaType]) {
      return [...problems, `content type "${mediaType}" is not one of ${Object.keys(content).join(', ')}`];
    }
    let body: unknown = answer.text;
    if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
      try {
        body = JSON.parse(answer.text);
      } catch {
        return [...problems, 'the body is not JSON'];
      }
    }
    const errors = this.validate([...at, 'content', mediaType, 'schema'], body);
    if (errors) problems.push(`body ${JSON.stringify(body).slice(0, 300)}: ${errors}`);
    return problems;
  }

  /** Validates `value` against the schema at `pointer` in the document; the errors in words, or null. */
  private validate(pointer: string[], value: unknown): string | null {
    // A URI fragment: the pointer's segments are percent-encoded (a path template's braces).
    const ref = `${DOCUMENT_ID}#${toPointer(pointer).split('/').map(encodeURIComponent).join('/')}`;
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    if (validate(value)) return null;
    return this.ajv.errorsText(validate.errors, { dataVar: 'answer' });
  }

  /** The object at `pointer`, following a `$ref` (OpenAPI's Reference Object) to where it leads. */
  private resolve(pointer: string[]): [Json, string[]] {
    let at = pointer;
    let value: Json = at.reduce<Json>((node, segment) => node?.[segment], this.document);
    while (value && typeof value.$ref === 'string' && value.$ref.startsWith('#/')) {
      at = value.$ref
        .slice(2)
        .split('/')
        .map((segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
      value = at.reduce<Json>((node, segment) => node?.[segment], this.document);
    }
    if (!value) throw new Error(`The document has nothing at ${toPointer(pointer)}`);
    return [value, at];
  }

  /** The document's path that `below` is, matched as the router matches: case-insensitively, one trailing slash. */
  private pathOf(below: string): string | null {
    const wanted = (below.replace(/(.)\/$/, '$1') || '/').toLowerCase();
    for (const key of Object.keys(this.document.paths)) {
      const pattern = key
        .toLowerCase()
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
        .join('[^/]+');
      if (new RegExp(`^${pattern}$`).test(wanted)) return key;
    }
    return null;
  }
}

/** The path below the server URL (`''` for the URL itself), or null for a path outside it. */
function pathBelow(base: string, path: string): string | null {
  const lower = base.toLowerCase();
  const candidate = path.toLowerCase();
  if (lower === '') return path;
  if (candidate === lower) return '';
  return candidate.startsWith(`${lower}/`) ? path.slice(base.length) : null;
}

/** `Allow` lists exactly the methods the document lists for the path. */
function allowProblems(answer: Answer, listed: string[], why: string): string[] {
  const allow = answer.headers.allow;
  if (typeof allow !== 'string') return [];
  const sent = allow
    .split(',')
    .map((method) => method.trim().toUpperCase())
    .filter(Boolean)
    .sort();
  const expected = [...listed].sort();
  return sent.join(',') === expected.join(',') ? [] : [`${why}, and Allow "${allow}" is not the listed ${expected}`];
}

/** A header is text; a schema of a number is met by its digits. */
function headerValue(text: string, schema: Json): unknown {
  const numeric = schema.type === 'integer' || schema.type === 'number';
  return numeric && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
}

function toPointer(segments: string[]): string {
  return segments.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function walkResponses(document: Json, visit: (response: Json) => void): void {
  for (const operations of Object.values<Json>(document.paths ?? {})) {
    for (const method of OPERATION_METHODS) {
      for (const response of Object.values<Json>(operations[method]?.responses ?? {})) visit(response);
    }
  }
  for (const response of Object.values<Json>(document.components?.responses ?? {})) visit(response);
}
