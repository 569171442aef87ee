import { expect } from 'chai';
import { DEFAULT_LOGIN_BACKOFF } from '../../src/limits/rate-limit-options';
import { bearer, buildTestApp, OTHER_PASSWORD, PASSWORD, PREFIX, TestApp } from '../support/test-app';
import { expectRateLimited } from './expect-rate-limited';

const WRONG = 'not the password at all';
/** Failed logins allowed before the backoff starts. */
const FREE = DEFAULT_LOGIN_BACKOFF.freeFailures;
const NEW_PASSWORD = 'amber kettle sings at 9';

type Fields = { event?: string; outcome?: string; limit?: string; userId?: string };

function events(t: TestApp, event: string): Fields[] {
  return t.logger.lines.map((line) => line.fields as Fields).filter((fields) => fields.event === event);
}

describe('per-account and per-address limits over HTTP, with the defaults (L1, L2)', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = buildTestApp({ rateLimits: {} });
    await t.createUser('alice');
  });

  const login = (username: string, password: string) => t.http.post(`${PREFIX}/login`).send({ username, password });

  it(`backs off after ${FREE} failed logins, alike for an existing and an unknown username, right password or not`, async () => {
    for (const username of ['alice', 'nobody']) {
      for (let i = 1; i <= FREE + 1; i++)
        expect((await login(username, WRONG)).status, `${username} #${i}`).to.equal(401);
    }
    const answers = [await login('alice', WRONG), await login('nobody', WRONG), await login('alice', PASSWORD)];
    for (const answer of answers) expectRateLimited(answer, 1);
    expect(answers[0].text).to.equal(answers[1].text);
    expect(answers[2].text, 'the right password reveals nothing while backing off').to.equal(answers[0].text);
    expect(answers[0].body.detail.detail).to.equal('Too many attempts; try again later');

    const refused = events(t, 'rate_limited');
    expect(refused).to.have.length(3);
    for (const fields of refused) expect(fields).to.deep.include({ outcome: 'refused', limit: 'login.account' });
    expect(t.logger.text()).to.not.include('alice@example.com');
  });

  it('doubles the wait after each further failure, and a correct login clears it all', async () => {
    for (let i = 1; i <= FREE + 1; i++) await login('alice', WRONG);
    expectRateLimited(await login('alice', WRONG), 1);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    expect((await login('alice', WRONG)).status).to.equal(401);
    const second = await login('alice', WRONG);
    expectRateLimited(second, 2);
    expect(second.headers['retry-after']).to.equal('2');
    await new Promise((resolve) => setTimeout(resolve, 2_050));
    expect((await login('alice', PASSWORD)).status).to.equal(200);
    for (let i = 1; i <= FREE; i++) expect((await login('alice', WRONG)).status, `free again #${i}`).to.equal(401);
  });

  it('keeps password reset open while logins are throttled, and a reset lifts the throttle', async () => {
    for (let i = 1; i <= FREE + 1; i++) await login('alice', WRONG);
    expectRateLimited(await login('alice', PASSWORD), 1);

    const request = await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice@example.com' });
    expect(request.status).to.equal(200);
    await t.accounts.drain();
    const token = t.sender.lastToken('sendPasswordReset', 'alice@example.com');
    const confirm = await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token, new_password: NEW_PASSWORD });
    expect(confirm.status, confirm.text).to.equal(200);

    expect((await login('alice', NEW_PASSWORD)).status, 'no wait after the reset').to.equal(200);
  });

  it('counts a wrong current password on change and delete like a failed login (the same budget)', async () => {
    const session = await t.login('alice');
    const change = (old_password: string) =>
      t.http.post(`${PREFIX}/password/change`).set(bearer(session)).send({ old_password, new_password: NEW_PASSWORD });
    // FREE + 1 wrong current passwords, split between change and delete, start the backoff as logins would.
    const changes = Math.ceil((FREE + 1) / 2);
    for (let i = 1; i <= changes; i++) expect((await change(WRONG)).status).to.equal(401);
    for (let i = 1; i <= FREE + 1 - changes; i++) {
      const remove = await t.http.delete(`${PREFIX}/account`).set(bearer(session)).send({ password: WRONG });
      expect(remove.status).to.equal(401);
    }
    expectRateLimited(await change(PASSWORD), 1);
    expectRateLimited(await login('alice', PASSWORD), 1);
    const refused = events(t, 'rate_limited');
    const userId = (await t.store.users.findByUsernameKey('alice'))!.id;
    expect(refused[0]).to.deep.include({ limit: 'login.account', userId });
    expect(refused[1]).to.deep.include({ limit: 'login.account' }).and.not.have.property('userId');
  });

  it('silently skips reset mail past 5 an hour to one address: the same answer, no mail', async () => {
    const send = () => t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'ALICE@example.com' });
    // Each mail goes out before the next request: a new link supersedes the unsent one before it.
    const first = await send();
    await t.accounts.drain();
    for (let i = 2; i <= 5; i++) {
      await send();
      await t.accounts.drain();
    }
    expect(t.sender.of('sendPasswordReset', 'alice@example.com')).to.have.length(5);

    const sixth = await send();
    await t.accounts.drain();
    expect(sixth.status).to.equal(first.status);
    expect(sixth.text).to.equal(first.text);
    expect(sixth.headers['retry-after']).to.equal(undefined);
    expect(t.sender.of('sendPasswordReset', 'alice@example.com'), 'no sixth mail').to.have.length(5);
    const skipped = events(t, 'rate_limited');
    expect(skipped).to.have.length(1);
    expect(skipped[0]).to.deep.include({ outcome: 'mail_skipped', limit: 'reset-request.email' });
    expect(t.logger.text()).to.not.match(/alice@example\.com/i);
    // Another address is not affected.
    await t.createUser('bob');
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'bob@example.com' }).expect(200);
    await t.accounts.drain();
    expect(t.sender.of('sendPasswordReset', 'bob@example.com')).to.have.length(1);
  });

  it('silently skips verification mail past 5 an hour to one address', async () => {
    const carol = { username: 'carol', email: 'carol@example.com', password: PASSWORD };
    await t.http.post(`${PREFIX}/register`).send(carol).expect(201);
    await t.accounts.drain();
    const send = () => t.http.post(`${PREFIX}/resend-verification`).send({ email: 'carol@example.com' });
    const answers = [];
    // Each mail goes out before the next request: a new link supersedes the unsent one before it.
    for (let i = 1; i <= 6; i++) {
      answers.push(await send());
      await t.accounts.drain();
    }
    expect(new Set(answers.map((answer) => `${answer.status} ${answer.text}`)).size).to.equal(1);
    // One at registration, then five resent.
    expect(t.sender.of('sendVerification', 'carol@example.com')).to.have.length(6);
    expect(events(t, 'rate_limited').map((fields) => fields.limit)).to.deep.equal(['resend-verification.email']);
  });

  it('silently skips "someone tried to register" notices past 5 an hour to one address', async () => {
    const answers = [];
    for (let i = 1; i <= 6; i++) {
      const attempt = { username: `mallory${i}`, email: 'alice@example.com', password: OTHER_PASSWORD };
      answers.push(await t.http.post(`${PREFIX}/register`).send(attempt));
    }
    await t.accounts.drain();
    expect(new Set(answers.map((answer) => `${answer.status} ${answer.text}`)).size).to.equal(1);
    expect(answers[0].status).to.equal(201);
    // One budget for all registration mail to the address: alice's own registration took one of the five.
    expect(t.sender.of('sendRegistrationAttempt', 'alice@example.com')).to.have.length(4);
    expect(events(t, 'rate_limited').map((fields) => fields.limit)).to.deep.equal(['register.email', 'register.email']);
  });

  it('silently skips registration links past 5 an hour to one address, however many usernames claim it', async () => {
    const answers = [];
    for (let i = 1; i <= 6; i++) {
      const attempt = { username: `claim${i}`, email: 'dora@example.com', password: OTHER_PASSWORD };
      answers.push(await t.http.post(`${PREFIX}/register`).send(attempt));
    }
    await t.accounts.drain();
    expect(new Set(answers.map((answer) => `${answer.status} ${answer.text}`)).size).to.equal(1);
    expect(t.sender.of('sendVerification', 'dora@example.com').map((mail) => mail.username)).to.deep.equal([
      'claim1',
      'claim2',
      'claim3',
      'claim4',
      'claim5',
    ]);
    expect(events(t, 'rate_limited').map((fields) => fields.limit)).to.deep.equal(['register.email']);
  });
});
