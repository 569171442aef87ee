import { expect } from 'chai';
import { Exclude, Expose } from 'class-transformer';
import type { AccountUser } from '../../src/services/types';
import { bearer, buildTestApp, OTHER_PASSWORD, PASSWORD, PREFIX, TestApp } from '../support/test-app';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';

for (const kind of TEST_STORES) {
  describe(`HTTP: registration, verification, login and /me (${kind.name})`, () => {
    let t: TestApp;
    freshStoreEachTest(kind, (store) => {
      t = buildTestApp({ store });
      return () => t.accounts.drain();
    });

    it('register 201 → verify → login → /me gives the default public form', async () => {
      const registered = await t.http
        .post(`${PREFIX}/register`)
        .send({ username: 'alice', email: 'alice@example.com', password: PASSWORD });
      expect(registered.status).to.equal(201);
      expect(registered.body).to.have.keys('detail');
      expect(registered.body.detail).to.be.a('string').and.not.empty;

      await t.accounts.drain();
      const token = t.sender.lastToken('sendVerification', 'alice@example.com');
      const verified = await t.http.post(`${PREFIX}/verify-email`).send({ token });
      expect(verified.status).to.equal(200);
      expect(verified.body.detail).to.be.a('string').and.not.empty;

      const login = await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: PASSWORD });
      expect(login.status).to.equal(200);
      expect(login.body).to.have.keys('access_token', 'token_type');
      expect(login.body.token_type).to.equal('bearer');
      expect(login.body.access_token).to.be.a('string').and.not.empty;
      expect(login.headers['cache-control']).to.equal('no-store');

      const me = await t.http.get(`${PREFIX}/me`).set(bearer(login.body.access_token));
      expect(me.status).to.equal(200);
      expect(me.body).to.deep.equal({ username: 'alice', email: 'alice@example.com', verified: true });
    });

    it('a custom USER_SERIALIZER changes /me and only /me', async () => {
      t = buildTestApp({ serializer: (user: AccountUser) => ({ name: user.username.toUpperCase(), since: 'always' }) });
      const token = await t.loginNewUser('bob');
      const me = await t.http.get(`${PREFIX}/me`).set(bearer(token));
      expect(me.status).to.equal(200);
      expect(me.body).to.deep.equal({ name: 'BOB', since: 'always' });
      // Other answers keep their shapes.
      const login = await t.http.post(`${PREFIX}/login`).send({ username: 'bob', password: PASSWORD });
      expect(login.body).to.have.keys('access_token', 'token_type');
      const logout = await t.http.post(`${PREFIX}/logout`).set(bearer(token));
      expect(logout.body).to.have.keys('detail');
    });

    it("a USER_SERIALIZER's class instance goes through class-transformer: what it excludes is never sent", async () => {
      class PublicUser {
        username = '';

        @Exclude()
        email = '';

        @Expose()
        get shout(): string {
          return this.username.toUpperCase();
        }
      }
      const toPublic = (user: AccountUser) =>
        Object.assign(new PublicUser(), { username: user.username, email: user.email });
      t = buildTestApp({ serializer: toPublic });
      const token = await t.loginNewUser('dora');
      const me = await t.http.get(`${PREFIX}/me`).set(bearer(token));
      expect(me.status).to.equal(200);
      expect(me.body).to.deep.equal({ username: 'dora', shout: 'DORA' });
    });

    it('an unverified user who knows the password gets 403 unverified_user and no session', async () => {
      await t.http
        .post(`${PREFIX}/register`)
        .send({ username: 'carol', email: 'carol@example.com', password: PASSWORD });
      t.calls.clear();
      const login = await t.http.post(`${PREFIX}/login`).send({ username: 'carol', password: PASSWORD });
      expect(login.status).to.equal(403);
      expect(login.body.detail.code).to.equal('unverified_user');
      expect(login.body.detail.detail).to.be.a('string').and.not.empty;
      expect(t.calls.get('sessions.create') ?? 0).to.equal(0);
    });

    it('an unverified user with a wrong password gets the same 401 as anyone else', async () => {
      await t.http
        .post(`${PREFIX}/register`)
        .send({ username: 'carol', email: 'carol@example.com', password: PASSWORD });
      const login = await t.http.post(`${PREFIX}/login`).send({ username: 'carol', password: OTHER_PASSWORD });
      expect(login.status).to.equal(401);
      expect(login.body.detail.code).to.equal('invalid_credentials');
    });

    it('wrong password and unknown user get byte-identical 401 answers', async () => {
      await t.createUser('dave');
      const wrong = await t.http.post(`${PREFIX}/login`).send({ username: 'dave', password: OTHER_PASSWORD });
      const unknown = await t.http.post(`${PREFIX}/login`).send({ username: 'nobody', password: OTHER_PASSWORD });
      expect(wrong.status).to.equal(401);
      expect(unknown.status).to.equal(401);
      expect(wrong.text).to.equal(unknown.text);
      expect(wrong.body).to.deep.equal({ detail: { detail: wrong.body.detail.detail, code: 'invalid_credentials' } });
      expect(wrong.headers['www-authenticate']).to.equal(undefined);
    });

    it('a taken username is 409 invalid_username', async () => {
      await t.createUser('erin');
      const again = await t.http
        .post(`${PREFIX}/register`)
        .send({ username: 'ERIN', email: 'other@example.com', password: PASSWORD });
      expect(again.status).to.equal(409);
      expect(again.body.detail.code).to.equal('invalid_username');
      expect(again.body.detail.detail).to.equal('Username already exists');
    });

    it('an address another registration claims answers like a free one; each claim gets its own link', async () => {
      const first = await t.http
        .post(`${PREFIX}/register`)
        .send({ username: 'frank', email: 'frank@example.com', password: PASSWORD });
      const second = await t.http
        .post(`${PREFIX}/register`)
        .send({ username: 'frank2', email: 'Frank@Example.com', password: PASSWORD });
      expect(second.status).to.equal(201);
      expect(second.text).to.equal(first.text);
      expect((await t.store.users.findByUsernameKey('frank2'))?.verified).to.equal(false);
      await t.accounts.drain();
      expect(t.sender.of('sendVerification').map((mail) => mail.username)).to.deep.equal(['frank', 'frank2']);
      expect(t.sender.of('sendRegistrationAttempt')).to.have.length(0);
    });

    it('an address a verified account owns answers like a free one, and only its owner hears of it', async () => {
      await t.createUser('fern');
      t.sender.sent.length = 0;
      const answer = await t.http
        .post(`${PREFIX}/register`)
        .send({ username: 'fern2', email: 'FERN@example.com', password: PASSWORD });
      expect(answer.status).to.equal(201);
      await t.accounts.drain();
      expect(t.sender.of('sendVerification')).to.have.length(0);
      expect(t.sender.of('sendRegistrationAttempt', 'fern@example.com').map((mail) => mail.username)).to.deep.equal([
        'fern',
      ]);
    });

    it('invalid username, invalid email and weak password are 400 with their codes', async () => {
      const cases = [
        [{ username: 'a b', email: 'x@example.com', password: PASSWORD }, 'invalid_username'],
        [{ username: 'gina', email: 'not-an-email', password: PASSWORD }, 'invalid_email'],
        [{ username: 'gina', email: 'gina@example.com', password: 'short' }, 'weak_password'],
      ] as const;
      for (const [body, code] of cases) {
        const response = await t.http.post(`${PREFIX}/register`).send(body);
        expect(response.status, code).to.equal(400);
        expect(response.body.detail.code).to.equal(code);
        expect(response.body.detail.detail).to.be.a('string').and.not.empty;
      }
      expect(await t.store.users.findByUsernameKey('gina')).to.equal(null);
    });

    it('verify-email with an unknown token is 400 invalid_verification_token and leaves the user unverified', async () => {
      await t.http.post(`${PREFIX}/register`).send({ username: 'hank', email: 'hank@example.com', password: PASSWORD });
      const response = await t.http.post(`${PREFIX}/verify-email`).send({ token: 'A'.repeat(43) });
      expect(response.status).to.equal(400);
      expect(response.body.detail.code).to.equal('invalid_verification_token');
      expect((await t.store.users.findByUsernameKey('hank'))?.verified).to.equal(false);
    });

    it('a verification token works once', async () => {
      await t.http.post(`${PREFIX}/register`).send({ username: 'ivy', email: 'ivy@example.com', password: PASSWORD });
      await t.accounts.drain();
      const token = t.sender.lastToken('sendVerification', 'ivy@example.com');
      await t.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
      const again = await t.http.post(`${PREFIX}/verify-email`).send({ token });
      expect(again.status).to.equal(400);
      expect(again.body.detail.code).to.equal('invalid_verification_token');
    });

    it('resend-verification answers the same for unverified, verified, unknown and malformed addresses', async () => {
      await t.http.post(`${PREFIX}/register`).send({ username: 'jay', email: 'jay@example.com', password: PASSWORD });
      await t.createUser('kim');
      await t.accounts.drain();
      const before = t.sender.of('sendVerification').length;
      const answers = [];
      for (const email of ['jay@example.com', 'kim@example.com', 'ghost@example.com', 'not an email']) {
        const response = await t.http.post(`${PREFIX}/resend-verification`).send({ email });
        answers.push([response.status, response.text]);
      }
      expect(new Set(answers.map((a) => JSON.stringify(a))).size).to.equal(1);
      expect(answers[0][0]).to.equal(200);
      await t.accounts.drain();
      const resent = t.sender.of('sendVerification').slice(before);
      expect(resent.map((m) => m.email)).to.deep.equal(['jay@example.com']);
      // The new token verifies the account.
      await t.http.post(`${PREFIX}/verify-email`).send({ token: resent[0].token }).expect(200);
    });

    it('a role in the registration body is ignored (unknown fields are stripped)', async () => {
      await t.accounts.access.createRole('admin');
      const response = await t.http
        .post(`${PREFIX}/register`)
        .send({ username: 'lee', email: 'lee@example.com', password: PASSWORD, role: 'admin', verified: true });
      expect(response.status).to.equal(201);
      const user = await t.store.users.findByUsernameKey('lee');
      expect(user?.verified).to.equal(false);
      expect(await t.store.access.listUserRoles(user!.id)).to.deep.equal([]);
    });
  });
}
