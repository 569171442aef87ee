import { expect } from 'chai';
import { buildTestApp, PREFIX } from '../support/test-app';
import { expectRateLimited } from './expect-rate-limited';

// better-auth CVE-2025-71399: its limiter keyed buckets by the path as written, so `//sign-in` or a trailing slash
// reached the handler with a fresh budget. Here the budget is named for the action; this pins which spellings the
// router sends to an action (they must share its budget) and that every other spelling is a plain 404.

const body = { username: 'nobody', password: 'wrong password here' };

const REACHING_LOGIN = [
  '/auth/login',
  '/auth/login/',
  '/auth/LOGIN',
  '/AUTH/Login',
  '/auth/login?next=/',
  '/auth/Login/?a=1',
];
const NOT_ROUTED = [
  '//auth/login',
  '/auth//login',
  '/auth/login//',
  '/auth/%6Cogin',
  '/auth/%6cogin',
  '/auth/logi%6E',
  '/auth%2Flogin',
  '/auth/login%2F',
  '/auth/./login',
  '/auth/x/../login',
  '/auth/login;x',
  '/auth/login%00',
  '/auth/login.json',
  '/auth/login%20',
];

describe('rate limits: every spelling of a route shares its budget (L4)', () => {
  it('login: the spellings the router accepts spend one budget; the others are 404 and spend nothing', async () => {
    const t = buildTestApp({ rateLimits: { limits: { 'login.ip': { points: REACHING_LOGIN.length, duration: 60 } } } });
    for (const path of NOT_ROUTED) {
      const response = await t.http.post(path).send(body);
      expect(response.status, `${path}: ${response.text}`).to.equal(404);
      expect(response.body.detail.code).to.equal('not_found');
    }
    for (const path of REACHING_LOGIN) {
      const response = await t.http.post(path).send(body);
      expect(response.status, `${path}: ${response.text}`).to.equal(401);
    }
    for (const path of REACHING_LOGIN) expectRateLimited(await t.http.post(path).send(body), 60);
    for (const path of NOT_ROUTED) expect((await t.http.post(path).send(body)).status, path).to.equal(404);
  });

  it('password reset: the budget follows the action through case and trailing slashes', async () => {
    const t = buildTestApp({ rateLimits: { limits: { 'reset-request.ip': { points: 3, duration: 3600 } } } });
    const paths = [
      `${PREFIX}/password-reset/request`,
      `${PREFIX}/Password-Reset/Request/`,
      `${PREFIX}/PASSWORD-RESET/REQUEST`,
    ];
    for (const path of paths)
      expect((await t.http.post(path).send({ email: 'a@example.com' })).status, path).to.equal(200);
    expectRateLimited(await t.http.post(`${PREFIX}/password-reset/request/`).send({ email: 'b@example.com' }), 3600);
    // Another action keeps its own budget.
    expect((await t.http.post(`${PREFIX}/resend-verification`).send({ email: 'a@example.com' })).status).to.equal(200);
  });
});
