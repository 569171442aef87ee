import { expect } from 'chai';
import { createHash, createHmac } from 'node:crypto';
import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import { DAY, HOUR, ManualClock, MINUTE } from '../support/manual-clock';
import { expectError } from './support/answers';
import {
  bearer,
  openSecurityApp,
  OTHER_PASSWORD,
  PASSWORD,
  PREFIX,
  SecurityApp,
  TEST_SECRET,
} from './support/security-app';
import { dumpTables, execute, storedValues } from './support/sqlite-file';
import { CHEAP_HASHING } from '../support/fixtures';

const RAW_TOKEN = /^[A-Za-z0-9_-]{43}$/;

describe('Security checklist: Tokens', () => {
  let t: SecurityApp;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock();
    t = await openSecurityApp({ clock });
  });
  afterEach(() => t.close());

  async function requestReset(email: string): Promise<string> {
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email }).expect(200);
    await t.drain();
    return t.sender.lastToken('sendPasswordReset', email);
  }

  it('T1: session, verification and reset tokens are 32 random bytes, all different', async () => {
    await t.createUser('alice');
    const tokens = [t.sender.lastToken('sendVerification')];
    for (let i = 0; i < 20; i++) tokens.push(await t.login('alice'));
    for (let i = 0; i < 5; i++) tokens.push(await requestReset('alice@example.com'));
    const bytes = tokens.map((token) => {
      expect(token).to.match(RAW_TOKEN);
      return Buffer.from(token, 'base64url');
    });
    for (const raw of bytes) expect(raw.length).to.equal(32);
    expect(new Set(tokens).size).to.equal(tokens.length);
    // 26 x 256 bits from a CSPRNG: the share of set bits is 0.5 give or take 0.3% (one standard deviation).
    const ones = bytes
      .flatMap((raw) => [...raw])
      .reduce((sum, byte) => sum + byte.toString(2).replace(/0/g, '').length, 0);
    expect(ones / (tokens.length * 256)).to.be.within(0.46, 0.54);
  });

  it('T2: only HMAC-SHA256(secret key, token) is stored: no raw or plainly hashed token in any table or log', async () => {
    const session = await t.loginNewUser('alice');
    const verification = t.sender.lastToken('sendVerification');
    const reset = await requestReset('alice@example.com');
    const keyed = (token: string) => createHmac('sha256', TEST_SECRET).update(token).digest('base64url');
    const sessionRows = execute(t.filename, 'select token_hash from sessions');
    const tokenRows = execute(t.filename, 'select token_hash, purpose from tokens');
    expect(sessionRows).to.deep.equal([{ token_hash: keyed(session) }]);
    expect(tokenRows).to.deep.equal([{ token_hash: keyed(reset), purpose: 'reset_password' }]);

    const cells = storedValues(dumpTables(t.filename)).map((cell) => cell.value);
    const log = t.logger.text();
    for (const token of [session, verification, reset]) {
      const unkeyed = [
        createHash('sha256').update(token).digest('hex'),
        createHash('sha256').update(token).digest('base64url'),
      ];
      for (const form of [token, ...unkeyed]) {
        expect(
          cells.filter((cell) => cell.includes(form)),
          'stored',
        ).to.deep.equal([]);
        expect(log).not.to.include(form);
      }
    }
    // Keyed: the same database under another key logs nobody in.
    Container.set(ACCOUNT_OPTIONS, {
      secretKey: 'another-secret-key-0123456789abcdef-0123456789',
      hashing: CHEAP_HASHING,
    });
    expectError(await t.http.get(`${PREFIX}/me`).set(bearer(session)), 401, 'invalid_session_token');
    expectError(
      await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token: reset, new_password: OTHER_PASSWORD }),
      400,
      'invalid_password_reset_token',
    );
  });

  it('T3: a token works only for its purpose and its user', async () => {
    await t.register('vera');
    const verification = t.sender.lastToken('sendVerification', 'vera@example.com');
    const session = await t.loginNewUser('alice');
    await t.createUser('bob');
    const reset = await requestReset('alice@example.com');

    for (const token of [verification, session]) {
      expectError(
        await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token, new_password: OTHER_PASSWORD }),
        400,
        'invalid_password_reset_token',
      );
    }
    for (const token of [reset, session]) {
      expectError(await t.http.post(`${PREFIX}/verify-email`).send({ token }), 400, 'invalid_verification_token');
    }
    for (const token of [verification, reset]) {
      expectError(await t.http.get(`${PREFIX}/me`).set(bearer(token)), 401, 'invalid_session_token');
    }

    // The misuse spent nothing; each token then does its own job, for its own user only.
    await t.http.post(`${PREFIX}/verify-email`).send({ token: verification }).expect(200);
    await t.http
      .post(`${PREFIX}/password-reset/confirm`)
      .send({ token: reset, new_password: OTHER_PASSWORD })
      .expect(200);
    await t.login('alice', OTHER_PASSWORD);
    await t.login('bob', PASSWORD);
    await t.login('vera', PASSWORD);
  });

  it('T4: expiry is checked on the server: verification after 24 h and reset after 1 h fail (injected clock)', async () => {
    await t.register('early');
    await t.register('late');
    clock.advance(DAY - MINUTE);
    await t.http
      .post(`${PREFIX}/verify-email`)
      .send({ token: t.sender.lastToken('sendVerification', 'early@example.com') })
      .expect(200);
    clock.advance(MINUTE);
    expectError(
      await t.http
        .post(`${PREFIX}/verify-email`)
        .send({ token: t.sender.lastToken('sendVerification', 'late@example.com') }),
      400,
      'invalid_verification_token',
    );
    expectError(
      await t.http.post(`${PREFIX}/login`).send({ username: 'late', password: PASSWORD }),
      403,
      'unverified_user',
    );

    await t.createUser('alice');
    await t.createUser('bob');
    const aliceReset = await requestReset('alice@example.com');
    const bobReset = await requestReset('bob@example.com');
    clock.advance(HOUR - MINUTE);
    await t.http
      .post(`${PREFIX}/password-reset/confirm`)
      .send({ token: aliceReset, new_password: OTHER_PASSWORD })
      .expect(200);
    clock.advance(MINUTE);
    expectError(
      await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token: bobReset, new_password: OTHER_PASSWORD }),
      400,
      'invalid_password_reset_token',
    );
    await t.login('bob', PASSWORD);
  });

  it('T5: a new reset request supersedes older tokens, and a password change ends outstanding ones', async () => {
    const session = await t.loginNewUser('alice');
    const first = await requestReset('alice@example.com');
    const second = await requestReset('alice@example.com');
    expect(execute(t.filename, "select count(*) as n from tokens where purpose = 'reset_password'")).to.deep.equal([
      { n: 1 },
    ]);
    expectError(
      await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token: first, new_password: OTHER_PASSWORD }),
      400,
      'invalid_password_reset_token',
    );

    await t.http
      .post(`${PREFIX}/password/change`)
      .set(bearer(session))
      .send({ old_password: PASSWORD, new_password: OTHER_PASSWORD })
      .expect(200);
    expectError(
      await t.http
        .post(`${PREFIX}/password-reset/confirm`)
        .send({ token: second, new_password: 'a third secret phrase 99' }),
      400,
      'invalid_password_reset_token',
    );
    await t.login('alice', OTHER_PASSWORD);
  });

  it('T6: opening an email link (GET, HEAD), as a mail scanner does, never spends its token; only the POST does', async () => {
    await t.close();
    t = await openSecurityApp({ clock, pages: true });
    await t.register('vera');
    const verification = t.sender.lastToken('sendVerification');
    await t.createUser('alice');
    const reset = await requestReset('alice@example.com');
    for (let i = 0; i < 3; i++) {
      for (const [page, token] of [
        ['verify-email', verification],
        ['password-reset', reset],
      ]) {
        const opened = await t.http.get(`${PREFIX}/${page}?token=${token}`).set('Accept', i ? '*/*' : 'text/html');
        expect(opened.status, page).to.equal(200);
        await t.http.head(`${PREFIX}/${page}?token=${token}`).expect(200);
      }
    }
    expect(execute(t.filename, 'select purpose from tokens order by purpose')).to.deep.equal([
      { purpose: 'reset_password' },
      { purpose: 'verify_email' },
    ]);
    await t.http.post(`${PREFIX}/verify-email`).send({ token: verification }).expect(200);
    await t.http
      .post(`${PREFIX}/password-reset/confirm`)
      .send({ token: reset, new_password: OTHER_PASSWORD })
      .expect(200);
  });

  it('T7: a bearer token is accepted only in the Authorization header: not from the query, the body or a cookie', async () => {
    const session = await t.loginNewUser('alice');
    const refused = (answer: { status: number; text: string }, where: string) => {
      expect(answer.status, `${where}: ${answer.text}`).to.be.oneOf([400, 401]);
      expect(answer.text, where).not.to.include('alice');
    };
    for (const query of ['access_token', 'token', 'bearer', 'authorization']) {
      refused(await t.http.get(`${PREFIX}/me?${query}=${session}`), query);
    }
    refused(await t.http.get(`${PREFIX}/me`).set('Cookie', `access_token=${session}; token=${session}`), 'cookie');
    refused(
      await t.http.post(`${PREFIX}/logout?access_token=${session}`).send({ access_token: session, token: session }),
      'logout',
    );
    refused(await t.http.post(`${PREFIX}/logout`).send({ access_token: session, token: session }), 'body');
    await t.http.get(`${PREFIX}/me`).set(bearer(session)).expect(200);
  });
});
