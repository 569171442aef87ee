import { expect } from 'chai';
import { expectCode } from './expect-answer';
import { buildTestApp, PASSWORD, PREFIX, TestApp } from '../support/test-app';

/**
 * Usernames (docs/reference/input-rules.md): NFKC, then 3 to 32 characters of ASCII letters, digits, `_`, `.` and `-`,
 * starting with a letter or digit; unique regardless of case. Too short, too long, spaces, a leading `-`, accents,
 * `;` and quotes are pinned in test/services/registration.test.ts; case-insensitive uniqueness in
 * test/services/registration.test.ts and test/security/storage-and-faults.test.ts (D1, C1).
 */
describe('Input rules: usernames', () => {
  let t: TestApp;
  let addresses = 0;
  beforeEach(() => {
    t = buildTestApp();
  });

  const register = (username: string, email = `user${++addresses}@example.com`) =>
    t.http.post(`${PREFIX}/register`).send({ username, email, password: PASSWORD });

  it('accepts the documented set at its bounds: 3 and 32 characters, a leading digit, every allowed punctuation', async () => {
    for (const username of ['abc', 'Z'.repeat(32), '9lives', 'a_b.c-d', 'x--y__z..w']) {
      const answer = await register(username);
      expect(answer.status, `${username}: ${answer.text}`).to.equal(201);
    }
  });

  it('refuses look-alikes and invisible characters: Cyrillic а, combining marks, zero-width joiners, edge spaces', async () => {
    const refused = [
      '_alice',
      '.alice',
      '\u0430lice',
      'ali\u0301ce',
      'al\u200dice',
      'al\u200bice',
      'alice ',
      ' alice',
      'ali\nce',
    ];
    for (const username of refused) {
      expectCode(await register(username), 400, 'invalid_username');
    }
  });

  it('reads fullwidth letters and ligatures as their ASCII twins (NFKC): one name for uniqueness and for login', async () => {
    expect((await register('ａｌｉｃｅ', 'alice@example.com')).status).to.equal(201);
    expect((await t.store.users.findByUsernameKey('alice'))?.username).to.equal('alice');
    expect((await register('ALICE')).status).to.equal(409);
    await t.accounts.drain();
    const token = t.sender.lastToken('sendVerification', 'alice@example.com');
    await t.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
    for (const spelling of ['alice', 'ＡＬＩＣＥ', 'Alice']) {
      const login = await t.http.post(`${PREFIX}/login`).send({ username: spelling, password: PASSWORD });
      expect(login.status, spelling).to.equal(200);
    }
    expect((await register('ﬁle')).status).to.equal(201);
    expect((await register('FILE')).status).to.equal(409);
  });

  it('a name that cannot exist is, at login, just an unknown user: the same 401', async () => {
    const unknown = await t.http.post(`${PREFIX}/login`).send({ username: 'nobody', password: PASSWORD });
    expectCode(unknown, 401, 'invalid_credentials');
    for (const username of ['\u0430lice', '', 'x', '\ud800\udfff\ud800', 'İstanbul', 'x'.repeat(64)]) {
      const answer = await t.http.post(`${PREFIX}/login`).send({ username, password: PASSWORD });
      expect([answer.status, answer.text], JSON.stringify(username)).to.deep.equal([unknown.status, unknown.text]);
    }
  });
});
