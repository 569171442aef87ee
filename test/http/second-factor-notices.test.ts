import { expect } from 'chai';
import type { ParsedMail } from 'mailparser';
import type { Response } from 'supertest';
import { EmailLinks, SmtpEmailSender } from '../../src/email';
import { parseMail, startSmtpServer, type SmtpTestServer } from '../email/smtp-test-server';
import { openSecurityApp, PASSWORD, PREFIX, bearer, type SecurityApp } from '../security/support/security-app';
import { ManualClock } from '../support/manual-clock';
import { secretOf, totpCode } from '../support/rfc6238';
import { DRIVERS } from '../support/test-app';

const STEP = 30_000;

interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Polls `condition` every 20 ms; fails with `what` after `timeoutMs`. */
async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function expectStatus(response: Response, status: number): void {
  expect(response.status, response.text).to.equal(status);
}

for (const driver of DRIVERS)
  describe(`second factor: the notices, through a real SMTP server (${driver})`, function () {
    this.timeout(30_000);
    let smtp: SmtpTestServer;
    let sender: SmtpEmailSender;
    let clock: ManualClock;
    let t: SecurityApp<SmtpEmailSender>;
    let read = 0;

    beforeEach(async () => {
      smtp = await startSmtpServer();
      sender = new SmtpEmailSender({
        url: smtp.url,
        from: 'Gatehouse <no-reply@example.com>',
        links: new EmailLinks({ publicUrl: 'https://id.example.com', prefix: PREFIX }),
      });
      // Real time at the start (the outbox dates its messages by it), moved by hand past each used code's step.
      clock = new ManualClock(Date.now());
      t = await openSecurityApp({ sender, driver, clock });
      read = 0;
    });

    afterEach(async () => {
      await t.close();
      await sender.close();
      await smtp.close();
    });

    /** Waits for the work after the answers, then reads what the SMTP server received since the last call. */
    async function newMail(expected: number): Promise<Mail[]> {
      await t.drain();
      await waitFor(() => smtp.received.length >= read + expected, `${expected} messages`);
      // A moment more, so an unexpected extra message is seen rather than missed.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await t.drain();
      const fresh = smtp.received.slice(read);
      read = smtp.received.length;
      const parsed: ParsedMail[] = await Promise.all(fresh.map(parseMail));
      return fresh.map((raw, i) => ({
        to: raw.rcptTo.join(','),
        subject: parsed[i].subject ?? '',
        text: parsed[i].text ?? '',
      }));
    }

    it('mails the owner when the factor goes on, a recovery code is used, new codes are made and it goes off; never a code', async () => {
      await t.http
        .post(`${PREFIX}/register`)
        .send({ username: 'alice', email: 'alice@example.com', password: PASSWORD })
        .expect(201);
      const [verification] = await newMail(1);
      const token = /[?&]token=([A-Za-z0-9_-]{43})/.exec(verification.text)![1];
      await t.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
      await newMail(1);
      const session = await t.login('alice');
      const manage = (path: string, body: object = {}) =>
        t.http.post(`${PREFIX}/second-factor${path}`).set(bearer(session)).send(body);

      const started = await manage('/totp');
      expectStatus(started, 200);
      const secret = secretOf(started.body.otpauth_uri);
      // A wrong code changes nothing and mails nothing.
      const right = totpCode(secret, clock.now());
      const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
      expectStatus(await manage('/totp/confirm', { code: wrong }), 401);
      const confirmed = await manage('/totp/confirm', { code: right });
      expectStatus(confirmed, 200);
      const codes = confirmed.body.recovery_codes as string[];
      const [enabled] = await newMail(1);
      expect(enabled).to.deep.include({
        to: 'alice@example.com',
        subject: 'Two-factor sign-in is now on for your Gatehouse account',
      });

      const challenge = await t.http.post(`${PREFIX}/login`).send({ username: 'alice', password: PASSWORD });
      expectStatus(challenge, 200);
      const answered = await t.http
        .post(`${PREFIX}/login/second-factor`)
        .send({ challenge_token: challenge.body.challenge_token, recovery_code: codes[0] });
      expectStatus(answered, 200);
      const [used] = await newMail(1);
      expect(used).to.deep.include({
        to: 'alice@example.com',
        subject: 'A recovery code was used to sign in to Gatehouse',
      });

      clock.advance(STEP);
      const renewed = await manage('/recovery-codes', { code: totpCode(secret, clock.now()) });
      expectStatus(renewed, 200);
      const [regenerated] = await newMail(1);
      expect(regenerated).to.deep.include({
        to: 'alice@example.com',
        subject: 'New recovery codes for your Gatehouse account',
      });

      clock.advance(STEP);
      expectStatus(await manage('/disable', { code: totpCode(secret, clock.now()) }), 200);
      const [disabled] = await newMail(1);
      expect(disabled).to.deep.include({
        to: 'alice@example.com',
        subject: 'Two-factor sign-in is now off for your Gatehouse account',
      });

      for (const mail of [enabled, used, regenerated, disabled]) {
        expect(mail.text, mail.subject).to.contain("If this wasn't you");
        expect(mail.text, mail.subject).to.not.match(/https?:|token|\b[0-9]{6}\b/i);
        expect(mail.text, mail.subject).to.not.contain(secret);
        for (const code of [...codes, ...(renewed.body.recovery_codes as string[])]) {
          expect(mail.text, mail.subject).to.not.contain(code);
        }
      }
    });
  });
