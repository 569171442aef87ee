import { expect } from 'chai';
import fc from 'fast-check';
import {
  anyJsonValue,
  authorization,
  contentEncoding,
  contentType,
  encodeBody,
  httpMethod,
  jsonContentType,
  LIVE_TOKEN,
  pathSpelling,
  queryString,
  rawBytes,
  routeBody,
  unknownPath,
} from './arbitraries';
import { expectWellFormedAnswer, FuzzRequest, send } from './answer-checks';
import { FUZZ_PREFIX, FuzzApp, FuzzStoreKind, KNOWN, startFuzzApp } from './fuzz-app';
import { FUZZ_SEED, fuzzParameters } from './fuzz-settings';
import { FuzzRoute, ROUTES } from './routes';

/** Codes answered before a route's handler runs: parsing, media type, size, limits. */
const REFUSED_BEFORE_VALIDATION = new Set([
  'malformed_json',
  'unsupported_media_type',
  'payload_too_large',
  'bad_request',
  'rate_limited',
  'too_many_requests',
]);

type Reach = 'refused' | 'validation' | 'core';

/** How far a request got: refused by the HTTP layer, stopped by its DTO, or answered by the account core. */
function reachOf(status: number, text: string): Reach {
  const detail = (JSON.parse(text || '{}') as { detail?: { code?: string } | string }).detail;
  if (typeof detail === 'string') return status === 401 ? 'refused' : 'core';
  const code = detail?.code;
  if (code === undefined) return 'core';
  if (REFUSED_BEFORE_VALIDATION.has(code) || status === 429) return 'refused';
  return code === 'validation_error' ? 'validation' : 'core';
}

const STORES: FuzzStoreKind[] = ['memory', 'sqlite'];

for (const kind of STORES) {
  const title = `fuzz: the account routes on the ${kind} store (seed ${FUZZ_SEED}; replay with FUZZ_SEED=${FUZZ_SEED})`;
  describe(title, function () {
    this.timeout(120_000);
    let app: FuzzApp;

    before(async () => {
      app = await startFuzzApp(kind);
    });
    after(async () => {
      await app?.close();
    });

    /** Sends one generated request, with a fresh live session in place of the placeholder, and checks the answer. */
    async function exchange(spec: FuzzRequest) {
      const usesLive =
        spec.url.includes(LIVE_TOKEN) || Object.values(spec.headers).some((value) => value.includes(LIVE_TOKEN));
      if (usesLive) {
        const { token } = await app.freshSession();
        spec = {
          ...spec,
          url: spec.url.replaceAll(LIVE_TOKEN, token),
          headers: Object.fromEntries(
            Object.entries(spec.headers).map(([name, value]) => [name, value.replaceAll(LIVE_TOKEN, token)]),
          ),
        };
      }
      const answer = await send(app, spec);
      await expectWellFormedAnswer(app, spec, answer);
      return answer;
    }

    const headersOf = (entries: Record<string, string | undefined>) =>
      Object.fromEntries(Object.entries(entries).filter((entry): entry is [string, string] => entry[1] !== undefined));

    /** Mostly a live session on the routes that need one, so that their handlers run. */
    const authFor = (route: FuzzRoute) =>
      route.bearer
        ? fc.oneof(
            { weight: 3, arbitrary: fc.constant(`Bearer ${LIVE_TOKEN}`) },
            { weight: 1, arbitrary: authorization },
          )
        : fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: authorization });

    it('route-shaped JSON bodies: wrong types, huge and unicode strings, prototype-pollution keys', async () => {
      const reached: Record<Reach, number> = { refused: 0, validation: 0, core: 0 };
      const codes = new Map<string, number>();
      const cases = fc.constantFrom(...ROUTES).chain((route) =>
        fc.record({
          route: fc.constant(route),
          body: routeBody(route.fields),
          type: jsonContentType,
          auth: authFor(route),
        }),
      );
      await fc.assert(
        fc.asyncProperty(cases, async ({ route, body, type, auth }) => {
          const { response, text } = await exchange({
            method: route.method,
            url: `${FUZZ_PREFIX}${route.path}`,
            headers: headersOf({ 'Content-Type': type, Authorization: auth }),
            body: Buffer.from(body, 'utf8'),
            contentLength: true,
          });
          reached[reachOf(response.status, text)]++;
          const code = `${response.status} ${JSON.parse(text).detail?.code ?? ''}`;
          codes.set(code, (codes.get(code) ?? 0) + 1);
        }),
        fuzzParameters(400),
      );
      // The point of this property is the handlers: most runs must get past parsing, many past validation too.
      const total = reached.refused + reached.validation + reached.core;
      const summary = JSON.stringify({ reached, codes: Object.fromEntries(codes) });
      expect(reached.refused / total, summary).to.be.below(0.4);
      expect(reached.core / total, summary).to.be.above(0.35);
    });

    it('any JSON document, under any JSON content type', async () => {
      const document = fc.oneof(
        fc.json({ maxDepth: 4 }),
        anyJsonValue.map((value) => JSON.stringify(value)),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...ROUTES), document, jsonContentType, async (route, body, type) => {
          await exchange({
            method: route.method,
            url: `${FUZZ_PREFIX}${route.path}`,
            headers: { 'Content-Type': type, ...(route.bearer ? { Authorization: `Bearer ${LIVE_TOKEN}` } : {}) },
            body: Buffer.from(body, 'utf8'),
            contentLength: true,
          });
        }),
        fuzzParameters(150),
      );
    });

    it('raw bytes under any content type and content encoding, sized or chunked', async () => {
      const cases = fc.constantFrom(...ROUTES).chain((route) =>
        fc.record({
          route: fc.constant(route),
          bytes: fc.oneof(
            rawBytes(route.fields),
            routeBody(route.fields).map((text) => Buffer.from(text, 'utf8')),
          ),
          type: contentType,
          encoding: contentEncoding,
          auth: authFor(route),
          sized: fc.boolean(),
        }),
      );
      await fc.assert(
        fc.asyncProperty(cases, async ({ route, bytes, type, encoding, auth, sized }) => {
          await exchange({
            method: route.method,
            url: `${FUZZ_PREFIX}${route.path}`,
            headers: headersOf({ 'Content-Type': type, 'Content-Encoding': encoding.header, Authorization: auth }),
            body: encodeBody(bytes, encoding.apply),
            contentLength: sized,
          });
        }),
        fuzzParameters(300),
      );
    });

    it('Authorization headers and query strings, on every route', async () => {
      const cases = fc.constantFrom(...ROUTES).chain((route) =>
        fc.record({
          route: fc.constant(route),
          body: routeBody(route.fields),
          auth: authorization,
          query: queryString,
        }),
      );
      await fc.assert(
        fc.asyncProperty(cases, async ({ route, body, auth, query }) => {
          await exchange({
            method: route.method,
            url: `${FUZZ_PREFIX}${route.path}${query}`,
            headers: headersOf({ 'Content-Type': 'application/json', Authorization: auth }),
            body: route.method === 'get' ? undefined : Buffer.from(body, 'utf8'),
            contentLength: true,
          });
        }),
        fuzzParameters(250),
      );
    });

    it('every method on every spelling of every route, and paths that are no route', async () => {
      const known = fc.constantFrom(...ROUTES).chain((route) => pathSpelling(FUZZ_PREFIX, route.path));
      const cases = fc.record({
        path: fc.oneof({ weight: 3, arbitrary: known }, { weight: 1, arbitrary: unknownPath }),
        method: httpMethod,
        body: fc.option(routeBody(['username', 'password', 'email', 'token']), { freq: 2 }),
        auth: authorization,
      });
      await fc.assert(
        fc.asyncProperty(cases, async ({ path, method, body, auth }) => {
          await exchange({
            method,
            url: path,
            headers: headersOf({ 'Content-Type': body === null ? undefined : 'application/json', Authorization: auth }),
            body: body === null || method === 'head' ? undefined : Buffer.from(body, 'utf8'),
            contentLength: true,
          });
        }),
        fuzzParameters(250),
      );
    });

    it('bodies around the 16 KiB limit, compressed bombs and deep nesting', async () => {
      const nested = fc
        .record({
          depth: fc.integer({ min: 1, max: 6000 }),
          array: fc.boolean(),
          inField: fc.constantFrom('username', 'password', 'x', ''),
        })
        .map(({ depth, array, inField }) => {
          const inner = array
            ? `${'['.repeat(depth)}${']'.repeat(depth)}`
            : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
          return inField ? `{"${inField}":${inner},"email":"${KNOWN.email}"}` : inner;
        });
      const sized = fc
        .record({
          size: fc.integer({ min: 15 * 1024, max: 17 * 1024 }),
          field: fc.constantFrom('username', 'password', 'padding'),
          char: fc.constantFrom('a', 'é', '🦊'),
        })
        .map(({ size, field, char }) => {
          const head = `{"username":"${KNOWN.username}","password":"${KNOWN.password}","${field}":"`;
          const room = Math.max(0, Math.floor((size - Buffer.byteLength(head) - 2) / Buffer.byteLength(char)));
          return `${head}${char.repeat(room)}"}`;
        });
      const cases = fc.record({
        route: fc.constantFrom(...ROUTES),
        body: fc.oneof(nested, sized),
        coding: fc.constantFrom<'gzip' | 'deflate' | undefined>(undefined, undefined, 'gzip', 'deflate'),
      });
      await fc.assert(
        fc.asyncProperty(cases, async ({ route, body, coding }) => {
          await exchange({
            method: route.method,
            url: `${FUZZ_PREFIX}${route.path}`,
            headers: headersOf({
              'Content-Type': 'application/json',
              'Content-Encoding': coding,
              Authorization: route.bearer ? `Bearer ${LIVE_TOKEN}` : undefined,
            }),
            body: encodeBody(Buffer.from(body, 'utf8'), coding),
            contentLength: true,
          });
        }),
        fuzzParameters(100),
      );
    });
  });
}
