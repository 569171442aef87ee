import { expect } from 'chai';
import { useKoaServer } from 'routing-controllers';
import { accountGuards } from '../../src/guards/account-guards';
import { buildPagesApp } from '../pages/pages-app';
import { PostsController } from '../http/fixtures/posts-controller';
import { ContractViolation, withPlantedDocument } from '../support/contract';
import { buildTestApp, PASSWORD } from '../support/test-app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the planted changes walk the document by key
type Json = Record<string, any>;

/** The request's failure: the contract hook's error, which every suite's request would fail with. */
async function violationOf(request: PromiseLike<unknown>): Promise<ContractViolation> {
  try {
    await request;
  } catch (error) {
    expect(error).to.be.instanceOf(ContractViolation);
    return error as ContractViolation;
  }
  throw new Error('the answer passed the contract hook');
}

describe('OpenAPI: the contract hook (test/support/contract.ts) checks every answer', () => {
  it('fails a test whose answer lacks a field the document requires', async () => {
    const { http } = buildTestApp();
    const body = { email: 'nobody@example.com' };
    await http.post('/auth/resend-verification').send(body).expect(200);
    const violation = await withPlantedDocument(
      (document: Json) => document.components.schemas.Detail.required.push('never_sent'),
      () => violationOf(http.post('/auth/resend-verification').send(body).expect(200)),
    );
    expect(violation.message).to.include('POST /auth/resend-verification → 200').and.include("'never_sent'");
  });

  it('fails an answer with a status, content type or required header the document does not declare', async () => {
    const { http, createUser } = buildTestApp();
    await createUser('alice');
    const taken = { username: 'alice', email: 'other@example.com', password: PASSWORD };
    const status = await withPlantedDocument(
      (document: Json) => delete document.paths['/register'].post.responses['409'],
      () => violationOf(http.post('/auth/register').send(taken)),
    );
    expect(status.message).to.include('status 409 is not documented for POST /register');

    const type = await withPlantedDocument(
      (document: Json) => {
        const ok = document.paths['/login'].post.responses['200'];
        ok.content = { 'application/xml': ok.content['application/json'] };
      },
      () => violationOf(http.post('/auth/login').send({ username: 'alice', password: PASSWORD })),
    );
    expect(type.message).to.include('content type "application/json" is not one of application/xml');

    const login = { username: 'alice', password: PASSWORD };
    const required = await withPlantedDocument(
      (document: Json) => {
        document.paths['/login'].post.responses['200'].headers = { 'X-Never-Sent': { required: true, schema: {} } };
      },
      () => violationOf(http.post('/auth/login').send(login)),
    );
    expect(required.message).to.include('required header X-Never-Sent is missing');

    const value = await withPlantedDocument(
      (document: Json) =>
        (document.paths['/me'].get.responses['401'].headers['WWW-Authenticate'].schema.const = 'Basic'),
      () => violationOf(http.get('/auth/me')),
    );
    expect(value.message).to.include('header WWW-Authenticate');
  });

  it('fails an Allow that disagrees with the document, and a method or path it does not list answered otherwise', async () => {
    const { http } = buildPagesApp();
    const allow = await withPlantedDocument(
      (document: Json) => delete document.paths['/me'].head,
      () => violationOf(http.options('/auth/me')),
    );
    expect(allow.message).to.include('Allow "HEAD, GET" is not the listed GET');

    const unlisted = await withPlantedDocument(
      (document: Json) => delete document.paths['/logout'],
      () => violationOf(http.post('/auth/logout')),
    );
    expect(unlisted.message).to.include('expected 404 (components.responses.NotFound), got 401');
  });

  it('checks a 429 with its Retry-After', async () => {
    const limited = buildTestApp({ rateLimits: { limits: { 'login.ip': { points: 1, duration: 60 } } } });
    const login = { username: 'alice', password: PASSWORD };
    await limited.http.post('/auth/login').send(login).expect(401);
    const tooMany = await withPlantedDocument(
      (document: Json) => (document.paths['/login'].post.responses['429'].headers['Retry-After'].schema.maximum = 1),
      () => violationOf(limited.http.post('/auth/login').send(login)),
    );
    expect(tooMany.message).to.include('429').and.include('header Retry-After');

    // The 503s of an overload reach the hook in test/http/overload.test.ts, and pass.
  });

  it('leaves the host’s own routes alone: only paths under the Gatehouse prefix are the document’s', async () => {
    const { http } = buildTestApp({
      mount: (app) => useKoaServer(app, { controllers: [PostsController], ...accountGuards() }),
    });
    // Not in the document, and not under /auth: the host's.
    const feed = await http.get('/posts/feed').expect(200);
    expect(feed.body).to.deep.equal({ viewer: null });
    // Under /auth and not listed: the document's 404.
    await http.get('/auth/posts/feed').expect(404);
  });
});
