import Router from '@koa/router';
import { expect } from 'chai';
import { cacheRouteMatches, type MatchingRouter } from '../../src/koa/router-match-cache';
import { countLayerTests } from '../support/layer-tests';

const noop = async () => undefined;

/** A router like the account router: static paths, a parameter, two methods on one path, a `use()` middleware. */
function buildRouter(): Router {
  const router = new Router();
  router.get('/auth/me', noop);
  router.post('/auth/login', noop);
  router.get('/auth/sessions', noop);
  router.delete('/auth/sessions', noop);
  router.get('/auth/admin/users/:id', noop);
  router.use('/auth/admin', noop);
  return router;
}

/** Which layer paths and methods a match names, comparable between two routers. */
function described(match: ReturnType<Router['match']>) {
  const layer = (l: { path: string | RegExp; methods: string[] }) => `${l.methods.join('|')} ${String(l.path)}`;
  return { path: match.path.map(layer), pathAndMethod: match.pathAndMethod.map(layer), route: match.route };
}

describe('cacheRouteMatches', () => {
  const PATHS = [
    '/auth/me',
    '/AUTH/me',
    '/auth/me/',
    '/auth/login',
    '/auth/sessions',
    '/auth/admin/users/42',
    '/auth/admin',
    '/auth/nope',
    '/elsewhere',
  ];
  const METHODS = ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS', 'PROPFIND'];

  it('answers every path and method as the router does, the first time and every time after', () => {
    const plain = buildRouter();
    const cached = buildRouter();
    cacheRouteMatches(cached as unknown as MatchingRouter);
    for (let round = 0; round < 3; round++) {
      for (const path of PATHS) {
        for (const method of METHODS) {
          expect(described(cached.match(path, method)), `${method} ${path}`).to.deep.equal(
            described(plain.match(path, method)),
          );
        }
      }
    }
  });

  it('skips the regular expressions only for a path that is exactly a route path', () => {
    const router = buildRouter();
    cacheRouteMatches(router as unknown as MatchingRouter);
    const tests = countLayerTests(router);
    router.match('/auth/me', 'GET');
    expect(tests.count).to.equal(router.stack.length);
    router.match('/auth/me', 'POST');
    expect(tests.count, 'a known route path').to.equal(router.stack.length);
    for (const path of ['/AUTH/me', '/auth/admin/users/42', '/auth/nope']) {
      tests.count = 0;
      router.match(path, 'GET');
      router.match(path, 'GET');
      expect(tests.count, path).to.equal(2 * router.stack.length);
    }
  });

  it('hands out arrays of its own, so that what a caller adds to one never reaches the next answer', () => {
    const router = buildRouter();
    cacheRouteMatches(router as unknown as MatchingRouter);
    router.match('/auth/sessions', 'GET');
    const first = router.match('/auth/sessions', 'GET');
    first.path.push(router.stack[0]);
    first.pathAndMethod.length = 0;
    const next = router.match('/auth/sessions', 'GET');
    expect(next.path).to.have.length(2);
    expect(next.pathAndMethod).to.have.length(1);
  });

  it('sees a route added afterwards', () => {
    const router = buildRouter();
    cacheRouteMatches(router as unknown as MatchingRouter);
    router.match('/auth/me', 'GET');
    router.post('/auth/me', noop);
    const match = router.match('/auth/me', 'POST');
    expect(match.route).to.equal(true);
    expect(match.path).to.have.length(2);
  });

  it('still goes through a match put on the class later (instrumentation), for the paths it does not answer', () => {
    const router = buildRouter();
    cacheRouteMatches(router as unknown as MatchingRouter);
    const original = Router.prototype.match;
    const seen: string[] = [];
    Router.prototype.match = function (this: Router, path: string, method: string) {
      seen.push(path);
      return original.call(this, path, method);
    };
    try {
      router.match('/auth/nope', 'GET');
    } finally {
      Router.prototype.match = original;
    }
    expect(seen).to.deep.equal(['/auth/nope']);
  });
});
