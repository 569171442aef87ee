import { expect } from 'chai';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { CLOCK } from '../../src/di/tokens';
import { ConfigurationError } from '../../src/errors/configuration-error';
import { accountGuards } from '../../src/guards/account-guards';
import { AccountHttpError, NotAuthenticatedError } from '../../src/http/http-errors';
import { settledAuthError } from '../../src/http/request-auth';
import type { UserStore } from '../../src/services/user-store';
import { HOUR, ManualClock } from '../support/manual-clock';
import { PASSWORD, resetContainer } from '../support/test-app';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';

/** A routing-controllers action as the Express driver makes it: Node's own request and response. */
function actionWith(authorization?: string) {
  const req = new IncomingMessage(new Socket());
  if (authorization !== undefined) req.headers.authorization = authorization;
  return { request: req, response: new ServerResponse(req) };
}

/** Whatever the checker gave, settled: its value, or the error it threw or rejected with. */
async function outcomeOf(run: () => unknown): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    return error;
  }
}

/**
 * The guards called as routing-controllers calls them, to see how they decide: on an SQLite file the session is read
 * synchronously and the verdict comes back within the call; where a read or a write must wait, it is a promise.
 * The HTTP answers of every case are in host-guards.test.ts, on both paths.
 */
describe('guards: how they decide (SQLite file)', () => {
  const sqlite = TEST_STORES.find((kind) => kind.name === 'SQLite')!;
  const guards = accountGuards();
  let clock: ManualClock;
  let calls: Map<string, number>;
  let token: string;

  freshStoreEachTest(sqlite, async (store: UserStore) => {
    const { calls: counted, sender } = resetContainer({ store });
    calls = counted;
    clock = new ManualClock(Date.now());
    Container.set(CLOCK, clock);
    const accounts = resolveAccountService();
    await accounts.register({ username: 'alice', email: 'alice@example.com', password: PASSWORD });
    await accounts.drain();
    await accounts.verifyEmail(sender.lastToken('sendVerification', 'alice@example.com'));
    await accounts.access.createRole('reader');
    await accounts.access.createPermission('reports.read');
    await accounts.access.createPermission('reports.write');
    await accounts.access.grantPermission('reader', 'reports.read');
    await accounts.access.grantRole('alice', 'reader');
    token = await accounts.login('alice', PASSWORD);
    await accounts.drain();
    // Each request-path query is compiled at its first run, through Kysely; the direct reads start after that.
    for (const requirements of [[], ['perm:reports.read'], ['role:reader']]) {
      await guards.authorizationChecker(actionWith(`Bearer ${token}`), requirements);
    }
    calls.clear();
    return () => accounts.drain();
  });

  it('grants within the call, and gives the user within the call, from one read', () => {
    const action = actionWith(`Bearer ${token}`);
    expect(guards.authorizationChecker(action, ['perm:reports.read'])).to.equal(true);
    const user = guards.currentUserChecker(action);
    expect(user).to.not.be.instanceOf(Promise);
    expect(user).to.include({ username: 'alice', verified: true });
    expect(calls.get('sessions.check')).to.equal(1);
  });

  it('refuses within the call: a rejected token, a missing header, a permission not held', () => {
    const rejected = actionWith(`Bearer ${'A'.repeat(43)}`);
    expect(() => guards.authorizationChecker(rejected, [])).to.throw(AccountHttpError, /Invalid or expired/);
    expect(rejected.response.getHeader('www-authenticate')).to.equal('Bearer');
    expect(settledAuthError(rejected.request)).to.be.instanceOf(AccountHttpError);
    expect(guards.currentUserChecker(rejected)).to.equal(undefined);

    expect(() => guards.authorizationChecker(actionWith(), [])).to.throw(NotAuthenticatedError);
    const denied = actionWith(`Bearer ${token}`);
    expect(() => guards.authorizationChecker(denied, ['perm:reports.write']))
      .to.throw(AccountHttpError)
      .with.property('code', 'permission_denied');
    // The rejected token and the denied one; a missing header reads nothing.
    expect(calls.get('sessions.check')).to.equal(2);
  });

  it('waits only when it must: moving the idle window is a write, and the verdict a promise', async () => {
    clock.advance(HOUR + 1);
    const verdict = guards.authorizationChecker(actionWith(`Bearer ${token}`), ['perm:reports.read']);
    expect(verdict).to.be.instanceOf(Promise);
    expect(await verdict).to.equal(true);
    expect(calls.get('sessions.touch')).to.equal(1);
    // The window has moved: the next request decides within the call again.
    expect(guards.authorizationChecker(actionWith(`Bearer ${token}`), ['perm:reports.read'])).to.equal(true);
  });

  it('a second role or permission is a second read, and the verdict waits for it', async () => {
    const verdict = guards.authorizationChecker(actionWith(`Bearer ${token}`), ['perm:reports.read', 'role:reader']);
    expect(verdict).to.be.instanceOf(Promise);
    expect(await verdict).to.equal(true);
    expect(calls.get('sessions.check')).to.equal(1);
  });

  it('a requirement that is not a string fails as misconfiguration, in its turn, after authentication', async () => {
    expect(await outcomeOf(() => guards.authorizationChecker(actionWith(), [42]))).to.be.instanceOf(
      NotAuthenticatedError,
    );
    const misconfigured = await outcomeOf(() =>
      guards.authorizationChecker(actionWith(`Bearer ${token}`), ['perm:reports.read', 42]),
    );
    expect(misconfigured).to.be.instanceOf(ConfigurationError);
    const deniedFirst = await outcomeOf(() =>
      guards.authorizationChecker(actionWith(`Bearer ${token}`), ['role:writer', 42]),
    );
    expect(deniedFirst).to.be.instanceOf(AccountHttpError);
  });

  it('a store that fails gives every check of the request the same rejection, never a throw or a user', async () => {
    const failure = new Error('disk I/O error');
    const accounts = resolveAccountService();
    const original = accounts.checkSession.bind(accounts);
    accounts.checkSession = () => {
      throw failure;
    };
    try {
      const action = actionWith(`Bearer ${token}`);
      const verdict = guards.authorizationChecker(action, ['perm:reports.read']);
      expect(verdict).to.be.instanceOf(Promise);
      expect(await outcomeOf(() => verdict)).to.equal(failure);
      const user = guards.currentUserChecker(action);
      expect(user).to.be.instanceOf(Promise);
      expect(await outcomeOf(() => user)).to.equal(failure);
      expect(settledAuthError(action.request)).to.equal(null);
    } finally {
      accounts.checkSession = original;
    }
  });
});
