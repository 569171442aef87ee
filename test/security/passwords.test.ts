import { expect } from 'chai';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { expectError } from './support/answers';
import { watchArgon2 } from './support/argon2-calls';
import { bearer, openSecurityApp, PASSWORD, PREFIX, SecurityApp, TEST_SECRET } from './support/security-app';
import { execute } from './support/sqlite-file';
import { CHEAP_HASHING } from '../support/fixtures';

const TWELVE_EMOJI = '🦊🐙🌵🎻🚲🧭🪁🍄🛶🦉🧩🪐';

describe('Security checklist: Passwords', () => {
  let t: SecurityApp;
  beforeEach(async () => {
    t = await openSecurityApp();
  });
  afterEach(() => t.close());

  const storedHash = (username: string) =>
    execute(
      t.filename,
      "select c.secret from credentials c join users u on u.id = c.user_id where u.username_key = ? and c.kind = 'password'",
      username,
    )[0]?.secret as string;

  it('P1: length is counted in code points after NFKC, at least 12 (configurable) and at most 128', async () => {
    expect((await t.register('emoji', 'emoji@example.com', TWELVE_EMOJI)).status).to.equal(201);
    const eleven = await t.register('emoji2', 'emoji2@example.com', [...TWELVE_EMOJI].slice(1).join(''));
    expectError(eleven, 400, 'weak_password');
    expect(eleven.body.detail.detail).to.include('12');
    // 7 code points as typed, 13 after NFKC expands the ligatures: counted after.
    expect((await t.register('ligature', 'ligature@example.com', 'ﬃ ﬄ ﬁ ﬂ')).status).to.equal(201);
    expectError(await t.register('toolong', 'toolong@example.com', '🦊'.repeat(129)), 400, 'weak_password');
    expect((await t.register('longest', 'longest@example.com', '🦊'.repeat(127) + '🐙')).status).to.equal(201);

    Container.set(ACCOUNT_OPTIONS, {
      secretKey: TEST_SECRET,
      hashing: CHEAP_HASHING,
      password: { minLength: 15 },
    });
    expectError(await t.register('stricter', 'stricter@example.com', 'fourteen chars'), 400, 'weak_password');
    expect((await t.register('stricter', 'stricter@example.com', 'fifteen chars!!')).status).to.equal(201);
  });

  it('P2: a 1 MB password is refused fast on every route that takes one, and argon2 is never called', async () => {
    const session = await t.loginNewUser('alice');
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }).expect(200);
    await t.drain();
    const resetToken = t.sender.lastToken('sendPasswordReset');
    const megabyte = 'x'.repeat(1 << 20);
    const calls = watchArgon2();
    try {
      for (const password of [megabyte, 'y'.repeat(5_000), 'z'.repeat(600)]) {
        const answers = [
          await t.http.post(`${PREFIX}/register`).send({ username: 'mallory', email: 'm@example.com', password }),
          await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password }),
          await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token: resetToken, new_password: password }),
          await t.http
            .post(`${PREFIX}/password/change`)
            .set(bearer(session))
            .send({ old_password: password, new_password: password }),
          await t.http.delete(`${PREFIX}/account`).set(bearer(session)).send({ password }),
        ];
        for (const answer of answers) expect(answer.status, answer.text).to.be.oneOf([400, 401, 413]);
      }
      expect(calls.count, 'argon2 calls').to.equal(0);
    } finally {
      calls.restore();
    }
    const started = Date.now();
    await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: megabyte }).expect(413);
    expect(Date.now() - started, 'ms for a 1 MB login').to.be.below(500);
    await t.http.get(`${PREFIX}/me`).set(bearer(session)).expect(200);
  });

  it('P3: a 100-character password with only its last character changed does not log in (no truncation)', async () => {
    const hundred =
      'a passphrase running well past the seventy-two bytes that bcrypt would keep, and on'.padEnd(99, '.') + 'X';
    expect([...hundred].length).to.equal(100);
    await t.createUser('alice', 'alice@example.com', hundred);
    expectError(
      await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: hundred.slice(0, -1) + 'Y' }),
      401,
      'invalid_credentials',
    );
    expectError(
      await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: hundred.slice(0, 72) }),
      401,
      'invalid_credentials',
    );
    await t.login('alice', hundred);
  });

  it('P4: no composition rules: lower case only, digits only, spaces, emoji and any script are accepted', async () => {
    const passwords = [
      'only lowercase words here',
      '8305 2291 7740 1163',
      'пароль из кириллицы тоже',
      '密碼可以是任何文字組成的句子',
      TWELVE_EMOJI,
      '  spaces kept at both ends  ',
    ];
    for (const [i, password] of passwords.entries()) {
      await t.createUser(`user${i}`, `user${i}@example.com`, password);
      await t.login(`user${i}`, password);
    }
    expectError(
      await t.http.post(`${PREFIX}/login`).send({ username: 'user5', password: passwords[5].trim() }),
      401,
      'invalid_credentials',
    );
  });

  it('P5: passwords are NFKC-normalized alike on register, login, change and reset', async () => {
    const composed = 'cr\u00e8me br\u00fbl\u00e9e pour deux';
    await t.createUser('alice', 'alice@example.com', composed);
    const session = await t.login('alice', composed.normalize('NFD'));

    const changed = 'na\u00efve caf\u00e9 au comptoir';
    await t.http
      .post(`${PREFIX}/password/change`)
      .set(bearer(session))
      .send({ old_password: composed.normalize('NFD'), new_password: changed.normalize('NFD') })
      .expect(200);
    await t.login('alice', changed);

    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' }).expect(200);
    await t.drain();
    const reset = '\u00c5ngstr\u00f6m units, measured';
    await t.http
      .post(`${PREFIX}/password-reset/confirm`)
      .send({ token: t.sender.lastToken('sendPasswordReset'), new_password: reset })
      .expect(200);
    await t.login('alice', reset.normalize('NFD'));
  });

  it('P6: common passwords and the account’s own words are refused on register, change and reset', async () => {
    expectError(await t.register('alice', 'alice@example.com', 'passwordpassword'), 400, 'weak_password');
    expectError(await t.register('zebrafish', 'z@example.com', 'my ZebraFish is great'), 400, 'weak_password');
    expectError(await t.register('alice', 'marigold@example.com', 'marigold forever 2026'), 400, 'weak_password');

    const session = await t.loginNewUser('charlie', 'charlie.brown@example.com');
    for (const newPassword of ['123456789012', 'charlie the great one', 'charlie.brown rides again']) {
      const answer = await t.http
        .post(`${PREFIX}/password/change`)
        .set(bearer(session))
        .send({ old_password: PASSWORD, new_password: newPassword });
      expectError(answer, 400, 'weak_password');
    }
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'charlie.brown@example.com' }).expect(200);
    await t.drain();
    const token = t.sender.lastToken('sendPasswordReset');
    for (const newPassword of ['password1234', 'i am charlie.brown now']) {
      expectError(
        await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token, new_password: newPassword }),
        400,
        'weak_password',
      );
    }
    await t.login('charlie');
  });

  it('P7: changing a password needs a valid session and the current password', async () => {
    const session = await t.loginNewUser('alice');
    const body = { old_password: PASSWORD, new_password: 'a brand new secret phrase' };
    const anonymous = await t.http.post(`${PREFIX}/password/change`).send(body);
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body).to.deep.equal({ detail: 'Not authenticated' });
    expectError(
      await t.http
        .post(`${PREFIX}/password/change`)
        .set(bearer('F'.repeat(43)))
        .send(body),
      401,
      'invalid_session_token',
    );
    expectError(
      await t.http
        .post(`${PREFIX}/password/change`)
        .set(bearer(session))
        .send({ ...body, old_password: 'not the current one!' }),
      401,
      'invalid_credentials',
    );
    expectError(
      await t.http.post(`${PREFIX}/password/change`).set(bearer(session)).send({ new_password: body.new_password }),
      400,
      'validation_error',
    );
    await t.login('alice', PASSWORD);
    await t.http.post(`${PREFIX}/password/change`).set(bearer(session)).send(body).expect(200);
    await t.login('alice', body.new_password);
  });

  it('P8: argon2id with m >= 19456 KiB, t >= 2, p = 1 and a 16-byte salt in a PHC string; rehashed on login when m is raised', async () => {
    await t.close();
    t = await openSecurityApp({ accountOptions: { hashing: {} } });
    await t.createUser('alice');
    await t.createUser('bob');
    const phc = /^\$argon2id\$v=19\$([a-z]=\d+(?:,[a-z]=\d+)*)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;
    const parsed = (hash: string) => {
      const match = phc.exec(hash);
      expect(match, hash.slice(0, 40)).to.not.equal(null);
      const params = new Map(
        match![1]
          .split(',')
          .map((pair) => pair.split('='))
          .map(([k, v]) => [k, Number(v)]),
      );
      return { m: params.get('m'), t: params.get('t'), p: params.get('p'), salt: Buffer.from(match![2], 'base64') };
    };
    const alice = parsed(storedHash('alice'));
    expect(alice.m).to.be.at.least(19_456);
    expect(alice.t).to.be.at.least(2);
    expect(alice.p).to.equal(1);
    expect(alice.salt.length).to.equal(16);
    expect(parsed(storedHash('bob')).salt.equals(alice.salt), 'same password, different salts').to.equal(false);

    Container.set(ACCOUNT_OPTIONS, { secretKey: TEST_SECRET, hashing: { memoryCost: 24_576 } });
    await t.login('alice');
    expect(parsed(storedHash('alice')).m).to.equal(24_576);
    expect(parsed(storedHash('bob')).m, 'only a login rehashes').to.equal(19_456);
    await t.login('alice');
  });
});
