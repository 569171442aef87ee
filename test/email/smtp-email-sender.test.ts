import { expect } from 'chai';
import net from 'node:net';
import { inspect } from 'node:util';
import { EmailDeliveryError, EmailLinks, SmtpEmailSender, type SmtpEmailSenderOptions } from '../../src/email';
import { APP_NAME, OPERATIONS, PREFIX, PUBLIC_URL, TOKEN, urlsIn } from './operations';
import { parseMail, rawHeaderLines, smtpError, startSmtpServer, type SmtpTestServer } from './smtp-test-server';

const FROM_ADDRESS = 'no-reply@acme.example';
const FROM = `Acme <${FROM_ADDRESS}>`;
const EMAIL = 'alice.owner@example.org';
const USERNAME = 'alice_in_headers';
const links = new EmailLinks({ publicUrl: PUBLIC_URL, prefix: PREFIX });

function senderFor(server: { url: string }, extra: Partial<SmtpEmailSenderOptions> = {}): SmtpEmailSender {
  return new SmtpEmailSender({ url: server.url, from: FROM, links, appName: APP_NAME, ...extra });
}

async function rejectionOf(promise: Promise<unknown>): Promise<EmailDeliveryError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(EmailDeliveryError);
    return error as EmailDeliveryError;
  }
  throw new Error('expected the send to reject');
}

/** Everything a logger could print of the error: message, stack, own fields, inspect output. */
function everythingIn(error: Error): string {
  return [error.message, error.stack, JSON.stringify(error), inspect(error, { depth: 5, showHidden: true })].join('\n');
}

describe('SmtpEmailSender (real SMTP server on loopback)', () => {
  let server: SmtpTestServer;
  let sender: SmtpEmailSender;

  afterEach(async () => {
    await sender?.close();
    await server?.close();
  });

  describe('delivers each of the messages', () => {
    beforeEach(async () => {
      server = await startSmtpServer();
      sender = senderFor(server);
    });

    for (const operation of OPERATIONS) {
      it(`${operation.name}: recipient, from, subject, text, HTML and exact link if any`, async () => {
        await operation.send(sender, USERNAME, EMAIL);

        expect(server.received).to.have.length(1);
        const [mail] = server.received;
        expect(mail.rcptTo).to.deep.equal([EMAIL]);
        expect(mail.mailFrom).to.equal(FROM_ADDRESS);
        const parsed = await parseMail(mail);
        const to = Array.isArray(parsed.to) ? parsed.to : [parsed.to];
        expect(to.flatMap((field) => field?.value.map((address) => address.address))).to.deep.equal([EMAIL]);
        expect(parsed.from?.value).to.deep.equal([{ address: FROM_ADDRESS, name: 'Acme' }]);
        expect(parsed.subject).to.equal(operation.subject);
        expect(parsed.headers.get('auto-submitted')).to.equal('auto-generated');
        expect(parsed.text).to.contain(`Hello ${USERNAME},`);
        expect(parsed.html).to.be.a('string').and.contain(`<p>Hello ${USERNAME},</p>`);

        if (operation.link) {
          expect(urlsIn(parsed.text ?? '')).to.deep.equal([operation.link]);
          expect(parsed.html).to.contain(`<a href="${operation.link}">`);
        } else {
          expect(urlsIn(parsed.text ?? '')).to.deep.equal([]);
          expect(parsed.html).to.not.contain('href=');
          expect(mail.raw).to.not.contain(TOKEN);
        }
      });
    }

    it('puts no user-controlled value in a header except the recipient in To', async () => {
      for (const operation of OPERATIONS) await operation.send(sender, USERNAME, EMAIL);
      expect(server.received).to.have.length(OPERATIONS.length);
      for (const mail of server.received) {
        const headers = rawHeaderLines(mail.raw);
        expect(headers.filter((line) => line.includes(USERNAME))).to.deep.equal([]);
        expect(headers.filter((line) => line.includes(EMAIL))).to.deep.equal([`To: ${EMAIL}`]);
      }
    });
  });

  describe('escapes user-controlled values in the HTML body', () => {
    const hostile = [
      { username: '<script>alert(1)</script>', escaped: '&lt;script&gt;alert(1)&lt;/script&gt;', raw: /<script>alert/ },
      { username: '"><img src=x>', escaped: '&quot;&gt;&lt;img src=x&gt;', raw: /<img/ },
    ];

    beforeEach(async () => {
      server = await startSmtpServer();
      sender = senderFor(server);
    });

    for (const { username, escaped, raw } of hostile) {
      it(`username ${username} in every message`, async () => {
        const before = server.received.length;
        for (const operation of OPERATIONS) await operation.send(sender, username, EMAIL);
        const mails = server.received.slice(before);
        expect(mails).to.have.length(OPERATIONS.length);
        for (const mail of mails) {
          const parsed = await parseMail(mail);
          expect(parsed.html).to.contain(`<p>Hello ${escaped},</p>`);
          expect(parsed.html).to.not.match(raw);
          expect(parsed.text).to.contain(`Hello ${username},`);
        }
      });
    }
  });

  describe('refuses a recipient that could inject headers, without contacting the server', () => {
    const injections = [
      ['CRLF and a Bcc header', `${EMAIL}\r\nBcc: evil@attacker.example`, /line break or control character/],
      ['a bare LF', `${EMAIL}\nSubject: pwned`, /line break or control character/],
      ['two addresses', `${EMAIL},evil@attacker.example`, /comma/],
      ['a display name', `Evil <${EMAIL}>`, /whitespace, a comma/],
      ['no @', 'alice.example.org', /exactly one '@'/],
      ['two @', 'alice@evil@example.org', /exactly one '@'/],
      ['more than 254 bytes', `${'a'.repeat(64)}@${'b'.repeat(190)}.example`, /longer than 254 bytes/],
    ] as const;

    beforeEach(async () => {
      server = await startSmtpServer();
      sender = senderFor(server);
    });

    for (const [what, address, reason] of injections) {
      it(what, async () => {
        for (const operation of OPERATIONS) {
          const error = await rejectionOf(operation.send(sender, USERNAME, address));
          expect(error.code).to.equal('EINVALIDRECIPIENT');
          expect(error.message).to.match(reason);
          expect(everythingIn(error)).to.not.contain('attacker').and.not.contain(TOKEN);
        }
        expect(server.connections).to.equal(0);
        expect(server.recipientsOffered).to.deep.equal([]);
        expect(server.received).to.deep.equal([]);
      });
    }
  });

  describe('turns SMTP failures into errors without the token, the address or the reply text', () => {
    it('a recipient refused with 550 at RCPT TO', async () => {
      server = await startSmtpServer({
        rejectRecipient: (address) => smtpError(550, `5.1.1 <${address}>: mailbox unavailable`),
      });
      sender = senderFor(server);
      const withLinks = OPERATIONS.filter((candidate) => candidate.link);
      for (const operation of withLinks) {
        const error = await rejectionOf(operation.send(sender, USERNAME, EMAIL));
        expect(error.code).to.equal('EENVELOPE');
        expect(error.command).to.equal('RCPT TO');
        expect(error.responseCode).to.equal(550);
        expect(error.message).to.equal(
          `Gatehouse: the ${operation.key} email was not sent: SMTP failure EENVELOPE, at RCPT TO, reply 550`,
        );
        const all = everythingIn(error);
        expect(all).to.not.contain(TOKEN);
        expect(all).to.not.contain(EMAIL);
        expect(all).to.not.contain('mailbox unavailable');
      }
      expect(server.recipientsOffered).to.deep.equal(withLinks.map(() => EMAIL));
      expect(withLinks).to.have.length(3);
      expect(server.received).to.deep.equal([]);
    });

    it('a message refused at DATA with a reply quoting the token', async () => {
      server = await startSmtpServer({
        rejectData: () => smtpError(554, `5.7.1 suspicious link ?token=${TOKEN} to ${EMAIL}`),
      });
      sender = senderFor(server);
      const error = await rejectionOf(
        sender.send({ kind: 'passwordReset', username: USERNAME, email: EMAIL, token: TOKEN }),
      );
      expect(error.code).to.equal('EMESSAGE');
      expect(error.command).to.equal('DATA');
      expect(error.responseCode).to.equal(554);
      const all = everythingIn(error);
      expect(all).to.not.contain(TOKEN);
      expect(all).to.not.contain(EMAIL);
    });

    it('a refused connection', async () => {
      const closed = net.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as net.AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      sender = senderFor({ url: `smtp://127.0.0.1:${port}` });
      const error = await rejectionOf(
        sender.send({ kind: 'verification', username: USERNAME, email: EMAIL, token: TOKEN }),
      );
      expect(error.code).to.equal('ESOCKET');
      expect(error.command).to.equal('CONN');
      expect(error.originalCode).to.equal('ECONNREFUSED');
      expect(everythingIn(error)).to.not.contain(TOKEN).and.not.contain(EMAIL);
    });

    it('a server that never greets, within the greeting timeout', async () => {
      const sockets: net.Socket[] = [];
      const silent = net.createServer((socket) => sockets.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as net.AddressInfo).port;
      try {
        sender = senderFor({ url: `smtp://127.0.0.1:${port}` }, { transport: { greetingTimeout: 300 } });
        const started = Date.now();
        const error = await rejectionOf(
          sender.send({ kind: 'passwordReset', username: USERNAME, email: EMAIL, token: TOKEN }),
        );
        expect(Date.now() - started).to.be.below(3_000);
        expect(error.code).to.equal('ETIMEDOUT');
        expect(error.command).to.equal('CONN');
        expect(everythingIn(error)).to.not.contain(TOKEN).and.not.contain(EMAIL);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }
    });
  });

  it("makes the outbox message id the Message-ID, on the From address's domain, the same on every attempt", async () => {
    server = await startSmtpServer();
    sender = senderFor(server);
    const messageId = '0b7e4c1a-5d2f-4e8b-9a3c-6f1d2e3b4a5c';
    await sender.send({ kind: 'passwordReset', username: USERNAME, email: EMAIL, token: TOKEN }, { messageId });
    await sender.send({ kind: 'passwordReset', username: USERNAME, email: EMAIL, token: TOKEN }, { messageId });
    await sender.send({ kind: 'emailVerified', username: USERNAME, email: EMAIL });
    await sender.send(
      { kind: 'emailVerified', username: USERNAME, email: EMAIL },
      { messageId: 'bad id\r\nBcc: evil@x.example' },
    );
    const ids = await Promise.all(server.received.map(async (mail) => (await parseMail(mail)).messageId));
    expect(ids.slice(0, 2)).to.deep.equal([`<${messageId}@acme.example>`, `<${messageId}@acme.example>`]);
    expect(ids[2]).to.be.a('string').and.not.equal(ids[0]);
    expect(ids[3]).to.be.a('string').and.not.contain('evil');
    expect(server.received[3].raw).to.not.contain('Bcc');
  });

  it('authenticates with the credentials of the url', async () => {
    server = await startSmtpServer({ credentials: { username: 'mailer', password: 'p@ss:word' } });
    sender = senderFor({ url: `smtp://mailer:${encodeURIComponent('p@ss:word')}@127.0.0.1:${server.port}` });
    await sender.send({ kind: 'emailVerified', username: USERNAME, email: EMAIL });
    expect(server.authenticatedUsers).to.deep.equal(['mailer']);
    expect(server.received).to.have.length(1);
  });

  it('accepts nodemailer transport options instead of a url', async () => {
    server = await startSmtpServer();
    const transport = { host: '127.0.0.1', port: server.port, pool: false as const };
    sender = new SmtpEmailSender({ transport, from: FROM, links });
    await sender.send({ kind: 'passwordChanged', username: USERNAME, email: EMAIL });
    const parsed = await parseMail(server.received[0]);
    expect(parsed.subject).to.equal('Your Gatehouse password was changed');
  });

  it('uses a host template, and refuses a subject with a line break without sending', async () => {
    server = await startSmtpServer();
    sender = senderFor(server, {
      templates: {
        passwordChanged: ({ username }) => ({ subject: 'Security notice', text: `Changed, ${username}.`, html: 'h' }),
        accountDeleted: ({ username }) => ({ subject: `Bye ${username}\r\nBcc: evil@x.example`, text: '', html: '' }),
      },
    });
    await sender.send({ kind: 'passwordChanged', username: USERNAME, email: EMAIL });
    const parsed = await parseMail(server.received[0]);
    expect(parsed.subject).to.equal('Security notice');
    expect(parsed.text).to.equal(`Changed, ${USERNAME}.`);

    const error = await rejectionOf(sender.send({ kind: 'accountDeleted', username: USERNAME, email: EMAIL }));
    expect(error.code).to.equal('EINVALIDSUBJECT');
    expect(server.received).to.have.length(1);
  });

  describe('refuses bad options at construction', () => {
    const base = { url: 'smtp://127.0.0.1:2525', from: FROM, links };
    const refused: Array<[string, unknown, RegExp]> = [
      ['no links', { ...base, links: undefined }, /needs `links`/],
      ['neither url nor transport', { from: FROM, links }, /needs `url` \(smtp:\/\/user:pass@host:port\) or/],
      ['an http url', { ...base, url: 'http://user:hunter2@mail.example' }, /SMTP url must look like smtp:\/\//],
      ['a url that does not parse', { ...base, url: 'smtp://user:hunter2@' }, /SMTP url must look like/],
      ['no from', { ...base, from: '' }, /from must be a non-empty string/],
      ['a from with CRLF', { ...base, from: 'A <a@example.com>\r\nBcc: x@y.example' }, /from must not contain line/],
      ['a from without an address', { ...base, from: 'Acme' }, /from must contain an address/],
      ['an appName with a line break', { ...base, appName: 'Acme\nBcc: x' }, /appName must not contain line breaks/],
      ['a zero reset lifetime', { ...base, resetTokenTtlMs: 0 }, /resetTokenTtlMs must be a positive number/],
      ['an unknown template', { ...base, templates: { pwReset: () => null } }, /unknown email template "pwReset"/],
    ];
    for (const [what, options, message] of refused) {
      it(what, () => {
        let thrown: unknown;
        try {
          new SmtpEmailSender(options as SmtpEmailSenderOptions);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).to.be.instanceOf(TypeError);
        expect((thrown as Error).message).to.match(message);
        expect((thrown as Error).message).to.not.contain('hunter2');
      });
    }
  });
});
