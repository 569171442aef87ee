import { expect } from 'chai';
import { createRequire } from 'node:module';
import { useContainer, useExpressServer } from 'routing-controllers';
import request from 'supertest';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import * as onExpress from '../../src/express';
import { accountGuards } from '../../src/guards/account-guards';
import { bearer, PASSWORD, PREFIX, resetContainer } from '../support/test-app';
import { PostsController } from './fixtures/posts-controller';

/**
 * The Express that routing-controllers 0.11 itself depends on (optionally): version 4, the copy its
 * `createExpressServer()` builds apps from. The suites run on Express 5; this one checks that Gatehouse's Express
 * pieces also hold on 4 (its route table is `app._router`, and its `req.query` and body handling differ).
 */
function routingControllersExpress(): { version: string; create: () => import('express').Express } {
  const load = createRequire(require.resolve('routing-controllers'));
  return {
    version: (load('express/package.json') as { version: string }).version,
    create: load('express') as () => import('express').Express,
  };
}

describe('HTTP: on Express 4 (the copy routing-controllers depends on)', () => {
  const express4 = routingControllersExpress();
  let http: ReturnType<typeof request>;
  let doubles: ReturnType<typeof resetContainer>;

  beforeEach(() => {
    doubles = resetContainer();
    useContainer(Container);
    const app = express4.create();
    onExpress.mountAccountRoutes(app, { prefix: PREFIX, pages: true, apiDocs: true });
    useExpressServer(app, { controllers: [PostsController], middlewares: [class None {}], ...accountGuards() });
    app.use(onExpress.gatehouseErrors());
    http = request(app);
  });

  it('is Express 4 indeed', () => {
    expect(express4.version).to.match(/^4\./);
  });

  it('serves the account routes, the guards, the pages and the API description as on Express 5', async () => {
    await http
      .post(`${PREFIX}/register`)
      .send({ username: 'alice', email: 'alice@example.com', password: PASSWORD })
      .expect(201);
    const accounts = resolveAccountService();
    await accounts.drain(); // the mail goes out after the answer
    const token = doubles.sender.lastToken('sendVerification', 'alice@example.com');
    await http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
    const login = await http.post(`${PREFIX}/login`).send({ username: 'alice', password: PASSWORD }).expect(200);
    const alice = login.body.access_token as string;
    await http.get(`${PREFIX}/me`).set(bearer(alice)).expect(200);

    const missing = await http.get('/posts/mine').expect(401);
    expect(missing.body).to.deep.equal({ detail: 'Not authenticated' });
    expect(missing.headers['www-authenticate']).to.equal('Bearer');
    expect((await http.get('/posts/mine').set(bearer(alice)).expect(200)).body).to.deep.equal({ owner: 'alice' });
    expect((await http.get('/posts/ghost-role').set(bearer(alice)).expect(404)).body.detail.code).to.equal(
      'unknown_role',
    );
    await accounts.access.createRole('editor');
    const denied = await http.post('/posts/drafts').set(bearer(alice)).send({}).expect(403);
    expect(denied.body).to.deep.equal({ detail: { detail: 'Permission denied', code: 'permission_denied' } });
    const injected = await http.get('/posts/me-as-injected').set(bearer(alice)).expect(200);
    expect(injected.text).to.not.match(/argon2|passwordHash|usernameKey|emailKey/);

    const page = await http.get(`${PREFIX}/login`).expect(200);
    expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect((await http.get(`${PREFIX}/openapi.json`).expect(200)).body.openapi).to.match(/^3\./);
  });

  it('answers errors, unknown routes and wrong methods in JSON, with the security headers', async () => {
    const answers = [
      await http.get(`${PREFIX}/nowhere`).expect(404),
      await http.put(`${PREFIX}/login`).send({}).expect(405),
      await http.post(`${PREFIX}/login`).set('Content-Type', 'text/plain').send('x').expect(415),
      await http
        .post(`${PREFIX}/login`)
        .send({ username: 'a', password: 'x'.repeat(17 * 1024) })
        .expect(413),
      await http.post(`${PREFIX}/login`).set('Content-Type', 'application/json').send('{"username":').expect(400),
      await http.get(`${PREFIX}/me?access_token=abc`).expect(400),
    ];
    for (const answer of answers) {
      const what = `${answer.status} ${answer.text}`;
      expect(answer.headers['content-type'], what).to.equal('application/json; charset=utf-8');
      expect(answer.body.detail, what).to.not.equal(undefined);
      expect(answer.headers['x-content-type-options'], what).to.equal('nosniff');
      expect(answer.headers['x-request-id'], what).to.match(/^[0-9a-f-]{36}$/);
      expect(answer.text, what).to.not.match(/<html|\bat \w/i);
    }
    expect(answers[1].headers.allow.split(', ')).to.include.members(['GET', 'HEAD', 'POST']);
    await http.options(`${PREFIX}/login`).expect(204);
  });

  it('tells a host once, at the first request, that gatehouseErrors() is missing', async () => {
    const { logger } = resetContainer();
    const bare = express4.create();
    onExpress.mountAccountRoutes(bare, { prefix: PREFIX });
    await request(bare).post(`${PREFIX}/resend-verification`).send({ email: 'nobody@example.com' }).expect(200);
    await request(bare).post(`${PREFIX}/resend-verification`).send({ email: 'nobody@example.com' }).expect(200);
    const lines = logger.errors().filter((line) => line.message.includes('gatehouseErrors()'));
    expect(lines, logger.text()).to.have.length(1);
  });
});
