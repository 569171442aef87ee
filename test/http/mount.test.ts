import { expect } from 'chai';
import Koa from 'koa';
import { useKoaServer } from 'routing-controllers';
import request from 'supertest';
import { accountGuards } from '../../src/guards/account-guards';
import { mountAccountRoutes } from '../../src/http/account-routes';
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
});
