import { expect } from 'chai';
import { DAY, HOUR, ManualClock } from '../support/manual-clock';
import { mountAdmin } from './fixtures/admin-controller';
import { expectError } from './support/answers';
import { bearer, openSecurityApp, OTHER_PASSWORD, PASSWORD, PREFIX, SecurityApp } from './support/security-app';
import { dumpTables, execute, injectFailure } from './support/sqlite-file';

describe('Security checklist: Sessions and authorization', () => {
  let t: SecurityApp;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock();
    t = await openSecurityApp({ clock, mount: mountAdmin });
  });
  afterEach(() => t.close());

  const me = (token: string) => t.http.get(`${PREFIX}/me`).set(bearer(token));
  const userId = (username: string) =>
    execute(t.filename, 'select id from users where username_key = ?', username)[0].id as string;

  it('S1: every login mints a new token, even when the client presents one', async () => {
    const first = await t.loginNewUser('alice');
    const answer = await t.http
      .post(`${PREFIX}/login`)
      .set(bearer(first))
      .send({ username: 'alice', password: PASSWORD })
      .expect(200);
    const second = answer.body.access_token as string;
    const third = await t.login('alice');
    expect(new Set([first, second, third]).size).to.equal(3);
    for (const token of [first, second, third]) await me(token).expect(200);
    expect(execute(t.filename, 'select count(*) as n from sessions')).to.deep.equal([{ n: 3 }]);
  });

  it('S2: logout ends the session on the server at once', async () => {
    const session = await t.loginNewUser('alice');
    const other = await t.login('alice');
    await me(session).expect(200);
    await t.http.post(`${PREFIX}/logout`).set(bearer(session)).expect(200);
    expectError(await me(session), 401, 'invalid_session_token');
    expectError(await t.http.post(`${PREFIX}/logout`).set(bearer(session)), 401, 'invalid_session_token');
    await me(other).expect(200);
  });

  it('S3: logout-all ends every session of that user and nobody else’s', async () => {
    const alice1 = await t.loginNewUser('alice');
    const alice2 = await t.login('alice');
    const bob = await t.loginNewUser('bob');
    await t.http.post(`${PREFIX}/logout-all`).set(bearer(alice2)).expect(200);
    for (const token of [alice1, alice2]) expectError(await me(token), 401, 'invalid_session_token');
    await me(bob).expect(200);
  });

  it('S4: reset and change end every session in the same transaction as the password update', async () => {
    const first = await t.loginNewUser('alice');
    const second = await t.login('alice');
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }).expect(200);
    await t.drain();
    const reset = t.sender.lastToken('sendPasswordReset');
    const before = dumpTables(t.filename);

    // A failure between the password update and the end of the sessions: neither happens.
    const heal = injectFailure(t.filename, 'delete', 'sessions');
    try {
      expectError(
        await t.http
          .post(`${PREFIX}/password/change`)
          .set(bearer(first))
          .send({ old_password: PASSWORD, new_password: OTHER_PASSWORD }),
        500,
        'internal_error',
      );
      expectError(
        await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token: reset, new_password: OTHER_PASSWORD }),
        500,
        'internal_error',
      );
    } finally {
      heal();
    }
    expect(dumpTables(t.filename)).to.deep.equal(before);
    for (const token of [first, second]) await me(token).expect(200);

    // Without the failure, each ends every session.
    await t.http
      .post(`${PREFIX}/password-reset/confirm`)
      .send({ token: reset, new_password: OTHER_PASSWORD })
      .expect(200);
    for (const token of [first, second]) expectError(await me(token), 401, 'invalid_session_token');
    const third = await t.login('alice', OTHER_PASSWORD);
    const fourth = await t.login('alice', OTHER_PASSWORD);
    await t.http
      .post(`${PREFIX}/password/change`)
      .set(bearer(third))
      .send({ old_password: OTHER_PASSWORD, new_password: PASSWORD })
      .expect(200);
    for (const token of [third, fourth]) expectError(await me(token), 401, 'invalid_session_token');
  });

  it('S5: deletion ends sessions and tokens; a dead token answers 401 everywhere, never 500', async () => {
    const first = await t.loginNewUser('alice');
    const second = await t.login('alice');
    await t.accounts().access.createRole('admin');
    await t.accounts().access.grantRole('alice', 'admin');
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }).expect(200);
    await t.drain();
    const reset = t.sender.lastToken('sendPasswordReset');
    const id = userId('alice');

    await t.http.delete(`${PREFIX}/account`).set(bearer(first)).send({ password: PASSWORD }).expect(200);
    for (const token of [first, second]) {
      expectError(await me(token), 401, 'invalid_session_token');
      expectError(await t.http.post(`${PREFIX}/logout`).set(bearer(token)), 401, 'invalid_session_token');
      expectError(await t.http.post(`${PREFIX}/logout-all`).set(bearer(token)), 401, 'invalid_session_token');
      expectError(
        await t.http
          .post(`${PREFIX}/password/change`)
          .set(bearer(token))
          .send({ old_password: PASSWORD, new_password: OTHER_PASSWORD }),
        401,
        'invalid_session_token',
      );
      expectError(
        await t.http.delete(`${PREFIX}/account`).set(bearer(token)).send({ password: PASSWORD }),
        401,
        'invalid_session_token',
      );
      expectError(await t.http.get('/host/admin/area').set(bearer(token)), 401, 'invalid_session_token');
    }
    expectError(
      await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token: reset, new_password: OTHER_PASSWORD }),
      400,
      'invalid_password_reset_token',
    );
    for (const table of ['sessions', 'tokens', 'user_roles']) {
      expect(execute(t.filename, `select count(*) as n from ${table} where user_id = ?`, id), table).to.deep.equal([
        { n: 0 },
      ]);
    }
  });

  it('S6: sessions end after 7 idle days, and sliding renewal never passes the 30-day absolute cap (injected clock)', async () => {
    const busy = await t.loginNewUser('alice');
    const idle = await t.login('alice');
    const created = execute(t.filename, 'select created_at, expires_at from sessions limit 1')[0];
    for (let week = 0; week < 4; week++) {
      clock.advance(7 * DAY - HOUR);
      await me(busy).expect(200);
    }
    expectError(await me(idle), 401, 'invalid_session_token');
    clock.advance(2 * DAY + 4 * HOUR - 1);
    await me(busy).expect(200);
    clock.advance(1);
    expectError(await me(busy), 401, 'invalid_session_token');
    expect(Number(created.expires_at) - Number(created.created_at)).to.equal(30 * DAY);
  });

  it('S7: roles are read from the store on every request; a role in a request body is ignored', async () => {
    const alice = await t.loginNewUser('alice');
    await t.accounts().access.createRole('admin');
    expectError(await t.http.get('/host/admin/area').set(bearer(alice)), 403, 'permission_denied');
    // Granted and revoked behind the app's back, by another connection: the very next request sees it.
    execute(t.filename, "insert into user_roles (user_id, role) values (?, 'admin')", userId('alice'));
    await t.http.get('/host/admin/area').set(bearer(alice)).expect(200, { admin: 'alice' });
    execute(t.filename, 'delete from user_roles where user_id = ?', userId('alice'));
    expectError(await t.http.get('/host/admin/area').set(bearer(alice)), 403, 'permission_denied');

    await t.http
      .post(`${PREFIX}/register`)
      .send({
        username: 'mallory',
        email: 'mallory@example.com',
        password: PASSWORD,
        role: 'admin',
        roles: ['admin'],
        verified: true,
      })
      .expect(201);
    await t.drain();
    expect(execute(t.filename, 'select verified from users where username_key = ?', 'mallory')).to.deep.equal([
      { verified: 0 },
    ]);
    expect(execute(t.filename, 'select count(*) as n from user_roles')).to.deep.equal([{ n: 0 }]);
    await t.http
      .post(`${PREFIX}/verify-email`)
      .send({ token: t.sender.lastToken('sendVerification', 'mallory@example.com') })
      .expect(200);
    const mallory = await t.login('mallory');
    expectError(
      await t.http.get('/host/admin/area').set(bearer(mallory)).send({ role: 'admin' }),
      403,
      'permission_denied',
    );
  });

  it('S8: answers that carry a token (and every other) say Cache-Control: no-store', async () => {
    await t.createUser('alice');
    const login = await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: PASSWORD }).expect(200);
    expect(login.body.access_token).to.be.a('string');
    expect(login.headers['cache-control']).to.equal('no-store');
    expect((await me(login.body.access_token)).headers['cache-control']).to.equal('no-store');
  });
});
