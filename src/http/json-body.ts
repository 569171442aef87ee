import type { IncomingMessage } from 'node:http';
import { httpErrorForStatus, malformedJsonError } from './http-errors';

// co-body reads and decodes Node's request itself: Express bodies are parsed with it, and Koa's with @koa/bodyparser,
// which is built on it, so both drivers give the same answers under the same limits. It ships no types; these are the
// calls made of it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const coBody: { json(req: IncomingMessage, options: object): Promise<unknown> } = require('co-body');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const typeIs: { is(value: string, types: string[]): string | false | null } = require('type-is');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const contentType: { parse(req: IncomingMessage): { parameters: Record<string, string> } } = require('content-type');

/** 16 KiB: far above any account request, far below what would make parsing a cost. */
export const DEFAULT_BODY_LIMIT = 16 * 1024;
/**
 * Objects and arrays nested deeper than this are refused. Account bodies are one level deep; a 16 KiB body can nest
 * 8,000 levels, and class-transformer (routing-controllers' body conversion) recurses once per level and overflows
 * the stack at about 2,000: a 500 found by the fuzz suite (test/fuzz).
 */
export const MAX_JSON_DEPTH = 64;

// DELETE is parsed too: DELETE /account carries the password.
export const PARSED_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
// JSON is UTF-8 (RFC 8259); no charset parameter means UTF-8.
const UTF8_CHARSETS = new Set(['', 'utf-8', 'utf8']);
// What the decoder below understands; anything else (brotli included) is refused before it reaches it.
const ENCODINGS = new Set(['', 'identity', 'gzip', 'deflate']);
const UNSUPPORTED_ENCODING = 'Request body must be JSON in UTF-8, identity, gzip or deflate';

export interface JsonBodyOptions {
  /** Largest accepted body after decoding (gzip included): bytes, or a string such as `'16kb'`. */
  limit?: string | number;
  /** The body is already parsed (by a parser the host installed first): only the checks of its headers apply. */
  parsed?: unknown;
  /** Reads and parses the body under `limit` (a driver's own parser); default co-body on Node's request. */
  parse?: () => Promise<unknown>;
}

/**
 * Reads a JSON request body, and only JSON: a body of any other type is 415, one over the limit 413, one that is
 * not JSON, or whose top level is not an object or array, 400 `malformed_json`. Resolves to the parsed body, or `{}`
 * when there was nothing to parse, so that the driver's own parser (koa-bodyparser on Koa, body-parser on Express,
 * installed by routing-controllers with a 1 MB limit and form parsing) finds the body parsed and stands aside.
 */
export async function readJsonBody(req: IncomingMessage, options: JsonBodyOptions = {}): Promise<unknown> {
  let body = options.parsed;
  if (carriesBody(req)) {
    if (!typeIs.is(req.headers['content-type'] ?? '', ['application/json'])) throw httpErrorForStatus(415);
    if (!UTF8_CHARSETS.has(charsetOf(req))) throw httpErrorForStatus(415, UNSUPPORTED_ENCODING);
    if (!ENCODINGS.has((req.headers['content-encoding'] ?? '').toLowerCase()))
      throw httpErrorForStatus(415, UNSUPPORTED_ENCODING);
    if (body === undefined) {
      try {
        body = options.parse
          ? await options.parse()
          : await coBody.json(req, { limit: options.limit ?? DEFAULT_BODY_LIMIT, strict: true, encoding: 'utf-8' });
      } catch (error) {
        throw parserError(error);
      }
    }
    const flaw = flawOf(body);
    if (flaw === 'replacement') throw httpErrorForStatus(400, 'Request body is not valid UTF-8 (or contains U+FFFD)');
    if (flaw === 'depth')
      throw httpErrorForStatus(400, `Request body is nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  return body === undefined ? {} : body;
}

function charsetOf(req: IncomingMessage): string {
  try {
    return (contentType.parse(req).parameters.charset ?? '').toLowerCase();
  } catch {
    return '';
  }
}

/**
 * What refuses a parsed body, if anything: nesting deeper than `MAX_JSON_DEPTH`, or U+FFFD in any key or string.
 * Invalid UTF-8 decodes to U+FFFD, and different bytes must never be the same password; a U+FFFD written as such, or
 * as the escape `\ufffd`, cannot be told apart from it once decoded, and is refused alike. Iterative, so that walking
 * a deep document cannot overflow the stack itself.
 */
function flawOf(body: unknown): 'depth' | 'replacement' | null {
  const pending: [unknown, number][] = [[body, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\uFFFD')) return 'replacement';
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth > MAX_JSON_DEPTH) return 'depth';
    for (const [key, child] of Object.entries(current)) {
      if (key.includes('\uFFFD')) return 'replacement';
      pending.push([child, depth + 1]);
    }
  }
  return null;
}

/** An empty body (`Content-Length: 0`, as an empty POST sends) is no body, whatever its type. */
/** Whether the request has a body this parser reads: one of `PARSED_METHODS`, with content. */
export function carriesBody(req: IncomingMessage): boolean {
  return PARSED_METHODS.includes(req.method ?? '') && hasBody(req);
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** raw-body and co-body errors, in our shapes; their messages (which may quote the body) are dropped. */
function parserError(error: unknown): unknown {
  const status = (error as { status?: unknown } | null)?.status;
  if (status === 413) return httpErrorForStatus(413);
  // An unknown charset or Content-Encoding.
  if (status === 415) return httpErrorForStatus(415, UNSUPPORTED_ENCODING);
  // co-body's parser (bourne) refuses a `__proto__` key, a prototype-pollution attempt; the JSON itself is valid,
  // so saying "malformed" would mislead.
  if (error instanceof SyntaxError && /forbidden prototype property/.test(error.message)) {
    return httpErrorForStatus(400, 'Request body must not contain a "__proto__" key');
  }
  if (error instanceof SyntaxError || status === 400) return malformedJsonError();
  // A body whose Content-Encoding does not match its bytes: zlib's own errors carry codes such as Z_DATA_ERROR.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('Z_'))
    return httpErrorForStatus(400, 'Request body could not be decoded');
  return error;
}
