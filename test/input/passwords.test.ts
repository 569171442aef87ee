import * as argon2 from 'argon2';
import { expect } from 'chai';
import { expectCode } from './expect-answer';
import { bearer, buildTestApp, PASSWORD, PREFIX, TestApp } from '../support/test-app';

/**
 * How passwords meet Unicode. The checklist items have their own tests in test/security/passwords.test.ts: P1
 * (12 emoji accepted, 11 refused, 128/129), P2 (1 MB refused on every route, argon2 never called), P3 (100 characters,
 * last one changed), P5 (`é` composed and decomposed, on register, login, change and reset). These add the cases
 * where a Unicode choice decides the outcome.
 */
describe('Input rules: passwords and Unicode', () => {
  let t: TestApp;
  beforeEach(() => {
    t = buildTestApp();
  });

  const register = (username: string, password: string) =>
    t.http.post(`${PREFIX}/register`).send({ username, email: `${username}@example.com`, password });
  const login = (username: string, password: string) => t.http.post(`${PREFIX}/login`).send({ username, password });

  it('refuses unpaired surrogates, which would all hash as U+FFFD: on register, change and reset', async () => {
    // Why: argon2 hashes the UTF-8 of the string, and every lone surrogate encodes as U+FFFD.
    expect(await argon2.verify(await argon2.hash('tail \ud800 secret words'), 'tail \udfff secret words')).to.equal(
      true,
    );

    expectCode(await register('lone', 'tail \ud800 secret words'), 400, 'weak_password');
    const session = await t.loginNewUser('alice');
    const change = t.http.post(`${PREFIX}/password/change`).set(bearer(session));
    expectCode(
      await change.send({ old_password: PASSWORD, new_password: '\udc00 and more words' }),
      400,
      'weak_password',
    );
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }).expect(200);
    await t.accounts.drain();
    const token = t.sender.lastToken('sendPasswordReset');
    const confirm = (newPassword: string) =>
      t.http.post(`${PREFIX}/password-reset/confirm`).send({ token, new_password: newPassword });
    expectCode(await confirm('words and more \ud83d'), 400, 'weak_password');
    // A surrogate pair is a character like any other; and the refused password did not spend the token.
    expect((await confirm('words and more \ud83e\udd8a')).status).to.equal(200);
  });

  it('normalizes with NFKC, not only NFC: a fullwidth password is its ASCII twin', async () => {
    await t.createUser('wide', 'wide@example.com', 'ｖｉｏｌｅｔ ｓｔａｉｒｃａｓｅ ４２');
    expect((await login('wide', 'violet staircase 42')).status).to.equal(200);
  });

  it('counts code points, not graphemes: a family emoji is five of the twelve', async () => {
    const family = '👩\u200d👩\u200d👧';
    expect([...family]).to.have.length(5);
    expect((await register('family', `${family}${family}🦊🐙`)).status).to.equal(201);
    expectCode(await register('family2', `${family}${family}🦊`), 400, 'weak_password');
  });

  it('does not truncate at the longest password: 128 four-byte emoji (512 bytes) differing in the last one', async () => {
    const longest = `${'🦊'.repeat(127)}🐙`;
    expect(Buffer.byteLength(longest)).to.equal(512);
    await t.createUser('longest', 'longest@example.com', longest);
    expectCode(await login('longest', '🦊'.repeat(128)), 401, 'invalid_credentials');
    expect((await login('longest', longest)).status).to.equal(200);
  });
});
