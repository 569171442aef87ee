import { expect } from 'chai';
import type { Response } from 'supertest';
import { Container } from 'typedi';
import { resolveAccountService } from '../../src/di/resolve';
import { CLOCK } from '../../src/di/tokens';
import { ManualClock } from '../support/manual-clock';
import { totpCode } from '../support/rfc6238';
import { bearer, buildTestApp, PASSWORD, PREFIX, type TestApp } from '../support/test-app';
import { meanwhileBefore } from '../support/store-writes';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';

// Switching two-factor sign-in on over HTTP, on every store: exactly the secret a code proved goes on, however new
// starts of the set-up race the confirmation, and the account's other sessions end unless asked not to.

const STEP = 30_000;
/** 10 s into a 30-second step: every code of a round is of one step. */
const START = Date.UTC(2026, 10, 25, 12, 0, 10);
const ROUNDS = 12;
const RACING_STARTS = 4;

function expectStatus(response: Response, status: number, code?: string): void {
  expect(response.status, response.text).to.equal(status);
  if (code !== undefined) expect(response.body.detail.code, response.text).to.equal(code);
}

for (const kind of TEST_STORES) {
  describe(`HTTP: switching two-factor sign-in on (${kind.name})`, function () {
    this.timeout(60_000);
    let t: TestApp;
    let clock: ManualClock;
    freshStoreEachTest(kind, (store) => {
      t = buildTestApp({ store });
      clock = new ManualClock(START);
      Container.set(CLOCK, clock);
      return () => resolveAccountService().drain();
    });

    const manage = (token: string, path: string, body: object = {}) =>
      t.http.post(`${PREFIX}/second-factor${path}`).set(bearer(token)).send(body);
    const me = (token: string) => t.http.get(`${PREFIX}/me`).set(bearer(token));
    const login = (username: string) => t.http.post(`${PREFIX}/login`).send({ username, password: PASSWORD });
    const answer = (challengeToken: string, code: string) =>
      t.http.post(`${PREFIX}/login/second-factor`).send({ challenge_token: challengeToken, code });

    /** Registers, verifies and signs in (the app's own helper drains the service built before the clock was set). */
    async function loginNewUser(username: string): Promise<string> {
      const email = `${username}@example.com`;
      await t.http.post(`${PREFIX}/register`).send({ username, email, password: PASSWORD }).expect(201);
      await resolveAccountService().drain();
      const token = t.sender.lastToken('sendVerification', email);
      await t.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
      return t.login(username);
    }

    async function start(token: string): Promise<string> {
      const started = await manage(token, '/totp');
      expectStatus(started, 200);
      return started.body.secret as string;
    }

    /** Whether a fresh sign-in of `username` takes a code of `secret` (each on a challenge of its own). */
    async function signInTakes(username: string, secret: string): Promise<boolean> {
      const challenged = await login(username);
      expectStatus(challenged, 200);
      expect(challenged.body.second_factor_required, challenged.text).to.equal(true);
      const answered = await answer(challenged.body.challenge_token as string, totpCode(secret, clock.now()));
      if (answered.status === 200) return true;
      expectStatus(answered, 401, 'invalid_second_factor_code');
      return false;
    }

    it('a confirmation racing new starts switches on the secret its code proved, or fails and switches on nothing', async () => {
      const outcomes = { enabled: 0, refused: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const username = `racer${round}`;
        const session = await loginNewUser(username);
        const proved = await start(session);

        const [confirmed, ...starts] = await Promise.all([
          manage(session, '/totp/confirm', { code: totpCode(proved, clock.now()) }),
          ...Array.from({ length: RACING_STARTS }, () => manage(session, '/totp')),
        ]);
        const started = starts.filter((response) => response.status === 200).map((r) => r.body.secret as string);
        for (const response of starts) {
          if (response.status !== 200) expectStatus(response, 409, 'second_factor_already_enabled');
        }
        clock.advance(STEP);

        if (confirmed.status === 200) {
          outcomes.enabled++;
          expect(confirmed.body.recovery_codes, `round ${round}`).to.have.length.greaterThan(0);
          // Every start that came before the write replaced the secret and failed it: here, all came after.
          expect(started, `round ${round}: no start got through`).to.be.empty;
          expect(await signInTakes(username, proved), `round ${round}: the proved secret signs in`).to.equal(true);
          const recovery = await login(username);
          const byRecoveryCode = await t.http
            .post(`${PREFIX}/login/second-factor`)
            .send({ challenge_token: recovery.body.challenge_token, recovery_code: confirmed.body.recovery_codes[0] });
          expectStatus(byRecoveryCode, 200);
        } else {
          outcomes.refused++;
          // The code was for a secret a start replaced: refused before the write (it was checked against the new
          // one) or by the compare-and-set. Either way nothing is on and no codes were handed out.
          expect(confirmed.status, `round ${round}: ${confirmed.text}`).to.be.oneOf([401, 409]);
          expect(confirmed.body.detail.code).to.be.oneOf([
            'invalid_second_factor_code',
            'second_factor_setup_replaced',
          ]);
          expect(confirmed.body).to.not.have.property('recovery_codes');
          expect(started, `round ${round}: something replaced the secret`).to.not.be.empty;
          const plain = await login(username);
          expectStatus(plain, 200);
          expect(plain.body, `round ${round}: signing in is unchanged`).to.have.property('access_token');
          const status = await t.http.get(`${PREFIX}/second-factor`).set(bearer(session));
          expect(status.body).to.include({ enabled: false, pending: true });
        }
      }
      expect(outcomes.enabled + outcomes.refused).to.equal(ROUNDS);
    });

    it('a confirmation whose secret was replaced answers second_factor_setup_replaced when the replacement comes after its check', async () => {
      // The one order the race above may not hit: the code is checked against S1, then a start stores S2 before the
      // write. The store's compare-and-set sees S2 and switches nothing on.
      const session = await loginNewUser('alice');
      const proved = await start(session);
      let replacement: Promise<Response> | undefined;
      const restore = meanwhileBefore(t.store, 'secondFactors.enable', async () => {
        replacement = manage(session, '/totp');
        await replacement;
      });
      try {
        const confirmed = await manage(session, '/totp/confirm', { code: totpCode(proved, clock.now()) });
        expectStatus(confirmed, 409, 'second_factor_setup_replaced');
        expect(confirmed.body).to.not.have.property('recovery_codes');
      } finally {
        restore();
      }
      const replaced = await replacement!;
      expectStatus(replaced, 200);
      const status = await t.http.get(`${PREFIX}/second-factor`).set(bearer(session));
      expect(status.body).to.include({ enabled: false, pending: true });
      expect(await t.store.outbox.list()).to.satisfy((messages: { kind: string }[]) =>
        messages.every((message) => message.kind !== 'secondFactorEnabled'),
      );

      // The newer secret is the one that can be confirmed.
      const confirmed = await manage(session, '/totp/confirm', {
        code: totpCode(replaced.body.secret as string, clock.now()),
      });
      expectStatus(confirmed, 200);
    });

    it('switching it on ends the other sessions by default; the confirming one stays', async () => {
      const session = await loginNewUser('alice');
      const laptop = await t.login('alice');
      const bob = await loginNewUser('bob');
      const secret = await start(session);
      expectStatus(await manage(session, '/totp/confirm', { code: totpCode(secret, clock.now()) }), 200);
      expectStatus(await me(session), 200);
      expectStatus(await me(laptop), 401, 'invalid_session_token');
      expectStatus(await me(bob), 200);
    });

    it('re-authentication of an account with the factor on takes a code after the password', async () => {
      const session = await loginNewUser('alice');
      const secret = await start(session);
      const confirmed = await manage(session, '/totp/confirm', { code: totpCode(secret, clock.now()) });
      expectStatus(confirmed, 200);
      const recoveryCodes = confirmed.body.recovery_codes as string[];
      clock.advance(11 * 60_000);
      const reauthenticate = (body: object) => t.http.post(`${PREFIX}/reauthenticate`).set(bearer(session)).send(body);
      const endOthers = () => t.http.post(`${PREFIX}/sessions/end-others`).set(bearer(session));

      expectStatus(await reauthenticate({ password: PASSWORD }), 403, 'second_factor_required');
      expectStatus(await endOthers(), 403, 'reauthentication_required');
      expectStatus(await reauthenticate({ password: PASSWORD, code: '000000' }), 401, 'invalid_second_factor_code');
      expectStatus(await reauthenticate({ password: PASSWORD, code: null }), 400);
      expectStatus(await endOthers(), 403, 'reauthentication_required');

      const confirmedAgain = await reauthenticate({ password: PASSWORD, code: recoveryCodes[0] });
      expectStatus(confirmedAgain, 200);
      expect(confirmedAgain.body.reauthenticated_until).to.be.a('string');
      expectStatus(await endOthers(), 200);
      const status = await t.http.get(`${PREFIX}/second-factor`).set(bearer(session));
      expect(status.body.recovery_codes_left, 'the recovery code is spent').to.equal(recoveryCodes.length - 1);

      clock.advance(11 * 60_000);
      expectStatus(
        await reauthenticate({ password: PASSWORD, code: recoveryCodes[0] }),
        401,
        'invalid_second_factor_code',
      );
      expectStatus(await reauthenticate({ password: PASSWORD, code: totpCode(secret, clock.now()) }), 200);
    });

    it('end_other_sessions: false keeps them; a value that is not a boolean is refused', async () => {
      const session = await loginNewUser('alice');
      const laptop = await t.login('alice');
      const secret = await start(session);
      const code = totpCode(secret, clock.now());
      for (const value of [null, 'false', 0]) {
        expectStatus(await manage(session, '/totp/confirm', { code, end_other_sessions: value }), 400);
      }
      expectStatus(await manage(session, '/totp/confirm', { code, end_other_sessions: false }), 200);
      expectStatus(await me(laptop), 200);
      expectStatus(await me(session), 200);
    });
  });
}
