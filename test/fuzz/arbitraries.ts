import fc from 'fast-check';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { KNOWN } from './fuzz-app';

/**
 * Inputs that have broken input handling in some library at some time: line breaks and NUL (header injection,
 * C strings), quotes and separators (address lists, SQL), look-alikes that NFKC folds (fullwidth and small `@`,
 * ligatures, Kelvin sign), combining marks, zero-width and bidi characters, a BOM, astral emoji, U+FFFD, and
 * strings that template or query languages treat specially.
 */
const TRICKY = [
  '\r',
  '\n',
  '\r\n',
  '\t',
  '\u0000',
  '\u007f',
  '\u0085',
  '"',
  "'",
  ',',
  ';',
  '<',
  '>',
  '\\',
  '/',
  '@',
  '＠',
  '﹫',
  ' ',
  '\u00a0',
  '\u200b',
  '\u200d',
  '\u202e',
  '\ufeff',
  '\u2028',
  '\u0301',
  'é',
  'e\u0301',
  'ß',
  'İ',
  'ı',
  'ﬃ',
  '㎏',
  'K',
  '🦊',
  '👩‍👩‍👧',
  '\ufffd',
  '%00',
  '%0d%0a',
  '../',
  '${x}',
  '{{x}}',
  '$where',
  'null',
  'undefined',
];

/** Keys that mean something to JavaScript objects, validators or the account model. */
export const SPECIAL_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'role',
  'roles',
  'verified',
  'id',
  'password_hash',
  '',
];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));

const textUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 1, arbitrary: loneSurrogate },
);

/** Short strings of anything: ASCII, any code point, tricky sequences and lone surrogates. */
export const nastyString = fc.string({ unit: textUnit, maxLength: 48 });

/** Lengths at and around every bound: DTO caps (64, 320, 1024, 512), policy (12, 128), email (254), body (16 KiB). */
const BOUNDARY_LENGTHS = [
  0, 1, 2, 3, 11, 12, 32, 33, 43, 63, 64, 65, 128, 129, 254, 255, 320, 321, 512, 513, 1024, 1025, 4096, 15_000, 17_000,
];

export const longString = fc
  .record({
    length: fc.constantFrom(...BOUNDARY_LENGTHS),
    char: fc.constantFrom('a', 'é', '🦊', '\u0301', '＠', ' ', '\u0000'),
  })
  .map(({ length, char }) => char.repeat(length));

const emailLike = fc
  .tuple(
    nastyString,
    fc.constantFrom('@', '＠', '﹫', '@@', '', '@a@'),
    nastyString,
    fc.constantFrom('.com', '.example', '', '.', '.com\r\n'),
  )
  .map(([local, at, domain, tld]) => `${local}${at}${domain}${tld}`);

const rawToken = fc.stringMatching(/^[A-Za-z0-9_-]{43}$/);

const knownValue = fc.constantFrom<string>(
  KNOWN.username,
  KNOWN.email,
  KNOWN.password,
  KNOWN.username.toUpperCase(),
  `${KNOWN.email}\r\n`,
);

/** Any JSON value, strings drawn from everything (lone surrogates are escaped by JSON.stringify). */
export const anyJsonValue = fc.jsonValue({ maxDepth: 3, stringUnit: textUnit });

/** A value for a body field: mostly strings that could be right, often the wrong type. */
export const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: nastyString },
  { weight: 2, arbitrary: emailLike },
  { weight: 2, arbitrary: rawToken },
  { weight: 3, arbitrary: knownValue },
  { weight: 2, arbitrary: longString },
  { weight: 2, arbitrary: anyJsonValue },
);

const ABSENT = Symbol('absent');

/**
 * The JSON text of a body for a route: each field usually present, plus a few extra keys (prototype-pollution
 * names among them). Written by hand rather than with JSON.stringify of an object, so that `__proto__` is a real
 * key of the text and duplicate keys happen.
 */
export function routeBody(fields: readonly string[]): fc.Arbitrary<string> {
  const own = fields.map((field) =>
    fc
      .oneof({ weight: 1, arbitrary: fc.constant<typeof ABSENT>(ABSENT) }, { weight: 8, arbitrary: fieldValue })
      .map((value): [string, unknown] | null => (value === ABSENT ? null : [field, value])),
  );
  const extraKey = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_KEYS) },
    { weight: 1, arbitrary: fc.constantFrom(...fields, 'x') },
    { weight: 1, arbitrary: nastyString },
  );
  const extras = fc.array(fc.tuple(extraKey, anyJsonValue), { maxLength: 3 });
  return fc.tuple(fc.tuple(...own), extras).map(([present, extra]) => {
    const entries = [...present.filter((entry): entry is [string, unknown] => entry !== null), ...extra];
    return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
  });
}

/** Header values Node's HTTP client will send: tab, printable ASCII and Latin-1 (sent as raw bytes). */
export const headerText = fc.string({
  unit: fc
    .oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
      { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
      { weight: 1, arbitrary: fc.constant(0x09) },
    )
    .map((code) => String.fromCharCode(code)),
  maxLength: 64,
});

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'application/json; charset="utf-8"',
  'Application/JSON',
  'application/json; boundary=x',
  'application/json; foo=bar; charset=utf8',
];
const OTHER_TYPES = [
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----fuzz',
  'application/xml',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/*',
  '*/*',
  'application/json; charset=latin1',
  'application/json; charset=utf-16le',
  'application/json; charset=utf-32',
  'application/json; charset=bogus',
  'application/json; charset=',
  'application/json, text/plain',
  ';',
  'json',
  '',
];

/** A Content-Type header, or none (undefined). */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...JSON_TYPES) },
  { weight: 3, arbitrary: fc.constantFrom(...OTHER_TYPES) },
  { weight: 1, arbitrary: headerText },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

export const jsonContentType = fc.constantFrom(...JSON_TYPES);

type Coding = 'gzip' | 'deflate' | 'br';
const CODERS: Record<Coding, (bytes: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

/**
 * A Content-Encoding header and what is done to the body: encoded as claimed, encoded otherwise, or left as is.
 * Mostly none, so that most runs still reach the handlers.
 */
export const contentEncoding: fc.Arbitrary<{ header?: string; apply?: Coding }> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({}) },
  {
    weight: 4,
    arbitrary: fc.record({
      header: fc.constantFrom(
        'identity',
        'gzip',
        'deflate',
        'GZIP',
        'br',
        'gzip, gzip',
        'gzip, identity',
        'compress',
        '',
      ),
      apply: fc.constantFrom<Coding | undefined>('gzip', 'deflate', 'br', undefined),
    }),
  },
  { weight: 1, arbitrary: headerText.map((header) => ({ header })) },
);

export function encodeBody(body: Buffer, coding: Coding | undefined): Buffer {
  return coding ? CODERS[coding](body) : body;
}

/** Raw bytes: random, or a valid body with bytes flipped, cut or inserted (invalid UTF-8 among them). */
export function rawBytes(fields: readonly string[]): fc.Arbitrary<Buffer> {
  const random = fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes));
  const mutated = fc
    .tuple(
      routeBody(fields),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('flip', 'cut', 'insert')), {
        minLength: 1,
        maxLength: 4,
      }),
    )
    .map(([text, edits]) => {
      let bytes = Buffer.from(text, 'utf8');
      for (const [position, value, kind] of edits) {
        const at = bytes.length === 0 ? 0 : position % bytes.length;
        if (kind === 'flip' && bytes.length > 0) bytes[at] = value;
        else if (kind === 'cut') bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
        else bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([value]), bytes.subarray(at)]);
      }
      return bytes;
    });
  return fc.oneof(random, mutated);
}

/** Placeholder replaced, per run, with the token of a fresh live session. */
export const LIVE_TOKEN = '<live-session>';

const THOUSAND_TOKENS = `Bearer ${Array.from({ length: 1000 }, (_, i) => `t${i}`).join(' ')}`;

/** Authorization headers: none, a live session in several spellings, well-formed unknown tokens, and garbage. */
export const authorization: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(
        'Bearer %s',
        'bearer %s',
        'BEARER   %s',
        'Bearer %s ',
        ' Bearer %s',
        'Bearer %s %s',
        'Bearer\t%s',
        'Basic %s',
      )
      .map((shape) => shape.replaceAll('%s', LIVE_TOKEN)),
  },
  { weight: 2, arbitrary: rawToken.map((token) => `Bearer ${token}`) },
  { weight: 1, arbitrary: headerText },
  { weight: 1, arbitrary: headerText.map((text) => `Bearer ${text}`) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4000 }).map((spaces) => `Bearer${' '.repeat(spaces)}abc`) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 12_000 }).map((length) => `Bearer ${'a'.repeat(length)}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      THOUSAND_TOKENS,
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      'Digest username="x"',
      Buffer.from('Bearer é🦊', 'utf8').toString('latin1'),
      'Bearer é',
      'Bearer abc=',
      'Bearer ===',
      'Bearer a,Bearer b',
    ),
  },
);

/** Percent-encodes every byte of the UTF-8 form (lone surrogates become U+FFFD), or sends some raw-but-legal bytes. */
function encodeQueryPart(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');
}

/** Query strings: none, the RFC 6750 `access_token` (a live one too), `token`, and arbitrary pairs. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `?access_token=${LIVE_TOKEN}`,
      '?access_token=',
      '?ACCESS_TOKEN=x',
      '?token=',
      '?token=a&token=b',
    ),
  },
  { weight: 1, arbitrary: rawToken.map((token) => `?token=${token}`) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.tuple(nastyString, nastyString), { minLength: 1, maxLength: 4 })
      .map((pairs) => `?${pairs.map(([key, value]) => `${encodeQueryPart(key)}=${encodeQueryPart(value)}`).join('&')}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('?%', '?%E0%A4%A', '?a[b][c]=1', '?__proto__[x]=1', '?a=%FF%FE', '?&&&=&') },
);

/** Methods Node's client and Koa both speak. */
export const httpMethod = fc.constantFrom(
  'get',
  'post',
  'put',
  'patch',
  'delete',
  'options',
  'head',
  'search',
  'propfind',
);

/** The same route written the ways routers have disagreed on: case, slashes, dots, percent-encoding. */
export function pathSpelling(prefix: string, path: string): fc.Arbitrary<string> {
  const plain = `${prefix}${path}`;
  const encodeOne = (text: string) => text.replace(/[a-z]/, (letter) => `%${letter.charCodeAt(0).toString(16)}`);
  return fc.constantFrom(
    plain,
    plain.toUpperCase(),
    `${plain}/`,
    `${prefix}/${path}`,
    `/${plain}`,
    `${prefix}/.${path}`,
    `${prefix}/x/..${path}`,
    encodeOne(plain),
    plain.replace(/(?!^)\//g, '%2F'),
    `${plain};jsessionid=x`,
    `${plain}%00`,
    `${plain}%`,
    `${plain}/%E0%A4%A`,
    `${plain}.json`,
    `${prefix}${path.replace(/-/g, '_')}`,
    path,
  );
}

/** Paths that are not routes: random segments under and outside the prefix. */
export const unknownPath = fc
  .array(nastyString, { minLength: 1, maxLength: 4 })
  .chain((segments) =>
    fc.constantFrom('/auth/', '/', '//').map((start) => start + segments.map(encodeQueryPart).join('/')),
  );
