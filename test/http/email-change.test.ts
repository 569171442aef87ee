import { expect } from 'chai';
import type { ParsedMail } from 'mailparser';
import type { Response } from 'supertest';
import { Container } from 'typedi';
import { CLOCK } from '../../src/di/tokens';
import { ConsoleEmailSender, EmailLinks, SmtpEmailSender } from '../../src/email';
import { parseMail, startSmtpServer, type SmtpTestServer } from '../email/smtp-test-server';
import { openSecurityApp, PASSWORD, PREFIX, bearer, type SecurityApp } from '../security/support/security-app';
import { ManualClock, MINUTE } from '../support/manual-clock';
import { DRIVERS } from '../support/test-app';

const PUBLIC_URL = 'https://id.example.com';
const FROM = 'Gatehouse <no-reply@example.com>';
const REQUESTED = { detail: 'Check the new address for a link to confirm the change' };
const CONFIRM_LINK = new RegExp(`^${PUBLIC_URL}${PREFIX}/email-change/confirm\\?token=([A-Za-z0-9_-]{43})$`);

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

function expectStatus(response: Response, status: number, body?: unknown): void {
  expect(response.status, response.text).to.equal(status);
  if (body !== undefined) expect(response.body).to.deep.equal(body);
}

function linkTokenOf(mail: Mail): string {
  const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
  expect(links, mail.text).to.have.length(1);
  const token = CONFIRM_LINK.exec(links[0] ?? '')?.[1];
  if (!token) throw new Error(`not an email-change link: ${links[0]}`);
  return token;
}

for (const driver of DRIVERS)
  describe(`email change over HTTP, through a real SMTP server (${driver})`, function () {
    this.timeout(30_000);
    let smtp: SmtpTestServer;
    let sender: SmtpEmailSender;
    let t: SecurityApp<SmtpEmailSender>;
    let read = 0;
    const mails: Mail[] = [];

    beforeEach(async () => {
      smtp = await startSmtpServer();
      sender = new SmtpEmailSender({
        url: smtp.url,
        from: FROM,
        links: new EmailLinks({ publicUrl: PUBLIC_URL, prefix: PREFIX }),
      });
      t = await openSecurityApp({ sender, driver });
      read = 0;
      mails.length = 0;
    });

    afterEach(async () => {
      Container.remove(CLOCK);
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
      const batch = fresh.map((raw, i) => ({
        to: raw.rcptTo.join(','),
        subject: parsed[i].subject ?? '',
        text: parsed[i].text ?? '',
      }));
      mails.push(...batch);
      return batch;
    }

    async function createUser(username: string, email = `${username}@example.com`): Promise<string> {
      await t.http.post(`${PREFIX}/register`).send({ username, email, password: PASSWORD }).expect(201);
      const [verification] = await newMail(1);
      const token = /[?&]token=([A-Za-z0-9_-]{43})/.exec(verification.text)![1];
      await t.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
      await newMail(1); // "your address is verified"
      return t.login(username);
    }

    const me = (token: string) => t.http.get(`${PREFIX}/me`).set(bearer(token));
    const requestChange = (token: string, body: object) =>
      t.http.post(`${PREFIX}/email-change`).set(bearer(token)).send(body);
    const confirm = (token: string) => t.http.post(`${PREFIX}/email-change/confirm`).send({ token });

    it('request, link to the new address, notice to the old one; confirming changes /me and tells the old address', async () => {
      const alice = await createUser('alice');
      expectStatus(await requestChange(alice, { new_email: 'alice.new@example.com' }), 200, REQUESTED);

      const sent = await newMail(2);
      const requested = sent.find((mail) => mail.to === 'alice@example.com')!;
      const link = sent.find((mail) => mail.to === 'alice.new@example.com')!;
      expect(requested.subject).to.equal('A change of your Gatehouse email address was requested');
      expect(requested.text).to.not.match(/https?:|token/i);
      expect(link.subject).to.equal('Confirm your new email address for Gatehouse');
      expect(link.text).to.contain('the Gatehouse account alice asked to make alice.new@example.com');
      const token = linkTokenOf(link);
      // Nothing changes before the link is used.
      expect((await me(alice)).body.email).to.equal('alice@example.com');

      expectStatus(await confirm(token), 200, { detail: 'Email address changed' });
      expect((await me(alice)).body).to.deep.include({ email: 'alice.new@example.com', verified: true });
      const [changed] = await newMail(1);
      expect(changed.to).to.equal('alice@example.com');
      expect(changed.subject).to.equal('Your Gatehouse email address was changed');
      expect(changed.text).to.not.match(/https?:|token/i);

      // The link works once.
      const reused = await confirm(token);
      expectStatus(reused, 400);
      expect(reused.body.detail.code).to.equal('invalid_email_change_token');
      // The new address is the account's now: signing in and a password reset go by it.
      await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'alice.new@example.com' }).expect(200);
      const [reset] = await newMail(1);
      expect(reset.to).to.equal('alice.new@example.com');
    });

    it('of two concurrent confirmations of one link, exactly one changes the address', async () => {
      const alice = await createUser('alice');
      expectStatus(await requestChange(alice, { new_email: 'alice.new@example.com' }), 200, REQUESTED);
      const token = linkTokenOf((await newMail(2)).find((mail) => mail.to === 'alice.new@example.com')!);
      const answers = await Promise.all([confirm(token), confirm(token)]);
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 400]);
      expect((await me(alice)).body.email).to.equal('alice.new@example.com');
      const notices = await newMail(1);
      expect(notices.map((mail) => mail.subject)).to.deep.equal(['Your Gatehouse email address was changed']);
    });

    it('an address another account owns: the same answer, a notice to its owner and no link anywhere', async () => {
      const alice = await createUser('alice');
      await createUser('bob');
      const free = await requestChange(alice, { new_email: 'alice.new@example.com' });
      await newMail(2);
      const taken = await requestChange(alice, { new_email: 'BOB@example.com' });
      expect(taken.status).to.equal(free.status);
      expect(taken.body).to.deep.equal(free.body);
      expect(taken.text).to.equal(free.text);

      const sent = await newMail(2);
      expect(sent.map((mail) => [mail.to, mail.subject]).sort()).to.deep.equal([
        ['alice@example.com', 'A change of your Gatehouse email address was requested'],
        ['bob@example.com', 'Someone tried to use your email address on Gatehouse'],
      ]);
      for (const mail of sent) expect(mail.text).to.not.match(/https?:|token/i);
      expect((await me(alice)).body.email).to.equal('alice@example.com');
    });

    it('needs a recent password: 403 past the window, and nothing is sent', async () => {
      const clock = new ManualClock(Date.now());
      Container.set(CLOCK, clock);
      const alice = await createUser('alice');
      clock.advance(11 * MINUTE);
      const refused = await requestChange(alice, { new_email: 'alice.new@example.com' });
      expectStatus(refused, 403);
      expect(refused.body.detail.code).to.equal('reauthentication_required');
      await t.http.post(`${PREFIX}/reauthenticate`).set(bearer(alice)).send({ password: PASSWORD }).expect(200);
      expectStatus(await requestChange(alice, { new_email: 'alice.new@example.com' }), 200, REQUESTED);
      const sent = await newMail(2);
      expect(sent.map((mail) => mail.to).sort()).to.deep.equal(['alice.new@example.com', 'alice@example.com']);
    });

    it('refuses a malformed or the current address, and bodies of the wrong shape', async () => {
      const alice = await createUser('alice');
      const before = smtp.received.length;
      for (const new_email of ['not an address', 'ALICE@example.com']) {
        const response = await requestChange(alice, { new_email });
        expectStatus(response, 400);
        expect(response.body.detail.code, new_email).to.equal('invalid_email');
      }
      // The document types end_other_sessions boolean, never null: a null is refused like any other wrong type.
      for (const body of [
        {},
        { new_email: 42 },
        { new_email: null },
        { new_email: 'a@example.com', end_other_sessions: 'yes' },
        { new_email: 'a@example.com', end_other_sessions: null },
      ]) {
        const response = await requestChange(alice, body);
        expectStatus(response, 400);
        expect(response.body.detail.code, JSON.stringify(body)).to.equal('validation_error');
      }
      const nulled = await requestChange(alice, { new_email: 'a@example.com', end_other_sessions: null });
      const wrongType = await requestChange(alice, { new_email: 'a@example.com', end_other_sessions: 'yes' });
      expect(nulled.body.detail.detail).to.equal(wrongType.body.detail.detail);
      await t.drain();
      expect(smtp.received.length, 'nothing is sent').to.equal(before);
      const unknown = await confirm('x'.repeat(43));
      expectStatus(unknown, 400);
      expect(unknown.body.detail.code).to.equal('invalid_email_change_token');
    });

    it('keeps the other sessions when asked to, and ends them by default', async () => {
      const alice = await createUser('alice');
      const otherDevice = await t.login('alice');
      await requestChange(alice, { new_email: 'alice.new@example.com', end_other_sessions: false }).expect(200);
      let token = linkTokenOf((await newMail(2)).find((mail) => mail.to === 'alice.new@example.com')!);
      await confirm(token).expect(200);
      await newMail(1);
      expectStatus(await me(otherDevice), 200);

      await requestChange(alice, { new_email: 'alice.third@example.com' }).expect(200);
      token = linkTokenOf((await newMail(2)).find((mail) => mail.to === 'alice.third@example.com')!);
      await confirm(token).expect(200);
      expectStatus(await me(otherDevice), 401);
      expectStatus(await me(alice), 200);
    });
  });

for (const driver of DRIVERS)
  describe(`email change without a link to send (${driver})`, () => {
    it('answers 501 email_change_unavailable when the links have no email-change page', async () => {
      // A front end configured before email change existed: verification and reset pages, no publicUrl.
      const links = new EmailLinks({
        verifyUrl: 'https://app.example.com/verify',
        resetUrl: 'https://app.example.com/reset',
      });
      const printed: string[] = [];
      const sender = new ConsoleEmailSender({ links, output: { write: (chunk: string) => printed.push(chunk) } });
      const t = await openSecurityApp({ sender, driver });
      try {
        await t.register('alice');
        const token = /verify\?token=([A-Za-z0-9_-]{43})/.exec(printed.join(''))![1];
        await t.http.post(`${PREFIX}/verify-email`).send({ token }).expect(200);
        const alice = await t.login('alice');
        const refused = await t.http
          .post(`${PREFIX}/email-change`)
          .set(bearer(alice))
          .send({ new_email: 'alice.new@example.com' });
        expectStatus(refused, 501);
        expect(refused.body.detail.code).to.equal('email_change_unavailable');
      } finally {
        await t.close();
      }
    });
  });
