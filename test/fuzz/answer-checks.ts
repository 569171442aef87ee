import { expect } from 'chai';
import type { Response } from 'supertest';
import { SECURITY_HEADERS } from '../../src/http/security-headers';
import type { FuzzApp } from './fuzz-app';

/** No request of the fuzz suite may take longer than this (the slowest real one, a cheap argon2 hash, takes ms). */
export const ANSWER_DEADLINE_MS = 5_000;

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send `Content-Length` (otherwise a body goes chunked). */
  contentLength?: boolean;
}

/** Sends the request as given and reads the answer's bytes as text, whatever its type. */
export async function send(app: FuzzApp, spec: FuzzRequest): Promise<Answer> {
  const loggedErrors = app.logger.errors().length;
  const started = process.hrtime.bigint();
  const agent = app.http as unknown as Record<string, (url: string) => import('supertest').Test>;
  const test = agent[spec.method](spec.url)
    .timeout({ deadline: ANSWER_DEADLINE_MS })
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
    });
  for (const [name, value] of Object.entries(spec.headers)) test.set(name, value);
  if (spec.body !== undefined) {
    if (spec.contentLength) test.set('Content-Length', String(spec.body.length));
    test.write(spec.body);
  }
  const response = await test;
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { response, text: typeof response.body === 'string' ? response.body : '', ms, loggedErrors };
}

export interface Answer {
  response: Response;
  text: string;
  ms: number;
  /** Error lines in the log before the request was sent. */
  loggedErrors: number;
}

/** Signs of an internal error escaping: stack frames, source paths, error class names. */
const LEAKS: RegExp[] = [
  /^\s*at\s+\S/m,
  /\bat\s+\S+\s+\([^)]*:\d+:\d+\)/,
  /\b[A-Z][A-Za-z]*Error:/,
  /node_modules/,
  /(?:\/[\w.@-]+){2,}\.(?:[cm]?js|ts)\b/,
  /\b(?:SQLITE_[A-Z]+|ERR_[A-Z_]+)\b/,
];

/**
 * The properties every answer has, whatever was sent: not a 5xx, within the deadline, the security headers, a JSON
 * body of one of the spec's shapes, nothing that looks like a stack trace or a path, and no unexpected error in the
 * log (background work included).
 */
export async function expectWellFormedAnswer(app: FuzzApp, spec: FuzzRequest, answer: Answer) {
  const { response, text, ms } = answer;
  const what = `${spec.method.toUpperCase()} ${spec.url} → ${response.status} ${text.slice(0, 300)}`;
  expect(response.status, what).to.be.below(500);
  expect(ms, what).to.be.below(ANSWER_DEADLINE_MS);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    expect(response.headers[name.toLowerCase()], `${name} on ${what}`).to.equal(value);
  }
  for (const leak of LEAKS) expect(text, what).to.not.match(leak);

  await app.accounts.drain();
  const errors = app.logger.errors().slice(answer.loggedErrors);
  expect(errors, `error logged for ${what}: ${JSON.stringify(errors).slice(0, 2000)}`).to.have.length(0);

  if (spec.method === 'head' || response.status === 204) {
    expect(text, what).to.equal('');
    return;
  }
  expect(response.headers['content-type'], what).to.match(/^application\/json\b/);
  let body: unknown;
  expect(() => (body = JSON.parse(text)), `JSON body of ${what}`).to.not.throw();
  if (response.status >= 400) expectErrorShape(body, response, what);
  else expectSuccessShape(body, what);
}

function expectErrorShape(body: unknown, response: Response, what: string) {
  const { detail } = body as { detail: unknown };
  expect(Object.keys(body as object), what).to.deep.equal(['detail']);
  if (typeof detail === 'string') {
    // The one plain-string answer of the spec: no bearer header on a route that needs one.
    expect(response.status, what).to.equal(401);
    expect(response.headers['www-authenticate'], what).to.equal('Bearer');
    return;
  }
  const nested = detail as { detail: unknown; code: unknown; errors?: unknown };
  expect(nested.detail, what).to.be.a('string').and.not.equal('');
  expect(nested.code, what)
    .to.be.a('string')
    .and.match(/^[a-z_]+$/);
  const allowed = ['detail', 'code', ...(nested.errors !== undefined ? ['errors'] : [])];
  expect(Object.keys(nested), what).to.have.members(allowed);
  if (nested.errors !== undefined) {
    expect(nested.errors, what).to.be.an('array');
    for (const error of nested.errors as unknown[]) {
      expect(error, what).to.have.all.keys('field', 'message');
    }
  }
  if (response.status === 401 && nested.code === 'invalid_session_token') {
    expect(response.headers['www-authenticate'], what).to.equal('Bearer');
  }
}

function expectSuccessShape(body: unknown, what: string) {
  const keys = Object.keys(body as object)
    .sort()
    .join(',');
  const shapes = [
    'detail',
    'access_token,token_type',
    'email,username,verified',
    // Sessions and re-authentication.
    'sessions',
    'detail,ended',
    'detail,reauthenticated_until',
    // The second factor: a login's challenge, the status, an enrolment, new recovery codes.
    'challenge_token,expires_at,methods,second_factor_required',
    'enabled,pending,recovery_codes_left',
    'otpauth_uri,qr_code_svg,secret',
    'recovery_codes',
    // OpenID providers: the list of providers, a link's start, an account's identities.
    'providers',
    'authorization_url',
    'identities',
    // Organizations: a created organization, the caller's list, an invitation's preview.
    'created_at,id,name,permissions,role',
    'organizations',
    'expires_at,invited_by,organization,role',
    // API keys: the list, the scopes a key may have, a revocation of all, a creation (the key shown once).
    'api_keys',
    'scopes',
    'detail,revoked',
    'api_key,key',
  ];
  expect(shapes, what).to.include(keys);
  if (keys === 'detail') expect((body as { detail: unknown }).detail, what).to.be.a('string');
  if (keys === 'access_token,token_type') expect((body as { token_type: unknown }).token_type, what).to.equal('bearer');
}
