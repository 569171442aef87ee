import { expect } from 'chai';
import express from 'express';
import Koa from 'koa';
import request from 'supertest';
import { ConfigurationError } from '../../src/errors/configuration-error';
import * as onExpress from '../../src/express';
import * as onKoa from '../../src/index';
import { handlerOf, HostApp, resetContainer } from '../support/test-app';

/** A hang fails the test within seconds, rather than at mocha's timeout. */
const NO_HANG = { response: 5_000, deadline: 5_000 };

/** The one JSON 500 a host gets for middleware of the other driver, and the one log line that says what to import. */
async function expectMixupAnswer(app: HostApp, path: string, entry: string) {
  const { logger } = resetContainer();
  const response = await request(handlerOf(app)).get(path).timeout(NO_HANG).expect(500);
  expect(response.headers['content-type']).to.equal('application/json; charset=utf-8');
  expect(response.body).to.deep.equal({ detail: { detail: 'Internal server error', code: 'internal_error' } });
  const errors = logger.errors();
  expect(errors, logger.text()).to.have.length(1);
  expect(JSON.stringify(errors[0])).to.include(`import it from '${entry}'`);
}

describe('HTTP: a host that mixes up the drivers', () => {
  describe('at boot: mountAccountRoutes throws a ConfigurationError naming the right entry', () => {
    it("gatehouse's (Koa) given an Express app", () => {
      const app = express() as unknown as Koa;
      expect(() => onKoa.mountAccountRoutes(app)).to.throw(
        ConfigurationError,
        /mounts on Koa, and was given an Express app; import it from 'gatehouse\/express'/,
      );
    });

    it("gatehouse/express's given a Koa app", () => {
      expect(() => onExpress.mountAccountRoutes(new Koa() as never)).to.throw(
        ConfigurationError,
        /mounts on Express, and was given a Koa app; import it from 'gatehouse'/,
      );
    });

    it('either given something that is no application at all', () => {
      expect(() => onKoa.mountAccountRoutes({} as Koa)).to.throw(ConfigurationError, /needs a Koa application/);
      expect(() => onExpress.mountAccountRoutes({ use() {} })).to.throw(
        ConfigurationError,
        /needs an Express application/,
      );
    });
  });

  describe('at request time: middleware of the other driver answers a JSON 500, logs one line, never hangs', () => {
    it("gatehouse's (Koa) gatehouseHttp() and accountPages() installed on Express", async () => {
      const http = express().use(onKoa.gatehouseHttp() as never);
      await expectMixupAnswer(http, '/auth/login', 'gatehouse/express');
      const pages = express().use(onKoa.accountPages({ prefix: '/auth' }) as never);
      await expectMixupAnswer(pages, '/auth/login', 'gatehouse/express');
    });

    it("gatehouse/express's gatehouseHttp() and accountPages() installed on Koa", async () => {
      const http = new Koa().use(onExpress.gatehouseHttp() as never);
      await expectMixupAnswer(http, '/auth/login', 'gatehouse');
      const pages = new Koa().use(onExpress.accountPages({ prefix: '/auth' }) as never);
      await expectMixupAnswer(pages, '/auth/login', 'gatehouse');
    });
  });

  it('an Express host without gatehouseErrors() is told once, at the first request', async () => {
    const { logger } = resetContainer();
    const app = onExpress.mountAccountRoutes(express(), { prefix: '/auth' });
    await request(app)
      .post('/auth/resend-verification')
      .send({ email: 'nobody@example.com' })
      .timeout(NO_HANG)
      .expect(200);
    await request(app)
      .post('/auth/resend-verification')
      .send({ email: 'nobody@example.com' })
      .timeout(NO_HANG)
      .expect(200);
    const lines = logger.errors().filter((line) => line.message.includes('app.use(gatehouseErrors())'));
    expect(lines, logger.text()).to.have.length(1);
  });
});
