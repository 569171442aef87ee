import { expect } from 'chai';
import Router from '@koa/router';
import Koa from 'koa';
import { useKoaServer } from 'routing-controllers';
import request from 'supertest';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { accountGuards } from '../../src/guards/account-guards';
import { mountAccountRoutes } from '../../src/koa/mount-account-routes';
import { countLayerTests } from '../support/layer-tests';
import { PASSWORD, resetContainer } from '../support/test-app';
import { CountingMiddleware } from './fixtures/counting-middleware';
import { PostsController } from './fixtures/posts-controller';

describe('HTTP: mounting', () => {
  it('mountAccountRoutes serves the routes under the prefix, with the error rendering installed', async () => {
    const { sender } = resetContainer();
    const app = mountAccountRoutes(new Koa(), { prefix: '/accounts' });
    const http = request(app.callback());
    const response = await http
      .post('/accounts/register')
      .send({ username: 'alice', email: 'alice@example.com', password: PASSWORD });
    expect(response.status).to.equal(201);
    const notFound = await http.post('/auth/register').send({});
    expect(notFound.status).to.equal(404);
    expect(notFound.body.detail.code).to.equal('not_found');
    expect(sender).to.exist;
  });

  it('mountAccountRoutes defaults to /auth and takes a body limit', async () => {
    resetContainer();
    const app = mountAccountRoutes(new Koa(), { bodyLimit: 32 });
    const response = await request(app.callback()).post('/auth/login').send({ username: 'alice', password: PASSWORD });
    expect(response.status).to.equal(413);
  });

  it('scoped to its prefix, Gatehouse leaves the host’s other routes to the host', async () => {
    resetContainer();
    const app = mountAccountRoutes(new Koa(), { prefix: '/accounts', scoped: true });
    useKoaServer(app, { routePrefix: '/api', controllers: [PostsController], ...accountGuards() });
    const http = request(app.callback());

    // A form body and a large JSON body reach the host's route (routing-controllers' own parser reads them).
    const form = await http.post('/api/posts/echo-body').type('form').send('a=1');
    expect(form.status).to.equal(200);
    expect(form.headers['cache-control']).to.not.equal('no-store');
    const large = await http.post('/api/posts/echo-body').send({ text: 'x'.repeat(20_000) });
    expect(large.status).to.equal(200);
    expect(large.body.body.text).to.have.length(20_000);

    // Under the prefix, in any case, Gatehouse still answers.
    const refused = await http.post('/ACCOUNTS/login').type('form').send('a=1');
    expect(refused.status).to.equal(415);
    expect(refused.headers['cache-control']).to.equal('no-store');
    const unknown = await http.get('/accounts/nope');
    expect(unknown.body.detail.code).to.equal('not_found');
    // Guards on host routes still answer in Gatehouse's shape (their errors render themselves).
    const missing = await http.get('/api/posts/mine');
    expect(missing.status).to.equal(401);
    expect(missing.body).to.deep.equal({ detail: 'Not authenticated' });
  });

  it('scoped, the mount still reads the bodies of the host’s later middleware, as routing-controllers’ parser did', async () => {
    resetContainer();
    const app = mountAccountRoutes(new Koa(), { prefix: '/accounts', scoped: true });
    app.use((ctx) => {
      ctx.body = { seen: (ctx.request as { body?: unknown }).body };
    });
    const http = request(app.callback());
    expect((await http.post('/hook').type('form').send('a=1')).body).to.deep.equal({ seen: { a: '1' } });
    expect((await http.post('/hook').send({ b: 2 })).body).to.deep.equal({ seen: { b: 2 } });
  });

  it('logs a configuration mistake with its message, and answers a generic 500', async () => {
    const { logger } = resetContainer();
    Container.set(ACCOUNT_OPTIONS, { secretKey: 'short' });
    const app = mountAccountRoutes(new Koa());
    const response = await request(app.callback()).post('/auth/login').send({ username: 'alice', password: PASSWORD });
    expect(response.status).to.equal(500);
    expect(response.body).to.deep.equal({ detail: { detail: 'Internal server error', code: 'internal_error' } });
    expect(logger.text()).to.include('the secret key is 5 bytes; it must be at least 32');
  });

  it('the account routes do not install a host’s global @Middleware; the host’s own mount does, once', async () => {
    resetContainer();
    const accountsOnly = mountAccountRoutes(new Koa());
    CountingMiddleware.seen = 0;
    await request(accountsOnly.callback()).get('/auth/me');
    expect(CountingMiddleware.seen).to.equal(0);

    const both = mountAccountRoutes(new Koa());
    useKoaServer(both, { controllers: [PostsController], middlewares: [CountingMiddleware], ...accountGuards() });
    CountingMiddleware.seen = 0;
    await request(both.callback()).get('/posts/feed').expect(200);
    expect(CountingMiddleware.seen).to.equal(1);
  });

  it('the account router looks only at paths under its prefix, in any case, and still answers its methods', async () => {
    resetContainer();
    const app = mountAccountRoutes(new Koa(), { prefix: '/accounts' });
    useKoaServer(app, { routePrefix: '/api', controllers: [PostsController], ...accountGuards() });
    const http = request(app.callback());
    const consulted: string[] = [];
    const match = Router.prototype.match;
    Router.prototype.match = function (this: Router, path: string, method: string) {
      if (this.stack.some((layer) => String(layer.path).startsWith('/accounts/'))) consulted.push(path);
      return match.call(this, path, method);
    };
    try {
      expect((await http.get('/api/posts/feed')).status).to.equal(200);
      expect(consulted).to.deep.equal([]);

      const registered = await http
        .post('/ACCOUNTS/register')
        .send({ username: 'alice', email: 'alice@example.com', password: PASSWORD });
      expect(registered.status).to.equal(201);
      const wrongMethod = await http.get('/accounts/register');
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.headers.allow).to.include('POST');
      expect(consulted).to.deep.equal(['/ACCOUNTS/register', '/accounts/register']);
    } finally {
      Router.prototype.match = match;
    }
  });
  it('mountAccountRoutes matches a route path it has seen without testing every route again', async () => {
    resetContainer();
    const app = mountAccountRoutes(new Koa());
    const router = app.middleware.map((middleware) => (middleware as { router?: Router }).router).find(Boolean)!;
    const tests = countLayerTests(router);
    const http = request(app.callback());
    expect((await http.get('/auth/me')).status).to.equal(401);
    expect(tests.count).to.equal(router.stack.length);
    expect((await http.get('/auth/me')).status).to.equal(401);
    expect((await http.post('/auth/me')).status).to.equal(405);
    expect(tests.count).to.equal(router.stack.length);
  });
});
