import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { EmailLinks, SmtpEmailSender } from '../../src/email';
import {
  messageIdOf,
  parseMail,
  smtpError,
  startSmtpServer,
  type ReceivedMail,
  type SmtpTestServer,
} from '../email/smtp-test-server';
import { openSecurityApp, PASSWORD, PREFIX, type SecurityApp } from '../security/support/security-app';
import { StandaloneServer } from '../server/standalone-server';
import { freePort } from '../support/free-port';

const FROM = 'Gatehouse <no-reply@example.com>';
const PUBLIC_URL = 'https://id.example.com';
const links = new EmailLinks({ publicUrl: PUBLIC_URL, prefix: PREFIX });

/** Polls `condition` every 20 ms; fails with `what` after `timeoutMs`. */
async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function linkToken(text: string | undefined): string {
  const token = /[?&]token=([A-Za-z0-9_-]{43})/.exec(text ?? '')?.[1];
  if (!token) throw new Error('no link in the message');
  return token;
}

describe('email delivery through a real SMTP server on loopback', function () {
  this.timeout(60_000);
  let smtp: SmtpTestServer | undefined;
  let sender: SmtpEmailSender | undefined;
  let t: SecurityApp<SmtpEmailSender> | undefined;

  afterEach(async () => {
    await t?.accounts().delivery?.stop();
    await t?.close();
    await sender?.close();
    await smtp?.close();
    [t, sender, smtp] = [undefined, undefined, undefined];
  });

  async function appOn(server: SmtpTestServer): Promise<SecurityApp<SmtpEmailSender>> {
    sender = new SmtpEmailSender({ url: server.url, from: FROM, links });
    return openSecurityApp({
      sender,
      accountOptions: { outbox: { retryBaseMs: 100, retryMaxMs: 300, pollIntervalMs: 50 } },
    });
  }

  it('SMTP refusing for a while, then recovering: every message is delivered exactly once', async () => {
    let refusing = true;
    let refusals = 0;
    smtp = await startSmtpServer({
      rejectData: () => (refusing ? (refusals++, smtpError(451, '4.3.0 Try again later')) : undefined),
    });
    t = await appOn(smtp);
    t.accounts().delivery!.start();

    for (const name of ['alice', 'bob', 'carol', 'dave']) {
      await t.http
        .post(`${PREFIX}/register`)
        .send({ username: name, email: `${name}@example.com`, password: PASSWORD })
        .expect(201);
    }
    await t.http
      .post(`${PREFIX}/register`)
      .send({ username: 'mallory', email: 'alice@example.com', password: PASSWORD })
      .expect(201);
    // bob is not verified yet: a reset request for him queues nothing, a resend a new link that supersedes his first.
    await t.http.post(`${PREFIX}/password-reset/request`).send({ email: 'bob@example.com' }).expect(200);
    await t.http
      .post(`${PREFIX}/register`)
      .send({ username: 'erin', email: 'erin@example.com', password: PASSWORD })
      .expect(201);
    await t.drain();

    // Every message fails a few times while the server refuses, and nothing is received.
    const store = t.store;
    await waitFor(async () => {
      const entries = await store.outbox.list();
      // Not claimed: the third attempt is over, not under way.
      return entries.length === 6 && entries.every((entry) => entry.attempts >= 3 && !entry.claimed);
    }, 'three refused attempts of each of the six messages');
    expect(smtp.received).to.deep.equal([]);
    expect(
      (await store.outbox.list()).every(
        (entry) => entry.status === 'pending' && entry.lastError === 'EmailDeliveryError:EMESSAGE:451',
      ),
    ).to.equal(true);

    refusing = false;
    await waitFor(async () => (await store.outbox.list({ status: 'pending' })).length === 0, 'the outbox to empty');
    const entries = await store.outbox.list();
    expect(entries.map((entry) => entry.status)).to.deep.equal(Array(6).fill('sent'));
    expect(
      entries.every((entry) => !entry.hasToken),
      'sealed tokens erased',
    ).to.equal(true);
    expect(refusals).to.be.at.least(18);

    // Exactly once each: one received mail per message, recognised by its Message-ID.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = smtp.received.map(messageIdOf);
    expect(ids.slice().sort()).to.deep.equal(entries.map((entry) => `<${entry.id}@example.com>`).sort());
    const kinds = await Promise.all(smtp.received.map(async (mail) => (await parseMail(mail)).subject));
    expect(kinds.filter((subject) => subject?.startsWith('Verify your email'))).to.have.length(6);

    // The links still work after all those attempts: they carry the token minted with the account change.
    const aliceMail = await mailTo(smtp.received, 'alice@example.com', 'Verify your email', 'Hello alice,');
    const malloryMail = await mailTo(smtp.received, 'alice@example.com', 'Verify your email', 'Hello mallory,');
    await t.http
      .post(`${PREFIX}/verify-email`)
      .send({ token: linkToken(aliceMail.text) })
      .expect(200);
    // alice proved the address: mallory's claim on it ended, and its link with it.
    await t.http
      .post(`${PREFIX}/verify-email`)
      .send({ token: linkToken(malloryMail.text) })
      .expect(400);
    const bobMail = await mailTo(smtp.received, 'bob@example.com', 'Verify your email');
    await t.http
      .post(`${PREFIX}/verify-email`)
      .send({ token: linkToken(bobMail.text) })
      .expect(200);
  });

  it('requests that queue mail answer while the SMTP server is still holding the message', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    smtp = await startSmtpServer({
      beforeReply: async () => {
        holding = true;
        await held;
      },
    });
    t = await appOn(smtp);
    const started = Date.now();
    await t.http
      .post(`${PREFIX}/register`)
      .send({ username: 'erin', email: 'erin@example.com', password: PASSWORD })
      .expect(201);
    const answeredIn = Date.now() - started;
    await waitFor(() => holding, 'the SMTP server to hold the message');
    expect(smtp.received, 'not delivered when the answer came').to.deep.equal([]);
    expect(answeredIn).to.be.below(2_000);
    release();
    await waitFor(() => smtp!.received.length === 1, 'the delivery');
  });

  it('a restart with pending messages: the next process delivers them', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'gatehouse-outbox-restart-'));
    const env = {
      GATEHOUSE_SECRET_KEY: 'restart-test-secret-key-0123456789-abcdefgh',
      GATEHOUSE_PUBLIC_URL: PUBLIC_URL,
      GATEHOUSE_EMAIL_FROM: FROM,
      GATEHOUSE_OUTBOX_RETRY_BASE: '200ms',
      GATEHOUSE_OUTBOX_RETRY_MAX: '500ms',
      GATEHOUSE_OUTBOX_POLL_INTERVAL: '100ms',
    };
    let server: StandaloneServer | undefined;
    try {
      // First process: no SMTP server answers; the verification email waits in the outbox.
      server = await StandaloneServer.start(cwd, {
        ...env,
        GATEHOUSE_SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
      });
      await request(server.url)
        .post('/auth/register')
        .send({ username: 'frank', email: 'frank@example.com', password: PASSWORD })
        .expect(201);
      await server.waitFor(
        () => /"kind":"verification"[^\n]*"outcome":"retry"/.test(server!.stderr),
        'a failed attempt',
      );
      expect(await server.stop('SIGTERM')).to.equal(0);

      // Second process, with SMTP back: it finds the message and sends it, with the link minted at registration.
      smtp = await startSmtpServer();
      server = await StandaloneServer.start(cwd, { ...env, GATEHOUSE_SMTP_URL: smtp.url });
      await server.waitFor(() => smtp!.received.length === 1, 'the pending email to be delivered');
      const mail = await parseMail(smtp.received[0]);
      expect(smtp.received[0].rcptTo).to.deep.equal(['frank@example.com']);
      await request(server.url)
        .post('/auth/verify-email')
        .send({ token: linkToken(mail.text) })
        .expect(200);
      await server.waitFor(() => smtp!.received.length === 2, 'the "verified" notice');
      expect(server.stderr).to.not.include('frank@example.com');
    } finally {
      await server?.stop('SIGKILL');
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

async function mailTo(received: ReceivedMail[], address: string, subject: string, text = '') {
  for (const mail of received) {
    const parsed = await parseMail(mail);
    if (mail.rcptTo.includes(address) && parsed.subject?.startsWith(subject) && parsed.text?.includes(text))
      return parsed;
  }
  throw new Error(`no "${subject}" mail to ${address}`);
}
