import express from 'express';
import Koa from 'koa';
import { useContainer } from 'routing-controllers';
import request from 'supertest';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import type { MountAccountRoutesOptions } from '../../src/app/account-routes';
import * as onExpress from '../../src/express';
import { mountAccountRoutes } from '../../src/koa/mount-account-routes';
import { Driver, handlerOf, HostApp, resetContainer } from '../support/test-app';

/** The account routes mounted on Koa as a host (or the standalone server) mounts them, with the pages and API docs on. */
export function buildPagesApp(options: MountAccountRoutesOptions = {}) {
  const built = buildPagesAppOn('koa', options);
  return { ...built, app: built.app as Koa };
}

/** The same on either driver: on Express, `mountAccountRoutes` of `gatehouse/express` and `gatehouseErrors()` last. */
export function buildPagesAppOn(driver: Driver, options: MountAccountRoutesOptions = {}) {
  const doubles = resetContainer();
  useContainer(Container);
  const mount = { prefix: '/auth', pages: true, apiDocs: true, ...options };
  let app: HostApp;
  if (driver === 'koa') app = mountAccountRoutes(new Koa(), mount);
  else app = onExpress.mountAccountRoutes(express(), mount).use(onExpress.gatehouseErrors());
  return { ...doubles, app, http: request(handlerOf(app)), accounts: resolveAccountService() };
}
