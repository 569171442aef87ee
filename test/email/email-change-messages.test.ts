import { expect } from 'chai';
import { canSend } from '../../src/services/sender-operations';
import { ConsoleEmailSender, EmailLinks, englishTemplates, type EmailMessage } from '../../src/email';

const notice = { appName: 'Acme', username: 'alice', email: 'alice@example.com' };
const link = 'https://example.com/auth/email-change/confirm?token=tok';

/** A console sender printing into `printed`, on these links. */
function senderOn(links: EmailLinks, emailChangeTokenTtlMs?: number) {
  const printed: string[] = [];
  const sender = new ConsoleEmailSender({
    links,
    appName: 'Acme',
    emailChangeTokenTtlMs,
    output: { write: (chunk: string) => printed.push(chunk) },
  });
  return { sender, printed };
}

describe('email change: links and messages', () => {
  it('links to /email-change/confirm under the prefix by default, or to the configured path or front end', () => {
    expect(new EmailLinks({ publicUrl: 'https://example.com', prefix: '/auth' }).emailChange('t')).to.equal(
      'https://example.com/auth/email-change/confirm?token=t',
    );
    const custom = new EmailLinks({ publicUrl: 'https://example.com', emailChangePath: '/account/new-address' });
    expect(custom.emailChange('t')).to.equal('https://example.com/account/new-address?token=t');
    const frontEnd = new EmailLinks({
      verifyUrl: 'https://app.example.com/verify',
      resetUrl: 'https://app.example.com/reset',
      emailChangeUrl: 'https://app.example.com/#/email?lang=en',
    });
    expect(frontEnd.emailChange('t')).to.equal('https://app.example.com/#/email?lang=en&token=t');
    expect(frontEnd.hasEmailChange).to.equal(true);
  });

  it('refuses a bad emailChangePath or emailChangeUrl at construction', () => {
    expect(() => new EmailLinks({ publicUrl: 'https://example.com', emailChangePath: 'email' })).to.throw(
      TypeError,
      /emailChangePath must be a path/,
    );
    expect(() => new EmailLinks({ publicUrl: 'https://example.com', emailChangeUrl: 'javascript:alert(1)' })).to.throw(
      TypeError,
      /emailChangeUrl must use http or https/,
    );
  });

  it('without publicUrl or emailChangeUrl, has no email-change link, and its senders do not carry the kind', async () => {
    const links = new EmailLinks({ verifyUrl: 'https://app.example.com/v', resetUrl: 'https://app.example.com/r' });
    expect(links.hasEmailChange).to.equal(false);
    expect(() => links.emailChange('t')).to.throw(TypeError, /publicUrl or emailChangeUrl/);
    const { sender, printed } = senderOn(links);
    expect(canSend(sender, 'emailChange')).to.equal(false);
    // The notices need no link: they stay.
    expect(canSend(sender, 'emailChanged')).to.equal(true);
    const refused = await sender
      .send({ kind: 'emailChange', username: 'alice', email: 'new@example.com', token: 't' })
      .then(
        () => null,
        (error: { code?: string }) => error.code,
      );
    expect(refused).to.equal('EINVALIDMESSAGE');
    expect(printed).to.deep.equal([]);
    const { sender: full } = senderOn(new EmailLinks({ publicUrl: 'https://example.com' }));
    expect(canSend(full, 'emailChange')).to.equal(true);
  });

  it('mails the new address a link naming the account, stating the configured lifetime', async () => {
    const { sender, printed } = senderOn(
      new EmailLinks({ publicUrl: 'https://example.com', prefix: '/auth' }),
      30 * 60_000,
    );
    await sender.send({ kind: 'emailChange', username: 'alice', email: 'new@example.com', token: 'tok' });
    const text = printed.join('');
    expect(text).to.contain('To: new@example.com');
    expect(text).to.contain(link);
    expect(text).to.contain('the Acme account alice asked to make new@example.com its email address');
    expect(text).to.contain('expires in 30 minutes');
  });

  it('words the notices without a link or token, telling the reader what to do', () => {
    const messages: [string, EmailMessage, string][] = [
      ['emailChangeRequested', englishTemplates.emailChangeRequested(notice), 'change it right away'],
      ['emailChanged', englishTemplates.emailChanged(notice), 'is no longer alice@example.com'],
      ['emailChangeAttempt', englishTemplates.emailChangeAttempt(notice), 'already belongs to your account, alice'],
    ];
    for (const [name, message, words] of messages) {
      expect(message.text, name).to.contain(words);
      expect(message.text, name).to.not.match(/https?:|token/i);
      expect(message.html, name).to.not.match(/<a /);
    }
  });

  it('escapes the username and address in the HTML of the link message', () => {
    const message = englishTemplates.emailChange({
      ...notice,
      username: '<b>x</b>',
      email: 'a&b@example.com',
      link,
      expiresInMs: 3_600_000,
    });
    expect(message.html).to.contain('&lt;b&gt;x&lt;/b&gt;').and.contain('a&amp;b@example.com');
    expect(message.html).to.not.contain('<b>x</b>');
    expect(message.text).to.contain('expires in 1 hour');
  });
});
