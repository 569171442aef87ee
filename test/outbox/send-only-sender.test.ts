import { expect } from 'chai';
import { createTransport } from 'nodemailer';
import { createAccountService } from '../../src/di/create-account-service';
import { fromLegacySender, type LegacyEmailSender } from '../../src/services/legacy-email-sender';
import type { EmailContext, EmailSender, OutgoingEmail } from '../../src/services/email-sender';
import { carriesLink, OUTBOX_KINDS } from '../../src/services/outbox-message';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { parseMail, startSmtpServer, type SmtpTestServer } from '../email/smtp-test-server';
import { expectAccountError } from '../support/expect-account-error';
import { PASSWORD, TEST_SECRET } from '../support/fixtures';
import { ManualClock } from '../support/manual-clock';
import { outboxToAlice, QUEUED_TOKEN as TOKEN } from '../support/outbox-to-alice';

/** A host's sender with nothing but `send`: its own transport and wording, one subject per kind. */
function sendOnlySender(smtp: SmtpTestServer): EmailSender & { close(): void } {
  const transport = createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
  return {
    async send(message: OutgoingEmail, context?: EmailContext) {
      const link = 'token' in message ? `\nhttps://app.example.com/${message.kind}?token=${message.token}` : '';
      await transport.sendMail({
        from: 'App <no-reply@app.example.com>',
        to: message.email,
        subject: `${message.kind} for ${message.username}`,
        text: `Hello ${message.username}${link}\n`,
        messageId: `<${context?.messageId}@app.example.com>`,
      });
    },
    close: () => transport.close(),
  };
}

describe('EmailSender: one send for every kind', function () {
  this.timeout(30_000);
  let smtp: SmtpTestServer | undefined;
  afterEach(async () => {
    await smtp?.close();
    smtp = undefined;
  });

  it('a sender with only send delivers every kind through the outbox to a real SMTP server', async () => {
    smtp = await startSmtpServer();
    const sender = sendOnlySender(smtp);
    const { store, worker, queue } = await outboxToAlice(sender, TEST_SECRET);
    try {
      const ids = new Map<string, string>();
      for (const kind of OUTBOX_KINDS) ids.set(kind, (await queue(kind)).id);
      await worker.drain();

      const received = await Promise.all(smtp.received.map(parseMail));
      expect(received.map((mail) => mail.subject).sort()).to.deep.equal(
        OUTBOX_KINDS.map((kind) => `${kind} for alice`).sort(),
      );
      for (const mail of received) {
        const kind = mail.subject!.split(' ')[0] as (typeof OUTBOX_KINDS)[number];
        expect(mail.messageId, kind).to.equal(`<${ids.get(kind)}@app.example.com>`);
        expect(mail.text!.includes(`?token=${TOKEN}`), kind).to.equal(carriesLink(kind));
      }
      expect((await store.outbox.list()).every((entry) => entry.status === 'sent')).to.equal(true);
    } finally {
      sender.close();
    }
  });
});

describe('EmailSender: an old per-kind sender given to the core', () => {
  /** The five methods every old sender had, recording the verification links. */
  function oldSender(): LegacyEmailSender & { tokens: string[] } {
    const tokens: string[] = [];
    const none = async () => {};
    return {
      tokens,
      async sendVerification(_username: string, _email: string, token: string) {
        tokens.push(token);
      },
      sendPasswordReset: none,
      sendEmailVerified: none,
      sendPasswordChanged: none,
      sendAccountDeleted: none,
    };
  }

  function serviceWith(sender: LegacyEmailSender | EmailSender) {
    return createAccountService({
      store: new MemoryUserStore(),
      sender,
      clock: new ManualClock(),
      options: { secretKey: TEST_SECRET },
    });
  }

  it('is read through fromLegacySender: it gets its links, and email change is refused without sendEmailChange', async () => {
    const sender = oldSender();
    const accounts = serviceWith(sender);
    await accounts.register({ username: 'alice', email: 'alice@example.com', password: PASSWORD });
    await accounts.drain();
    expect(sender.tokens).to.have.length(1);
    await accounts.verifyEmail(sender.tokens[0]);
    const token = await accounts.login('alice', PASSWORD);
    await expectAccountError(accounts.emailChanges.request(token, 'alice@new.example'), 'email_change_unavailable');
  });

  it('wrapped explicitly, carries the kinds whose method it has', async () => {
    const sender = oldSender();
    const wrapped = fromLegacySender({ ...sender, sendEmailChange: async () => {} });
    expect(wrapped.kinds).to.deep.equal([
      'verification',
      'passwordReset',
      'emailVerified',
      'passwordChanged',
      'accountDeleted',
      'emailChange',
    ]);
    await wrapped.send({ kind: 'verification', username: 'bob', email: 'bob@example.com', token: 't1' });
    expect(sender.tokens).to.deep.equal(['t1']);
    const refused = await wrapped.send({ kind: 'secondFactorEnabled', username: 'bob', email: 'b@example.com' }).then(
      () => null,
      (error: { code?: string }) => error.code,
    );
    expect(refused).to.equal('EINVALIDMESSAGE');
  });

  it('a sender with neither send nor sendVerification fails at construction', () => {
    expect(() => serviceWith({} as EmailSender)).to.throw(TypeError, /send\(message, context\)/);
  });
});
