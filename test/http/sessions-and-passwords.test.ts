import { expect } from 'chai';
import { bearer, buildTestApp, OTHER_PASSWORD, PASSWORD, PREFIX, TestApp } from '../support/test-app';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';

const NEW_PASSWORD = 'amber kettle sings 19 tunes';

for (const kind of TEST_STORES) {
  describe(`HTTP: sessions, password reset, password change, account deletion (${kind.name})`, () => {
    let t: TestApp;
    freshStoreEachTest(kind, (store) => {
      t = buildTestApp({ store });
      return () => t.accounts.drain();
    });

    const me = (token: string) => t.http.get(`${PREFIX}/me`).set(bearer(token));

    async function expectSessionRejected(token: string) {
      const response = await me(token);
      expect(response.status).to.equal(401);
      expect(response.body.detail.code).to.equal('invalid_session_token');
      expect(response.headers['www-authenticate']).to.equal('Bearer');
    }

    describe('logout and logout-all', () => {
      it('logout removes the presented session only', async () => {
        const first = await t.loginNewUser('alice');
        const second = await t.login('alice');
        const response = await t.http.post(`${PREFIX}/logout`).set(bearer(first));
        expect(response.status).to.equal(200);
        expect(response.body).to.have.keys('detail');
        await expectSessionRejected(first);
        expect((await me(second)).status).to.equal(200);
      });

      it('logout-all removes every session of the user and nobody else’s', async () => {
        const a1 = await t.loginNewUser('alice');
        const a2 = await t.login('alice');
        const b1 = await t.loginNewUser('bob');
        const response = await t.http.post(`${PREFIX}/logout-all`).set(bearer(a2));
        expect(response.status).to.equal(200);
        expect(response.body.detail).to.be.a('string').and.not.empty;
        await expectSessionRejected(a1);
        await expectSessionRejected(a2);
        expect((await me(b1)).body.username).to.equal('bob');
      });

      it('every login mints a new token', async () => {
        const first = await t.loginNewUser('alice');
        const second = await t.login('alice');
        expect(first).to.not.equal(second);
      });
    });

    describe('password reset', () => {
      it('request answers byte-identically for an existing and an unknown email, and mails only the real one', async () => {
        await t.createUser('alice');
        const known = await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' });
        const unknown = await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'ghost@example.com' });
        const malformed = await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'nope' });
        expect(known.status).to.equal(200);
        expect(unknown.text).to.equal(known.text);
        expect(malformed.text).to.equal(known.text);
        expect(unknown.status).to.equal(200);
        await t.accounts.drain();
        expect(t.sender.of('sendPasswordReset').map((m) => m.email)).to.deep.equal(['alice@example.com']);
      });

      it('confirm replaces the password and ends every session; the old password stops working', async () => {
        const s1 = await t.loginNewUser('alice');
        const s2 = await t.login('alice');
        const other = await t.loginNewUser('bob');
        await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }).expect(200);
        await t.accounts.drain();
        const token = t.sender.lastToken('sendPasswordReset', 'alice@example.com');

        const response = await t.http
          .post(`${PREFIX}/password-reset/confirm`)
          .send({ token, new_password: NEW_PASSWORD });
        expect(response.status).to.equal(200);
        expect(response.body).to.have.keys('detail');
        await expectSessionRejected(s1);
        await expectSessionRejected(s2);
        expect((await me(other)).status).to.equal(200);
        const old = await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: PASSWORD });
        expect(old.status).to.equal(401);
        await t.login('alice', NEW_PASSWORD);
      });

      it('confirm with an unknown token is 400 invalid_password_reset_token', async () => {
        const response = await t.http
          .post(`${PREFIX}/password-reset/confirm`)
          .send({ token: 'B'.repeat(43), new_password: NEW_PASSWORD });
        expect(response.status).to.equal(400);
        expect(response.body.detail.code).to.equal('invalid_password_reset_token');
      });

      it('confirm with a weak password is 400 weak_password and leaves the token usable', async () => {
        await t.createUser('alice');
        await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' });
        await t.accounts.drain();
        const token = t.sender.lastToken('sendPasswordReset', 'alice@example.com');
        const weak = await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token, new_password: 'short' });
        expect(weak.status).to.equal(400);
        expect(weak.body.detail.code).to.equal('weak_password');
        await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token, new_password: NEW_PASSWORD }).expect(200);
      });
    });

    describe('password change', () => {
      it('replaces the password, ends every session of the user, and the old password stops working', async () => {
        const s1 = await t.loginNewUser('alice');
        const s2 = await t.login('alice');
        const other = await t.loginNewUser('bob');
        const response = await t.http
          .post(`${PREFIX}/password/change`)
          .set(bearer(s1))
          .send({ old_password: PASSWORD, new_password: NEW_PASSWORD });
        expect(response.status).to.equal(200);
        expect(response.body).to.have.keys('detail');
        await expectSessionRejected(s1);
        await expectSessionRejected(s2);
        expect((await me(other)).status).to.equal(200);
        expect((await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: PASSWORD })).status).to.equal(
          401,
        );
        await t.login('alice', NEW_PASSWORD);
        await t.accounts.drain();
        expect(t.sender.of('sendPasswordChanged', 'alice@example.com')).to.have.length(1);
      });

      it('a wrong old password is 401 invalid_credentials and changes nothing', async () => {
        const token = await t.loginNewUser('alice');
        const response = await t.http
          .post(`${PREFIX}/password/change`)
          .set(bearer(token))
          .send({ old_password: OTHER_PASSWORD, new_password: NEW_PASSWORD });
        expect(response.status).to.equal(401);
        expect(response.body.detail.code).to.equal('invalid_credentials');
        expect((await me(token)).status).to.equal(200);
      });

      it('a weak new password is 400 weak_password', async () => {
        const token = await t.loginNewUser('alice');
        const response = await t.http
          .post(`${PREFIX}/password/change`)
          .set(bearer(token))
          .send({ old_password: PASSWORD, new_password: 'short' });
        expect(response.status).to.equal(400);
        expect(response.body.detail.code).to.equal('weak_password');
      });
    });

    describe('account deletion', () => {
      it('DELETE /account → 200, then the token is 401, login fails, and the goodbye email goes out', async () => {
        const token = await t.loginNewUser('alice');
        const other = await t.loginNewUser('bob');
        const response = await t.http.delete(`${PREFIX}/account`).set(bearer(token)).send({ password: PASSWORD });
        expect(response.status).to.equal(200);
        expect(response.body).to.have.keys('detail');
        await expectSessionRejected(token);
        const login = await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: PASSWORD });
        expect(login.status).to.equal(401);
        expect(login.body.detail.code).to.equal('invalid_credentials');
        expect((await me(other)).status).to.equal(200);
        await t.accounts.drain();
        expect(t.sender.of('sendAccountDeleted', 'alice@example.com')).to.have.length(1);
      });

      it('a wrong password is 401 invalid_credentials and deletes nothing', async () => {
        const token = await t.loginNewUser('alice');
        const response = await t.http.delete(`${PREFIX}/account`).set(bearer(token)).send({ password: OTHER_PASSWORD });
        expect(response.status).to.equal(401);
        expect(response.body.detail.code).to.equal('invalid_credentials');
        expect(await t.store.users.findByUsernameKey('alice')).to.not.equal(null);
      });

      it('without a body it is 400 validation_error, not a deletion', async () => {
        const token = await t.loginNewUser('alice');
        const response = await t.http.delete(`${PREFIX}/account`).set(bearer(token));
        expect(response.status).to.equal(400);
        expect(response.body.detail.code).to.equal('validation_error');
        expect(await t.store.users.findByUsernameKey('alice')).to.not.equal(null);
      });
    });
  });
}
