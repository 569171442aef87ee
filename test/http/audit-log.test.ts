import { expect } from 'chai';
import { Writable } from 'node:stream';
import type { Response } from 'supertest';
import { createPinoLogger } from '../../src/logging/pino-logger';
import { bearer, buildTestApp, DRIVERS, OTHER_PASSWORD, PASSWORD, PREFIX, TestApp } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Line = { level: string; fields: Record<string, unknown>; message: string };

for (const driver of DRIVERS)
  describe(`HTTP: request ids and the security audit trail (D3, ${driver})`, () => {
    let t: TestApp;
    beforeEach(() => {
      t = buildTestApp({ driver });
    });

    /** The lines logged while handling the request that got this response (the core's background work included). */
    async function linesOf(response: Response): Promise<Line[]> {
      await t.accounts.drain();
      const id = response.headers['x-request-id'];
      expect(id, 'X-Request-Id').to.match(UUID);
      return (t.logger.lines as Line[]).filter((line) => line.fields.requestId === id);
    }

    async function expectEvent(response: Response, event: string, outcome: string, userId?: string) {
      const lines = await linesOf(response);
      const line = lines.find((l) => l.fields.event === event && l.fields.outcome === outcome);
      expect(line, `${event}/${outcome} in ${JSON.stringify(lines)}`).to.not.equal(undefined);
      expect(line!.fields.ip)
        .to.be.a('string')
        .and.match(/127\.0\.0\.1/);
      if (userId) expect(line!.fields.userId).to.equal(userId);
    }

    it('puts a fresh X-Request-Id on every answer, errors included, and never takes the client’s', async () => {
      const responses = [
        await t.http.get(`${PREFIX}/nowhere`),
        await t.http.post(`${PREFIX}/login`).set('Content-Type', 'text/plain').send('x'),
        await t.http.get(`${PREFIX}/me`),
        await t.http.post(`${PREFIX}/login`).set('X-Request-Id', 'forged-id').send({ username: 'a', password: 'b' }),
      ];
      const ids = responses.map((response) => response.headers['x-request-id']);
      for (const id of ids) expect(id).to.match(UUID);
      expect(new Set(ids).size).to.equal(ids.length);
    });

    it('logs each security event with user id, IP, outcome and request id, and no secret anywhere', async () => {
      const register = await t.http
        .post(`${PREFIX}/register`)
        .send({ username: 'alice', email: 'alice.person@example.com', password: PASSWORD });
      await expectEvent(register, 'register', 'created');
      const userId = (await t.store.users.findByUsernameKey('alice'))!.id;
      const verificationToken = t.sender.lastToken('sendVerification', 'alice.person@example.com');
      await expectEvent(
        await t.http.post(`${PREFIX}/verify-email`).send({ token: 'x'.repeat(43) }),
        'verify_email',
        'invalid_token',
      );
      await expectEvent(
        await t.http.post(`${PREFIX}/verify-email`).send({ token: verificationToken }),
        'verify_email',
        'verified',
        userId,
      );

      await expectEvent(
        await t.http.post(`${PREFIX}/login`).send({ username: 'nobody', password: PASSWORD }),
        'login',
        'unknown_user',
      );
      await expectEvent(
        await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: OTHER_PASSWORD }),
        'login',
        'wrong_password',
        userId,
      );
      const login = await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: PASSWORD });
      await expectEvent(login, 'login', 'success', userId);
      const session = login.body.access_token as string;
      await expectEvent(await t.http.post(`${PREFIX}/logout`).set(bearer(session)), 'logout', 'success', userId);

      await expectEvent(
        await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice.person@example.com' }),
        'password_reset_requested',
        'sent',
        userId,
      );
      await expectEvent(
        await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'nobody@example.com' }),
        'password_reset_requested',
        'unknown_email',
      );
      const resetToken = t.sender.lastToken('sendPasswordReset', 'alice.person@example.com');
      await expectEvent(
        await t.http
          .post(`${PREFIX}/password-reset/confirm`)
          .send({ token: 'y'.repeat(43), new_password: OTHER_PASSWORD }),
        'password_reset',
        'invalid_token',
      );
      await expectEvent(
        await t.http.post(`${PREFIX}/password-reset/confirm`).send({ token: resetToken, new_password: OTHER_PASSWORD }),
        'password_reset',
        'success',
        userId,
      );

      const second = await t.login('alice', OTHER_PASSWORD);
      await expectEvent(
        await t.http
          .post(`${PREFIX}/password/change`)
          .set(bearer(second))
          .send({ old_password: PASSWORD, new_password: 'a third secret phrase 99' }),
        'password_change',
        'wrong_password',
        userId,
      );
      await expectEvent(
        await t.http
          .post(`${PREFIX}/password/change`)
          .set(bearer(second))
          .send({ old_password: OTHER_PASSWORD, new_password: 'a third secret phrase 99' }),
        'password_change',
        'success',
        userId,
      );
      const third = await t.login('alice', 'a third secret phrase 99');
      await expectEvent(await t.http.post(`${PREFIX}/logout-all`).set(bearer(third)), 'logout_all', 'success', userId);
      const fourth = await t.login('alice', 'a third secret phrase 99');
      await expectEvent(
        await t.http.delete(`${PREFIX}/account`).set(bearer(fourth)).send({ password: 'a third secret phrase 99' }),
        'account_deleted',
        'success',
        userId,
      );

      const log = t.logger.text();
      for (const secret of [
        PASSWORD,
        OTHER_PASSWORD,
        'a third secret phrase 99',
        'alice.person@example.com',
        'alice.person',
        verificationToken,
        resetToken,
        session,
        second,
        third,
        fourth,
      ]) {
        expect(log, secret).not.to.include(secret);
      }
      expect(log).not.to.match(/\$argon2/);
    });

    it('writes pino JSON lines with level names and ISO times, and redacts secret-looking fields passed by mistake', () => {
      const written: string[] = [];
      const destination = new Writable({
        write(chunk, _encoding, done) {
          written.push(String(chunk));
          done();
        },
      });
      const logger = createPinoLogger({ destination: destination as unknown as import('pino').DestinationStream });
      logger.info(
        {
          event: 'login',
          outcome: 'success',
          userId: 'u1',
          password: 'hunter2 hunter2',
          nested: { token: 'abc', email: 'a@b.c' },
        },
        'login succeeded',
      );
      const line = JSON.parse(written.join(''));
      expect(line).to.include({
        level: 'info',
        msg: 'login succeeded',
        event: 'login',
        outcome: 'success',
        userId: 'u1',
        password: '[redacted]',
      });
      expect(line.nested).to.deep.equal({ token: '[redacted]', email: '[redacted]' });
      expect(new Date(line.time).toISOString()).to.equal(line.time);
    });
  });
