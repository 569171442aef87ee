import { expect } from 'chai';
import { domainToASCII } from 'node:url';
import { expectCode } from './expect-answer';
import { buildTestApp, PASSWORD, PREFIX, TestApp } from '../support/test-app';

/**
 * Emails are canonicalized (NFKC, surrounding spaces trimmed, domain lower-cased and in its ASCII form), then
 * validated; uniqueness is judged on the canonical form with the local part case-folded. Rules already pinned
 * elsewhere are not repeated here: test/security/input-and-headers.test.ts (I3: one `@`, CR/LF inside, commas,
 * quotes, controls, 254/255 ASCII bytes, fullwidth twins at registration) and test/services/registration.test.ts.
 */
describe('Input rules: emails', () => {
  let t: TestApp;
  beforeEach(() => {
    t = buildTestApp();
  });

  const register = (username: string, email: string) =>
    t.http.post(`${PREFIX}/register`).send({ username, email, password: PASSWORD });
  const stored = async (username: string) => (await t.store.users.findByUsernameKey(username))?.email;
  const mailed = async () => {
    await t.accounts.drain();
    return t.sender.sent.map((mail) => `${mail.operation} ${mail.email}`);
  };

  it('trims surrounding spaces and lower-cases the domain; the local part keeps its case, which uniqueness ignores', async () => {
    expect((await register('alice', '  Alice@EXAMPLE.com ')).status).to.equal(201);
    expect(await stored('alice')).to.equal('Alice@example.com');
    expect((await register('alice2', 'aLiCe@example.COM')).status).to.equal(201);
    const keys = await Promise.all(['alice', 'alice2'].map((name) => t.store.users.findByUsernameKey(name)));
    expect(keys.map((user) => user?.emailKey)).to.deep.equal(['alice@example.com', 'alice@example.com']);
  });

  // Regression: trim() used to drop a trailing CR/LF, so "alice@example.com\r\n" was accepted as alice's address.
  it('refuses a line break or control character anywhere, including a trailing CR/LF that trimming would hide', async () => {
    await t.createUser('alice');
    t.sender.sent.length = 0;
    const routes = ['/password-reset/request', '/resend-verification'];
    const answerTo = async (route: string, email: string) => {
      const answer = await t.http.post(`${PREFIX}${route}`).send({ email });
      return [answer.status, answer.text];
    };
    const unknown = await Promise.all(routes.map((route) => answerTo(route, 'nobody@example.com')));
    const spellings = [
      'alice@example.com\r\n',
      'alice@example.com\n',
      '\ralice@example.com',
      'alice@example.com\t',
      'alice@example.com\u0085',
      'alice@example.com\u2028',
      '\u2029alice@example.com',
    ];
    for (const [i, email] of spellings.entries()) {
      expectCode(await register(`user${i}`, email), 400, 'invalid_email');
      for (const [r, route] of routes.entries()) {
        expect(await answerTo(route, email), `${route} ${JSON.stringify(email)}`).to.deep.equal(unknown[r]);
      }
    }
    expect(await mailed(), 'no mail for a spelling that is not an address').to.deep.equal([]);
  });

  it('fullwidth ＠ (U+FF20) and small ﹫ (U+FE6B) are @ after NFKC, and name the same account at reset and resend', async () => {
    expect((await register('bob', 'bob＠example.com')).status).to.equal(201);
    expect(await stored('bob')).to.equal('bob@example.com');
    await t.accounts.drain();
    t.sender.sent.length = 0;
    await t.http.post(`${PREFIX}/resend-verification`).send({ email: 'ｂｏｂ﹫example.com' }).expect(200);
    expect(await mailed()).to.deep.equal(['sendVerification bob@example.com']);
    await t.accounts.verifyEmail(t.sender.lastToken('sendVerification', 'bob@example.com'));
    await t.accounts.drain();
    t.sender.sent.length = 0;
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'BOB＠EXAMPLE.COM' }).expect(200);
    expect(await mailed()).to.deep.equal(['sendPasswordReset bob@example.com']);
  });

  it('refuses what is not one plain address once canonical: two @ after NFKC, names, brackets, IP literals, bad labels', async () => {
    const invalid = [
      'alice＠b@example.com',
      '<alice@example.com>',
      'Alice <alice@example.com>',
      'alice@example.com;bob@example.com',
      'alice@example.com"',
      'alice@[127.0.0.1]',
      'alice@127.0.0.1',
      'alice@example.123',
      '.alice@example.com',
      'alice.@example.com',
      'al..ice@example.com',
      'ali\u200bce@example.com',
      'alice@-example.com',
      'alice@exa_mple.com',
      'alice@example.com.',
      'ålice@example.com',
      '@example.com',
      'alice@',
    ];
    for (const [i, email] of invalid.entries()) {
      expectCode(await register(`user${i}`, email), 400, 'invalid_email');
    }
    expect(t.calls.get('users.create') ?? 0).to.equal(0);
  });

  it('keeps international domains in their ASCII form, so every spelling of one domain is one address', async () => {
    expect((await register('carl', 'carl@Bücher.example')).status).to.equal(201);
    expect(await stored('carl')).to.equal('carl@xn--bcher-kva.example');
    // UTS 46 mapping, as browsers do: the ASCII form, a soft hyphen and an ideographic full stop change nothing.
    for (const [i, twin] of [
      'carl@xn--bcher-kva.example',
      'carl@bü\u00adcher.example',
      'carl@bücher。example',
    ].entries()) {
      expect((await register(`carl${i}`, twin)).status).to.equal(201);
      expect((await t.store.users.findByUsernameKey(`carl${i}`))?.emailKey, twin).to.equal(
        'carl@xn--bcher-kva.example',
      );
    }
    await t.accounts.drain();
    const links = t.sender.of('sendVerification').map((mail) => mail.email);
    expect(links).to.deep.equal(Array(4).fill('carl@xn--bcher-kva.example'));
  });

  it('counts the 254 bytes on the canonical form, the one stored and mailed, not on the bytes as sent', async () => {
    const domain = (last: number) => `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(last)}.com`;
    // 64 fullwidth letters are 192 bytes as sent, 64 once canonical: the address is 254 bytes.
    const wide = `${'ａ'.repeat(64)}@${domain(57)}`;
    expect(Buffer.byteLength(wide)).to.equal(382);
    expect((await register('wide', wide)).status).to.equal(201);
    expect(Buffer.byteLength((await stored('wide'))!)).to.equal(254);

    // Twelve CJK characters are 36 bytes as sent and 45 in punycode: 228 bytes sent, 255 canonical.
    const cjk = Array.from({ length: 12 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join('');
    const international = (filler: number) => `${'e'.repeat(64)}@${cjk}.${cjk}.${cjk}.${'f'.repeat(filler)}.com`;
    const ascii = (email: string) => `${email.split('@')[0]}@${domainToASCII(email.split('@')[1])}`;
    expect([Buffer.byteLength(international(48)), ascii(international(48)).length]).to.deep.equal([228, 255]);
    expectCode(await register('cjk', international(48)), 400, 'invalid_email');
    expect(ascii(international(47)).length).to.equal(254);
    expect((await register('cjk', international(47))).status).to.equal(201);
  });
});
