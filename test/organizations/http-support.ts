import { expect } from 'chai';
import type { Response } from 'supertest';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { resolveAccountService } from '../../src/di/resolve';
import type { OrganizationOptions } from '../../src/services/organizations/organization-options';
import { CHEAP_HASHING } from '../support/fixtures';
import { bearer, buildTestApp, PREFIX, TEST_SECRET, type Driver, type TestApp } from '../support/test-app';
import type { UserStore } from '../../src/services/user-store';
import type { RateLimitOptions } from '../../src/limits/rate-limit-options';

export const NOBODY = '00000000-0000-4000-8000-000000000000';

/** The test app with organizations configured (on by default, as in a host that sets nothing). */
export function buildOrgApp(options: {
  driver: Driver;
  store?: UserStore;
  organizations?: OrganizationOptions | false;
  rateLimits?: RateLimitOptions;
}): TestApp {
  const t = buildTestApp({ driver: options.driver, store: options.store, rateLimits: options.rateLimits });
  if (options.organizations !== undefined) {
    Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, hashing: CHEAP_HASHING, organizations: options.organizations });
    // The routes resolve the service per request, rebuilt when the options change; the tests' handle too.
    t.accounts = resolveAccountService();
  }
  return t;
}

export const org = (path = '') => `${PREFIX}/organizations${path}`;

/** Creates an organization over HTTP; its id. */
export async function createOrg(t: TestApp, token: string, name = 'Acme'): Promise<string> {
  const response = await t.http.post(org()).set(bearer(token)).send({ name });
  expect(response.status, response.text).to.equal(201);
  return response.body.id as string;
}

/** The raw token of the newest invitation mailed to `email`. */
export async function invitationToken(t: TestApp, email: string): Promise<string> {
  await t.accounts.drain();
  const message = t.sender.of('organizationInvitation' as never, email).at(-1);
  if (!message?.token) throw new Error(`no invitation was mailed to ${email}`);
  return message.token;
}

/** Invites over HTTP and returns the invitation's id and the mailed token. */
export async function invite(
  t: TestApp,
  token: string,
  orgId: string,
  email: string,
  role = 'member',
): Promise<{ id: string; token: string }> {
  const response = await t.http.post(org(`/${orgId}/invitations`)).set(bearer(token)).send({ email, role });
  expect(response.status, response.text).to.equal(201);
  return { id: response.body.id as string, token: await invitationToken(t, email) };
}

/** A user who joined `orgId` by invitation with `role`; their bearer token and user id. */
export async function joinedMember(
  t: TestApp,
  ownerToken: string,
  orgId: string,
  username: string,
  role = 'member',
): Promise<{ token: string; id: string }> {
  const token = await t.loginNewUser(username);
  const invitation = await invite(t, ownerToken, orgId, `${username}@example.com`, role);
  const accepted = await t.http.post(`${PREFIX}/invitations/accept`).set(bearer(token)).send({ token: invitation.token });
  expect(accepted.status, accepted.text).to.equal(200);
  const me = await t.accounts.admin.userIdOf(username);
  return { token, id: me };
}

export function expectError(response: Response, status: number, code: string): void {
  expect(response.status, response.text).to.equal(status);
  expect(response.body.detail?.code, response.text).to.equal(code);
}
