import { expect } from 'chai';
import { ConsoleEmailSender, EmailDeliveryError, EmailLinks } from '../../src/email';
import { APP_NAME, OPERATIONS, PREFIX, PUBLIC_URL, TOKEN, urlsIn } from './operations';

const EMAIL = 'dev@example.org';
const links = new EmailLinks({ publicUrl: PUBLIC_URL, prefix: PREFIX });

function consoleSender(): { sender: ConsoleEmailSender; printed: string[] } {
  const printed: string[] = [];
  const output = { write: (chunk: string) => printed.push(chunk) };
  const sender = new ConsoleEmailSender({ links, appName: APP_NAME, output });
  return { sender, printed };
}

describe('ConsoleEmailSender', () => {
  for (const operation of OPERATIONS) {
    it(`prints the ${operation.name} message: recipient, subject, text body and its links`, async () => {
      const { sender, printed } = consoleSender();
      await operation.send(sender, 'alice', EMAIL);
      expect(printed).to.have.length(1);
      const [output] = printed;
      expect(output).to.contain(`\nTo: ${EMAIL}\n`);
      expect(output).to.contain(`\nSubject: ${operation.subject}\n`);
      expect(output).to.contain('Hello alice,');
      expect(output).to.not.contain('<p>');
      expect(urlsIn(output)).to.deep.equal(operation.link ? [operation.link] : []);
    });
  }

  it('refuses a recipient with CRLF and prints nothing', async () => {
    const { sender, printed } = consoleSender();
    let thrown: unknown;
    try {
      await sender.send({
        kind: 'passwordReset',
        username: 'alice',
        email: `${EMAIL}\r\nBcc: evil@attacker.example`,
        token: TOKEN,
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(EmailDeliveryError);
    expect((thrown as EmailDeliveryError).code).to.equal('EINVALIDRECIPIENT');
    expect(printed).to.deep.equal([]);
  });

  it('prints to process.stdout by default', async () => {
    const sender = new ConsoleEmailSender({ links });
    const original = process.stdout.write;
    const printed: string[] = [];
    process.stdout.write = ((chunk: string) => printed.push(chunk) > 0) as typeof process.stdout.write;
    try {
      await sender.send({ kind: 'verification', username: 'bob', email: EMAIL, token: TOKEN });
    } finally {
      process.stdout.write = original;
    }
    expect(printed.join('')).to.contain(`${PUBLIC_URL}${PREFIX}/verify-email?token=${TOKEN}`);
    expect(printed.join('')).to.contain('Subject: Verify your email address for Gatehouse');
  });

  it('refuses an output without write()', () => {
    expect(() => new ConsoleEmailSender({ links, output: {} as never })).to.throw(
      TypeError,
      /output must have a write/,
    );
  });
});
