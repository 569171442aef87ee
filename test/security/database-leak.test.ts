import { expect } from 'chai';
import type { Response, Test } from 'supertest';
import { requireService, type ServiceName } from '../support/services';
import { expectError } from './support/answers';
import { postgresStore } from './support/postgres-store';
import {
  bearer,
  openSecurityApp,
  OTHER_PASSWORD,
  PASSWORD,
  PREFIX,
  SecurityApp,
  sqliteStore,
  StoreUnderTest,
} from './support/security-app';
import { Row, storedValues } from './support/sqlite-file';

/** Everything a full run handed out or said: the secrets to look for, and where they must not be. */
interface Run {
  passwords: string[];
  /** Every raw token issued: sessions from login answers, verification and reset tokens from the mail. */
  tokens: string[];
  emails: string[];
  /** Status line, headers and body of every answer. */
  answers: string[];
  log: string;
  dump: Map<string, Row[]>;
}

const NEW_PASSWORD = 'a third secret phrase 99';
const RESET_PASSWORD = 'reset to this long phrase';
const WRONG_PASSWORD = 'definitely not the password';

/**
 * One of everything over HTTP: registrations (one left unverified, one with a taken email, one invalid), verification,
 * resend, logins (failed ones too), /me, logout, logout-all, reset requests (superseded, confirmed, left pending, for
 * an unknown address), a password change, roles, and a deletion. Sessions, reset and verification tokens are left
 * alive at the end so that the dump holds each kind.
 */
async function fullRun(t: SecurityApp): Promise<Run> {
  const answers: string[] = [];
  const send = async (call: Test): Promise<Response> => {
    const answer = await call;
    answers.push(`${answer.status} ${JSON.stringify(answer.headers)} ${answer.text}`);
    await t.drain();
    return answer;
  };
  const post = (path: string, body: object, token?: string) => {
    const call = t.http.post(`${PREFIX}${path}`);
    return send((token ? call.set(bearer(token)) : call).send(body));
  };
  const login = async (username: string, password: string) =>
    (await post('/login', { username, password })).body.access_token as string;
  const users = ['alice', 'bob', 'carol', 'dave', 'erin'];
  const emails = users.map((name) => `${name}.person@example.com`);

  for (const [i, username] of users.entries())
    await post('/register', { username, email: emails[i], password: PASSWORD });
  await post('/register', { username: 'mallory', email: 'ALICE.person@example.com', password: PASSWORD });
  await post('/register', { username: 'bad', email: 'not an email', password: PASSWORD });
  await post('/resend-verification', { email: emails[3] });
  for (const email of [emails[0], emails[1], emails[2], emails[4]]) {
    await post('/verify-email', { token: t.sender.lastToken('sendVerification', email) });
  }

  const alice1 = await login('alice', PASSWORD);
  const alice2 = await login('alice', PASSWORD);
  const bob = await login('bob', PASSWORD);
  const erin = await login('erin', PASSWORD);
  await login('alice', WRONG_PASSWORD);
  await login('nobody', PASSWORD);
  await login('dave', PASSWORD);
  for (const token of [alice1, bob, erin]) await send(t.http.get(`${PREFIX}/me`).set(bearer(token)));
  await post('/logout', {}, alice1);
  await post('/logout-all', {}, bob);

  await post('/password-reset/request', { email: emails[2] });
  await post('/password-reset/request', { email: emails[2] });
  await post('/password-reset/confirm', {
    token: t.sender.lastToken('sendPasswordReset', emails[2]),
    new_password: RESET_PASSWORD,
  });
  await post('/password-reset/request', { email: 'nobody@example.com' });
  // SMTP "down" from here on: this reset link and the notices below stay queued, their tokens sealed in the outbox.
  t.sender.failWith = new Error('SMTP is down');
  await post('/password-reset/request', { email: emails[1] }); // left pending

  await post('/password/change', { old_password: WRONG_PASSWORD, new_password: NEW_PASSWORD }, alice2);
  await post('/password/change', { old_password: PASSWORD, new_password: NEW_PASSWORD }, alice2);
  await t.accounts().access.createRole('editor');
  await t.accounts().access.createPermission('posts.write');
  await t.accounts().access.grantPermission('editor', 'posts.write');
  await t.accounts().access.grantRole('alice', 'editor');
  await send(t.http.delete(`${PREFIX}/account`).set(bearer(erin)).send({ password: PASSWORD }));

  // Left alive for the dump: sessions of alice, bob and carol.
  await login('alice', NEW_PASSWORD);
  await login('bob', PASSWORD);
  await login('carol', RESET_PASSWORD);

  const sessions = answers.flatMap((answer) =>
    [...answer.matchAll(/"access_token":"([^"]+)"/g)].map((match) => match[1]),
  );
  const mailed = t.sender.sent.flatMap((mail) => (mail.token ? [mail.token] : []));
  return {
    passwords: [PASSWORD, OTHER_PASSWORD, NEW_PASSWORD, RESET_PASSWORD, WRONG_PASSWORD],
    tokens: [...new Set([...sessions, ...mailed])],
    emails: [...emails, 'ALICE.person@example.com', 'nobody@example.com'],
    answers,
    log: t.logger.text(),
    dump: await t.dump(),
  };
}

function describeLeakTest(name: string, openStore: () => Promise<StoreUnderTest>, service?: ServiceName): void {
  describe(`Security checklist: database leak after a full run (${name})`, function () {
    this.timeout(60_000);
    let t: SecurityApp;
    let run: Run;
    const cells = () => storedValues(run.dump);
    /**
     * Stored secrets: every value of a column named like a hash (token_hash, and any added later), and every
     * credential's secret (a password hash, a sealed TOTP secret, a recovery code's hash).
     */
    const storedHashes = () =>
      cells().filter((cell) => /hash/i.test(cell.column) || (cell.table === 'credentials' && cell.column === 'secret'));
    const hashesOf = (column: string) => cells().filter((cell) => cell.column === column);

    before(async function () {
      if (service) await requireService(this, service);
      t = await openSecurityApp({ openStore });
      run = await fullRun(t);
    });
    after(async () => {
      await t?.close();
    });

    it('the run left something to find: users, sessions, verification and reset tokens, and a sealed link', () => {
      expect(run.dump.get('users')!.length).to.equal(4);
      const sealed = run.dump.get('outbox')!.filter((row) => row.sealed_token !== null);
      expect(
        sealed.map((row) => [row.kind, row.status]),
        'the undelivered reset link',
      ).to.deep.equal([['passwordReset', 'pending']]);
      expect(String(sealed[0].sealed_token)).to.match(/^v1\./);
      expect(run.dump.get('sessions')!.length).to.equal(3);
      expect(
        run.dump
          .get('tokens')!
          .map((row) => row.purpose)
          .sort(),
      ).to.deep.equal(['reset_password', 'verify_email']);
      // mallory's claim on alice's address got a link of its own, and ended when alice confirmed hers.
      expect(run.tokens.length, '7 sessions, 7 verification and 3 reset tokens').to.equal(17);
    });

    it('no table holds a raw token or a password', () => {
      for (const cell of cells()) {
        for (const secret of [...run.tokens, ...run.passwords]) {
          expect(cell.value.includes(secret), `${cell.table}.${cell.column} holds a secret`).to.equal(false);
        }
      }
    });

    it('no stored hash appears in any answer or log line', () => {
      const everything = [...run.answers, run.log].join('\n');
      expect(storedHashes().length).to.be.at.least(9);
      for (const cell of storedHashes()) {
        expect(everything.includes(cell.value), `${cell.table}.${cell.column} was shown`).to.equal(false);
      }
    });

    it('no stored token hash works as a session, verification or reset token', async () => {
      const hashes = hashesOf('token_hash');
      expect(hashes.length).to.equal(5);
      for (const { value } of hashes) {
        expectError(await t.http.get(`${PREFIX}/me`).set(bearer(value)), 401, 'invalid_session_token');
        expectError(
          await t.http.post(`${PREFIX}/verify-email`).send({ token: value }),
          400,
          'invalid_verification_token',
        );
        expectError(
          await t.http
            .post(`${PREFIX}/password-reset/confirm`)
            .send({ token: value, new_password: 'taken over by a thief' }),
          400,
          'invalid_password_reset_token',
        );
      }
    });

    it('no stored password hash logs its user in as a password', async () => {
      const users = run.dump.get('users')!;
      const passwords = run.dump.get('credentials')!.filter((row) => row.kind === 'password');
      expect(passwords.length).to.equal(users.length);
      for (const row of passwords) {
        const username = users.find((user) => user.id === row.user_id)!.username;
        const answer = await t.http.post(`${PREFIX}/login`).send({ username, password: String(row.secret) });
        expectError(answer, 401, 'invalid_credentials');
      }
    });

    it('no log line holds a raw token, a password, a hash or a full email address', () => {
      expect(run.log.length).to.be.greaterThan(0);
      for (const secret of [
        ...run.tokens,
        ...run.passwords,
        ...run.emails,
        ...storedHashes().map((cell) => cell.value),
      ]) {
        expect(run.log.includes(secret), `logged: ${secret.slice(0, 12)}...`).to.equal(false);
      }
      expect(run.log.toLowerCase()).not.to.match(/@example\.com|\$argon2/);
    });
  });
}

describeLeakTest('SQLite', sqliteStore);
describeLeakTest('PostgreSQL', () => postgresStore('security_leak'), 'postgres');
