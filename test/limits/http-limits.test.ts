import { expect } from 'chai';
import type { Response } from 'supertest';
import { Container } from 'typedi';
import { resolveRateLimits } from '../../src/di/resolve';
import { RATE_LIMITS } from '../../src/di/tokens';
import { DEFAULT_LIMITS, IpLimit, resolveRateLimitOptions } from '../../src/limits/rate-limit-options';
import { bearer, buildTestApp, DRIVERS, PREFIX, TestApp } from '../support/test-app';
import { expectRateLimited } from './expect-rate-limited';

const RATE_LIMITED = { detail: { detail: 'Too many requests; try again later', code: 'rate_limited' } };

/** One request of each limited route, cheap and different every time (`i`), so only the per-IP budget is spent. */
const ROUTES: Record<IpLimit, (t: TestApp, i: number) => Promise<Response>> = {
  'login.ip': (t, i) =>
    t.http.post(`${PREFIX}/login`).send({ username: `nobody${i}`, password: 'wrong password here' }),
  'register.ip': (t, i) =>
    t.http.post(`${PREFIX}/register`).send({ username: `u${i}`, email: `u${i}@example.com`, password: 'short' }),
  'verify-email.ip': (t) => t.http.post(`${PREFIX}/verify-email`).send({ token: 'x'.repeat(43) }),
  'resend-verification.ip': (t, i) => t.http.post(`${PREFIX}/resend-verification`).send({ email: `n${i}@example.com` }),
  'reset-request.ip': (t, i) => t.http.post(`${PREFIX}/password-reset/request`).send({ email: `n${i}@example.com` }),
  'reset-confirm.ip': (t) =>
    t.http
      .post(`${PREFIX}/password-reset/confirm`)
      .send({ token: 'x'.repeat(43), new_password: 'violet staircase 42 umbrella' }),
  'password-change.ip': (t) =>
    t.http
      .post(`${PREFIX}/password/change`)
      .set(bearer('x'.repeat(43)))
      .send({ old_password: 'violet staircase 42 umbrella', new_password: 'quiet lantern over 7 rivers' }),
  'reauthenticate.ip': (t) =>
    t.http
      .post(`${PREFIX}/reauthenticate`)
      .set(bearer('x'.repeat(43)))
      .send({ password: 'violet staircase 42 umbrella' }),
  'email-change.ip': (t, i) =>
    t.http
      .post(`${PREFIX}/email-change`)
      .set(bearer('x'.repeat(43)))
      .send({ new_email: `n${i}@example.com` }),
  'email-change-confirm.ip': (t) => t.http.post(`${PREFIX}/email-change/confirm`).send({ token: 'x'.repeat(43) }),
  // One budget for listing, ending one and ending the others.
  'sessions.ip': (t, i) => {
    const token = bearer('x'.repeat(43));
    if (i % 3 === 0) return t.http.get(`${PREFIX}/sessions`).set(token);
    if (i % 3 === 1) return t.http.delete(`${PREFIX}/sessions/00000000-0000-4000-8000-000000000000`).set(token);
    return t.http.post(`${PREFIX}/sessions/end-others`).set(token).send({});
  },
  'second-factor.ip': (t) =>
    t.http.post(`${PREFIX}/login/second-factor`).send({ challenge_token: 'x'.repeat(43), code: '123456' }),
  // One budget for the five routes that read or change the second factor.
  'second-factor-manage.ip': (t, i) => {
    const token = bearer('x'.repeat(43));
    const routes = [
      () => t.http.get(`${PREFIX}/second-factor`).set(token),
      () => t.http.post(`${PREFIX}/second-factor/totp`).set(token).send({}),
      () => t.http.post(`${PREFIX}/second-factor/totp/confirm`).set(token).send({ code: '123456' }),
      () => t.http.post(`${PREFIX}/second-factor/recovery-codes`).set(token).send({ code: '123456' }),
      () => t.http.post(`${PREFIX}/second-factor/disable`).set(token).send({ code: '123456' }),
    ];
    return routes[i % routes.length]();
  },
  // One budget for the five routes that add, list, rename and remove passkeys.
  'passkeys.ip': (t, i) => {
    const token = bearer('x'.repeat(43));
    const id = '00000000-0000-4000-8000-000000000000';
    const routes = [
      () => t.http.get(`${PREFIX}/passkeys`).set(token),
      () => t.http.post(`${PREFIX}/passkeys/registration-options`).set(token).send({}),
      () => t.http.post(`${PREFIX}/passkeys`).set(token).send({ name: 'Laptop', response: {} }),
      () => t.http.patch(`${PREFIX}/passkeys/${id}`).set(token).send({ name: 'Laptop' }),
      () => t.http.delete(`${PREFIX}/passkeys/${id}`).set(token),
    ];
    return routes[i % routes.length]();
  },
  // One budget for starting a provider sign-in or link, the provider's callback, and the identities' list and unlink.
  'oidc.ip': (t, i) => {
    const token = bearer('x'.repeat(43));
    const routes = [
      () => t.http.get(`${PREFIX}/oidc/corp/start`),
      () => t.http.get(`${PREFIX}/oidc/corp/callback?state=s${i}&code=c${i}`),
      () => t.http.post(`${PREFIX}/oidc/corp/link`).set(token).send({}),
      () => t.http.get(`${PREFIX}/oidc/identities`).set(token),
      () => t.http.delete(`${PREFIX}/oidc/identities/00000000-0000-4000-8000-000000000000`).set(token),
    ];
    return routes[i % routes.length]();
  },
  'oidc-exchange.ip': (t, i) => t.http.post(`${PREFIX}/oidc/exchange`).send({ code: `code-${i}` }),
  // One budget for the organization routes but inviting and answering invitations.
  'organizations.ip': (t, i) => {
    const token = bearer('x'.repeat(43));
    const id = '00000000-0000-4000-8000-000000000000';
    const routes = [
      () => t.http.get(`${PREFIX}/organizations`).set(token),
      () =>
        t.http
          .post(`${PREFIX}/organizations`)
          .set(token)
          .send({ name: `Org ${i}` }),
      () => t.http.get(`${PREFIX}/organizations/${id}/members`).set(token),
      () => t.http.delete(`${PREFIX}/organizations/${id}`).set(token),
    ];
    return routes[i % routes.length]();
  },
  'org-invite.ip': (t, i) => {
    const token = bearer('x'.repeat(43));
    const id = '00000000-0000-4000-8000-000000000000';
    if (i % 2 === 0) {
      return t.http
        .post(`${PREFIX}/organizations/${id}/invitations`)
        .set(token)
        .send({ email: `n${i}@example.com`, role: 'member' });
    }
    return t.http.post(`${PREFIX}/organizations/${id}/invitations/${id}/resend`).set(token).send({});
  },
  'org-accept.ip': (t, i) => {
    const token = bearer('x'.repeat(43));
    const routes = [
      () => t.http.post(`${PREFIX}/invitations/preview`).send({ token: `t${i}` }),
      () =>
        t.http
          .post(`${PREFIX}/invitations/accept`)
          .set(token)
          .send({ token: `t${i}` }),
      () =>
        t.http
          .post(`${PREFIX}/invitations/decline`)
          .set(token)
          .send({ token: `t${i}` }),
    ];
    return routes[i % routes.length]();
  },
  // One budget for listing, creating and revoking one's keys and reading the scopes (a dead session is refused after).
  'api-keys.ip': (t, i) => {
    const token = bearer('x'.repeat(43));
    const routes = [
      () => t.http.get(`${PREFIX}/api-keys`).set(token),
      () => t.http.get(`${PREFIX}/api-keys/scopes`).set(token),
      () =>
        t.http
          .post(`${PREFIX}/api-keys`)
          .set(token)
          .send({ name: `key ${i}`, scopes: ['posts.read'] }),
      () => t.http.post(`${PREFIX}/api-keys/revoke-all`).set(token).send({}),
      () => t.http.delete(`${PREFIX}/api-keys/00000000-0000-4000-8000-000000000000`).set(token),
    ];
    return routes[i % routes.length]();
  },
  // Revoking by possession: no session; any string is answered alike.
  'api-key-revoke.ip': (t, i) => t.http.post(`${PREFIX}/api-keys/revoke`).send({ key: `gatehouse_not-a-key-${i}` }),
  // One budget for every admin route (a dead session is refused after the budget is spent).
  'admin.ip': (t, i) => {
    const token = bearer('x'.repeat(43));
    const id = '00000000-0000-4000-8000-000000000000';
    const routes = [
      () => t.http.get(`${PREFIX}/admin/users`).set(token),
      () => t.http.post(`${PREFIX}/admin/users/${id}/disable`).set(token).send({}),
      () => t.http.get(`${PREFIX}/admin/audit-events`).set(token),
      () => t.http.post(`${PREFIX}/admin/roles`).set(token).send({ name: 'editor' }),
    ];
    return routes[i % routes.length]();
  },
};

for (const driver of DRIVERS)
  describe(`rate limits over HTTP, with the defaults (L2) (${driver})`, () => {
    it('are on when RATE_LIMITS is not set at all', async () => {
      buildTestApp({ driver });
      Container.remove(RATE_LIMITS);
      const limits = resolveRateLimits();
      expect(limits.options).to.deep.equal(resolveRateLimitOptions());
      expect(limits.options.enabled).to.equal(true);
      const key = `unset-token-${process.pid}-${Date.now()}`;
      const { points } = DEFAULT_LIMITS['login.ip'];
      for (let i = 0; i < points; i++) expect((await limits.consume('login.ip', key)).allowed).to.equal(true);
      expect((await limits.consume('login.ip', key)).allowed).to.equal(false);
    });

    for (const [limit, send] of Object.entries(ROUTES) as [IpLimit, (t: TestApp, i: number) => Promise<Response>][]) {
      const { points, duration } = DEFAULT_LIMITS[limit];
      it(`${limit}: ${points} requests per ${duration} s from one address, then 429 with Retry-After`, async () => {
        const t = buildTestApp({ driver, rateLimits: {} });
        for (let i = 0; i < points; i++) {
          const response = await send(t, i);
          expect(response.status, `request ${i + 1}: ${response.text}`)
            .to.be.within(200, 499)
            .and.not.equal(429);
        }
        t.calls.clear();
        const refused = await send(t, points);
        expectRateLimited(refused, duration);
        expect(refused.body).to.deep.equal(RATE_LIMITED);
        expect([...t.calls.keys()], 'a refused request does no work').to.deep.equal([]);
        const event = t.logger.lines.find((line) => (line.fields as { event?: string }).event === 'rate_limited');
        expect(event?.fields).to.deep.include({ event: 'rate_limited', outcome: 'refused', limit });
      });
    }
  });
