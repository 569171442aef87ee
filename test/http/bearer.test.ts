import { expect } from 'chai';
import { readBearerToken } from '../../src/http/bearer-header';
import { bearer, buildTestApp, PASSWORD, PREFIX, TestApp } from '../support/test-app';

const NEW_PASSWORD = 'amber kettle sings 19 tunes';

/** The five bearer routes, each with a body that would be valid. */
const BEARER_ROUTES: { method: 'get' | 'post' | 'delete'; path: string; body?: object }[] = [
  { method: 'get', path: '/me' },
  { method: 'post', path: '/logout' },
  { method: 'post', path: '/logout-all' },
  { method: 'post', path: '/password/change', body: { old_password: PASSWORD, new_password: NEW_PASSWORD } },
  { method: 'delete', path: '/account', body: { password: PASSWORD } },
];

describe('HTTP: bearer authentication of the account routes', () => {
  let t: TestApp;
  beforeEach(() => {
    t = buildTestApp();
  });

  for (const route of BEARER_ROUTES) {
    describe(`${route.method.toUpperCase()} ${route.path}`, () => {
      const call = (headers: Record<string, string>) => {
        const request = t.http[route.method](`${PREFIX}${route.path}`).set(headers);
        return route.body ? request.send(route.body) : request;
      };

      it('without a header: 401 with the plain string detail and WWW-Authenticate: Bearer', async () => {
        await t.createUser('alice');
        t.calls.clear();
        const response = await call({});
        expect(response.status).to.equal(401);
        expect(response.body).to.deep.equal({ detail: 'Not authenticated' });
        expect(response.headers['www-authenticate']).to.equal('Bearer');
        expect(response.headers['cache-control']).to.equal('no-store');
        expect(t.calls.size, 'the store is not even asked').to.equal(0);
      });

      it('with a rejected token: 401 invalid_session_token, nested, with WWW-Authenticate: Bearer', async () => {
        for (const token of ['A'.repeat(43), 'not-a-real-token']) {
          const response = await call(bearer(token));
          expect(response.status).to.equal(401);
          expect(response.body.detail.code).to.equal('invalid_session_token');
          expect(response.body.detail.detail).to.be.a('string').and.not.empty;
          expect(response.headers['www-authenticate']).to.equal('Bearer');
        }
      });

      it('with a valid token: success', async () => {
        const token = await t.loginNewUser('alice');
        const response = await call(bearer(token));
        expect(response.status).to.equal(200);
      });

      it('a malformed Authorization header counts as missing', async () => {
        const token = await t.loginNewUser('alice');
        for (const header of [
          `Basic ${token}`,
          'Bearer',
          `Bearer ${token} extra`,
          `Token ${token}`,
          `Bearer${token}`,
        ]) {
          const response = await call({ Authorization: header });
          expect(response.status, header).to.equal(401);
          expect(response.body, header).to.deep.equal({ detail: 'Not authenticated' });
        }
      });
    });
  }

  it('the scheme is case-insensitive', async () => {
    const token = await t.loginNewUser('alice');
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const response = await t.http.get(`${PREFIX}/me`).set('Authorization', `${scheme} ${token}`);
      expect(response.status, scheme).to.equal(200);
    }
  });

  it('a token in the query string is refused with 400, even beside a valid header (T7)', async () => {
    const token = await t.loginNewUser('alice');
    for (const query of [`access_token=${token}`, `ACCESS_TOKEN=${token}`, `a=1&%61ccess_token=${token}`]) {
      for (const headers of [{}, bearer(token)]) {
        const response = await t.http.get(`${PREFIX}/me?${query}`).set(headers);
        expect(response.status, query).to.equal(400);
        expect(response.body).to.deep.equal({
          detail: {
            detail: 'Send the bearer token in the Authorization header, never in the URL',
            code: 'token_in_query',
          },
        });
        expect(response.headers['cache-control']).to.equal('no-store');
      }
    }
    // A parameter merely containing the words is somebody else's business.
    await t.http.get(`${PREFIX}/me?my_access_token_hint=1`).set(bearer(token)).expect(200);
  });

  it('a dead session after logout answers 401, never 500', async () => {
    const token = await t.loginNewUser('alice');
    await t.http.post(`${PREFIX}/logout`).set(bearer(token)).expect(200);
    for (const route of BEARER_ROUTES) {
      const request = t.http[route.method](`${PREFIX}${route.path}`).set(bearer(token));
      const response = await (route.body ? request.send(route.body) : request);
      expect(response.status, route.path).to.equal(401);
      expect(response.body.detail.code).to.equal('invalid_session_token');
    }
  });
});

describe('readBearerToken', () => {
  it('reads one b64token after the scheme', () => {
    expect(readBearerToken('Bearer abc-_.~+/=')).to.equal('abc-_.~+/=');
    expect(readBearerToken('bearer  abc')).to.equal('abc');
  });

  it('refuses everything else', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Bearer a b',
      'Basic abc',
      'Bearer a\tb',
      'Bearer ab=c',
      'Bearer "abc"',
    ]) {
      expect(readBearerToken(header), String(header)).to.equal(null);
    }
  });
});
