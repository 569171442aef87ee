import { expect } from 'chai';
import type { Response } from 'supertest';
import { bearer, buildTestApp, PASSWORD, PREFIX, type Driver, type TestApp } from '../support/test-app';
import type { UserStore } from '../../src/services/user-store';

/** The test app with `root` made administrator as the CLI does it, signed in. */
export interface AdminApp {
  t: TestApp;
  /** root's bearer header. */
  admin: Record<string, string>;
  rootId: string;
}

export async function buildAdminApp(driver: Driver, store?: UserStore): Promise<AdminApp> {
  const t = buildTestApp({ driver, store });
  await t.createUser('root');
  expect(await t.accounts.admin.makeAdministrator('root')).to.equal(true);
  const admin = bearer(await t.login('root'));
  return { t, admin, rootId: await idOf({ t, admin }, 'root') };
}

/** The id of the one account whose username is `username`, as the admin list finds it. */
export async function idOf(app: Pick<AdminApp, 't' | 'admin'>, username: string): Promise<string> {
  const response = await app.t.http.get(`${PREFIX}/admin/users`).query({ prefix: username }).set(app.admin);
  expectStatus(response, 200);
  const found = (response.body.users as { id: string; username: string }[]).filter((u) => u.username === username);
  expect(found, username).to.have.length(1);
  return found[0].id;
}

/** Registers over the core, not verified (the admin list and verification see it). */
export async function registerUnverified(t: TestApp, username: string): Promise<void> {
  await t.accounts.register({ username, email: `${username}@example.com`, password: PASSWORD });
  await t.accounts.drain();
}

export function expectStatus(response: Response, status: number, body?: unknown): void {
  expect(response.status, `${response.status} ${response.text}`).to.equal(status);
  if (body !== undefined) expect(response.body).to.deep.equal(body);
}

export function expectCode(response: Response, status: number, code: string): void {
  expectStatus(response, status);
  expect(response.body.detail.code, response.text).to.equal(code);
}
