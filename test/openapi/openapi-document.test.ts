import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import type Koa from 'koa';
import { Container } from 'typedi';
import { MAX_EMAIL, MAX_PASSWORD, MAX_USERNAME } from '../../src/controllers/dto/bounds';
import { RATE_LIMITS } from '../../src/di/tokens';
import { ACCOUNT_ERROR_CODES, AccountError, usernameTakenError } from '../../src/errors/account-error';
import { statusForAccountError } from '../../src/errors/status-table';
import { accountApiDocument } from '../../src/app/account-api-document';
import { bearer, OTHER_PASSWORD, PASSWORD } from '../support/test-app';
import { buildPagesApp } from '../pages/pages-app';
import { Document, resolveSchema } from './api-document';

const document = () => accountApiDocument({ prefix: '/auth' }) as unknown as Document;

/** `METHOD /path` of every route the app's routers hold (routing-controllers mounts one @koa/router per call). */
function mountedRoutes(app: Koa): string[] {
  const routes: string[] = [];
  for (const middleware of app.middleware as unknown as {
    router?: { stack: { path: string; methods: string[] }[] };
  }[]) {
    for (const layer of middleware.router?.stack ?? []) {
      // @koa/router adds HEAD to every GET by itself; the document lists it too.
      for (const method of layer.methods) routes.push(`${method} ${layer.path}`);
    }
  }
  return routes.sort();
}

/**
 * `METHOD /path` of every operation the document lists, its path templates in the routers' spelling (`{id}` as
 * `:id`); an operation the routers reach through another path's template (`x-routed-as`) is that route, not one of
 * its own.
 */
function documentedRoutes(doc: Document): string[] {
  const base = doc.servers[0].url.replace(/\/$/, '');
  return Object.entries(doc.paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => !(operation as { 'x-routed-as'?: string })['x-routed-as'])
        .map(([method]) => `${method.toUpperCase()} ${base}${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    )
    .sort();
}

describe('OpenAPI: the document', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(document() as unknown as Record<string, unknown>);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.be.empty;
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
    expect(() => validator.resolveRefs()).to.not.throw();
  });

  it('describes exactly the routes that are mounted, method for method', () => {
    const { app } = buildPagesApp({ pages: false, apiDocs: false });
    const mounted = mountedRoutes(app);
    expect(mounted).to.have.length(120);
    expect(documentedRoutes(document())).to.deep.equal(mounted);

    const other = buildPagesApp({ prefix: '/accounts', pages: false, apiDocs: false });
    expect(documentedRoutes(accountApiDocument({ prefix: '/accounts' }) as unknown as Document)).to.deep.equal(
      mountedRoutes(other.app),
    );
  });

  it('requires the bearer scheme exactly where a request without Authorization is refused with 401; the rest say security: []', async () => {
    const doc = document();
    const { http } = buildPagesApp({ pages: false });
    expect(doc.components.securitySchemes.bearerAuth).to.deep.include({ type: 'http', scheme: 'bearer' });
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const test = http[method as 'post'](`/auth${path}`);
        // The contract hook checks each answer against the document on the way.
        const response = await (method === 'post' || method === 'delete' ? test.send({}) : test);
        const refused = response.status === 401 && (method === 'head' || response.body.detail === 'Not authenticated');
        expect(operation.security, `${method} ${path}`).to.be.an('array');
        expect(
          operation.security!.some((scheme) => 'bearerAuth' in scheme),
          `${method} ${path}`,
        ).to.equal(refused);
      }
    }
  });

  it('states the refusal of a __proto__ key in every request body schema, and in the 400 it gets', async () => {
    const doc = document();
    const { http } = buildPagesApp();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!operation.requestBody) continue;
        const body = resolveSchema(doc, operation.requestBody.content['application/json'].schema);
        expect(body.propertyNames, `${method} ${path}`).to.deep.include({ not: { const: '__proto__' } });
        const refused = await http[method as 'post'](`/auth${path}`).type('json').send('{"__proto__":{"x":1}}');
        expect(refused.status).to.equal(400);
        expect(refused.body.detail.code).to.equal('bad_request');
        const listed = operation.responses['400']['x-error-codes']!.find((item) => item.code === 'bad_request');
        expect(listed!.description).to.include('`__proto__`');
      }
    }
  });

  it('lists the hosted pages’ GET and HEAD as HTML under their own tag, and OPTIONS’ Allow on every path agrees', async () => {
    const doc = accountApiDocument({ prefix: '/auth', pages: true, apiDocs: true }) as unknown as Document;
    const { http } = buildPagesApp();
    for (const path of ['/register', '/login', '/verify-email', '/account', '/password-reset']) {
      expect(doc.paths[path].get.tags, path).to.deep.equal(['Hosted pages']);
      expect(Object.keys(doc.paths[path].get.responses['200'].content)).to.deep.equal(['text/html']);
      expect(doc.paths[path].head.responses['200']).to.not.have.property('content');
      const page = await http.get(`/auth${path}`).expect(200);
      expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
      await http.head(`/auth${path}`).expect(200);
    }
    for (const [path, methods] of Object.entries(doc.paths)) {
      const options = await http.options(`/auth${path}`).expect(204);
      const allowed = options.headers.allow.split(', ').sort();
      expect(allowed, path).to.deep.equal(
        Object.keys(methods)
          .map((method) => method.toUpperCase())
          .sort(),
      );
      // And each method the document does not list is refused with the same Allow.
      const put = await http.put(`/auth${path}`);
      if (!('put' in methods))
        expect([put.status, put.headers.allow], path).to.deep.equal([405, options.headers.allow]);
    }
  });

  it('takes request bodies from the DTOs: required fields with their length bounds', () => {
    const doc = document();
    const register = doc.paths['/register'].post.requestBody!;
    expect(register.required).to.equal(true);
    expect(resolveSchema(doc, register.content['application/json'].schema)).to.deep.include({
      type: 'object',
      required: ['username', 'email', 'password'],
    });
    const fields = resolveSchema(doc, register.content['application/json'].schema).properties;
    expect(fields.username).to.include({ type: 'string', maxLength: MAX_USERNAME });
    expect(fields.email).to.include({ type: 'string', maxLength: MAX_EMAIL });
    expect(fields.password).to.include({ type: 'string', maxLength: MAX_PASSWORD });
    expect(doc.paths['/me'].get.requestBody).to.equal(undefined);
    expect(doc.paths['/register'].post.responses).to.have.property('201');
    // Only the account routes' own DTOs, whatever else class-validator knows of in the process.
    const dtos = Object.keys(doc.components.schemas).filter((name) => name.endsWith('Body'));
    expect(dtos.sort()).to.deep.equal([
      'ApiKeyCreateBody',
      'EmailBody',
      'EmailChangeBody',
      'EmailChangeConfirmBody',
      'InvitationBody',
      'InvitationTokenBody',
      'LoginBody',
      'MemberRoleBody',
      'NameBody',
      'OidcExchangeBody',
      'OidcLinkBody',
      'OrganizationNameBody',
      'PasskeyAssertionBody',
      'PasskeyChallengeBody',
      'PasskeyNameBody',
      'PasskeyRegistrationBody',
      'PasskeySecondFactorBody',
      'PasswordBody',
      'PasswordChangeBody',
      'PasswordResetConfirmBody',
      'PossessedApiKeyBody',
      'ReauthenticateBody',
      'RegisterBody',
      'SecondFactorCodeBody',
      'SecondFactorLoginBody',
      'ServiceAccountBody',
      'TokenBody',
      'TotpCodeBody',
      'UserIdBody',
    ]);
  });

  it('lists every error code, with the status of the one code → status table', () => {
    const doc = document();
    expect(doc.components.schemas.ErrorCode.enum).to.include.members([
      ...ACCOUNT_ERROR_CODES,
      'validation_error',
      'malformed_json',
    ]);
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const { code } of response['x-error-codes'] ?? []) {
            if (!(ACCOUNT_ERROR_CODES as readonly string[]).includes(code)) continue;
            const error = status === '409' ? usernameTakenError() : new AccountError(code as never, code);
            expect(Number(status), `${method} ${path} ${code}`).to.equal(statusForAccountError(error));
            checked++;
          }
        }
        // A limit or an overload can answer any route, always with Retry-After.
        for (const status of ['429', '503'])
          expect(operation.responses[status].headers, `${path} ${status}`).to.have.property('Retry-After');
        expect(operation.responses['500']).to.exist;
      }
    }
    expect(checked).to.be.greaterThan(30);
  });

  it('describes every answer of a whole account life, errors included (the contract hook checks each one)', async () => {
    const { http, sender, accounts } = buildPagesApp();
    const statuses = new Set<number>();
    /** Sends the request and keeps its status; the contract hook checks the answer against the document. */
    const call = async (method: 'get' | 'post' | 'delete', path: string, body?: object | string, token?: string) => {
      let test = http[method](`/auth${path}`);
      if (token) test = test.set(bearer(token));
      // A string is sent as it is: as a broken JSON body, or with its own type when it names one.
      if (typeof body === 'string') test = test.type(body.startsWith('{') ? 'application/json' : 'text/plain');
      const response = await (body === undefined ? test : test.send(body));
      statuses.add(response.status);
      return response;
    };
    const alice = { username: 'alice', email: 'alice@example.com', password: PASSWORD };

    await call('post', '/register', alice);
    await call('post', '/register', { ...alice, email: 'other@example.com' });
    await call('post', '/register', { ...alice, username: 'alice2', password: 'short' });
    await call('post', '/register', { username: 42 });
    await call('post', '/register', '{"username":');
    await call('post', '/register', { username: 'x'.repeat(20_000) });
    await call('post', '/register', 'hello');
    await call('post', '/login', { username: 'alice', password: PASSWORD });
    await call('post', '/verify-email', { token: 'not-a-token' });
    await accounts.drain();
    await call('post', '/verify-email', { token: sender.lastToken('sendVerification', alice.email) });
    await call('post', '/resend-verification', { email: alice.email });
    await call('post', '/login', { username: 'alice', password: OTHER_PASSWORD });
    const token = (await call('post', '/login', { username: 'alice', password: PASSWORD })).body.access_token;
    await call('get', '/me', undefined, token);
    await call('get', '/me', undefined, 'not-a-session');
    await call('post', '/password/change', { old_password: OTHER_PASSWORD, new_password: OTHER_PASSWORD }, token);
    await call('post', '/password/change', { old_password: PASSWORD, new_password: 'qwertyuiop123' }, token);
    await call('post', '/password-reset/request', { email: alice.email });
    await accounts.drain();
    await call('post', '/password-reset/confirm', { token: 'nope', new_password: OTHER_PASSWORD });
    await call('post', '/password-reset/confirm', {
      token: sender.lastToken('sendPasswordReset'),
      new_password: OTHER_PASSWORD,
    });
    const second = (await call('post', '/login', { username: 'alice', password: OTHER_PASSWORD })).body.access_token;
    await call('post', '/logout', undefined, second);
    const third = (await call('post', '/login', { username: 'alice', password: OTHER_PASSWORD })).body.access_token;
    await call('post', '/logout-all', undefined, third);
    const fourth = (await call('post', '/login', { username: 'alice', password: OTHER_PASSWORD })).body.access_token;
    await call('delete', '/account', { password: PASSWORD }, fourth);
    await call('delete', '/account', { password: OTHER_PASSWORD }, fourth);

    Container.set(RATE_LIMITS, { limits: { 'login.ip': { points: 1, duration: 60 } } });
    await call('post', '/login', { username: 'alice', password: PASSWORD });
    await call('post', '/login', { username: 'alice', password: PASSWORD });

    expect([...statuses].sort()).to.deep.equal([200, 201, 400, 401, 403, 409, 413, 415, 429]);
  });
});
