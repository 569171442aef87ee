import Koa from 'koa';
import { useContainer } from 'routing-controllers';
import request from 'supertest';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import type { MountAccountRoutesOptions } from '../../src/app/account-routes';
import { mountAccountRoutes } from '../../src/koa/mount-account-routes';
import { resetContainer } from '../support/test-app';

/** The account routes mounted as a host (or the standalone server) mounts them, with the pages and the API docs on. */
export function buildPagesApp(options: MountAccountRoutesOptions = {}) {
  const doubles = resetContainer();
  useContainer(Container);
  const app = mountAccountRoutes(new Koa(), { prefix: '/auth', pages: true, apiDocs: true, ...options });
  return { ...doubles, app, http: request(app.callback()), accounts: resolveAccountService() };
}
