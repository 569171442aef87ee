import { expect } from 'chai';
import { ConsoleEmailSender, EmailLinks, englishTemplates, type EmailMessage } from '../../src/email';

const notice = { appName: 'Acme', username: 'alice', email: 'alice@example.com' };

describe('second factor: the notices', () => {
  it('each says what changed and what to do if it was not the person, with no link, code or token', () => {
    const messages: [string, EmailMessage, string][] = [
      ['secondFactorEnabled', englishTemplates.secondFactorEnabled(notice), 'was just switched on'],
      ['secondFactorDisabled', englishTemplates.secondFactorDisabled(notice), 'was just switched off'],
      ['recoveryCodesRegenerated', englishTemplates.recoveryCodesRegenerated(notice), 'the old ones no longer work'],
      ['recoveryCodeUsed', englishTemplates.recoveryCodeUsed(notice), 'with one of your recovery codes'],
    ];
    for (const [name, message, words] of messages) {
      expect(message.text, name).to.contain('Hello alice,');
      expect(message.text, name).to.contain(words);
      expect(message.text, name).to.contain("If this wasn't you");
      expect(message.text, name).to.match(/reset your password right away/);
      expect(message.text, name).to.not.match(/https?:|token|\b[0-9]{6}\b/i);
      expect(message.html, name).to.not.match(/<a /);
      expect(message.subject, name).to.contain('Acme');
    }
  });

  it('escapes the username in the HTML', () => {
    for (const template of [
      englishTemplates.secondFactorEnabled,
      englishTemplates.secondFactorDisabled,
      englishTemplates.recoveryCodesRegenerated,
      englishTemplates.recoveryCodeUsed,
    ]) {
      const message = template({ ...notice, username: '<b>x</b>' });
      expect(message.html).to.contain('&lt;b&gt;x&lt;/b&gt;');
      expect(message.html).to.not.contain('<b>x</b>');
    }
  });

  it('the built-in senders have the four operations, and a host template replaces one', async () => {
    const printed: string[] = [];
    const sender = new ConsoleEmailSender({
      links: new EmailLinks({ publicUrl: 'https://example.com' }),
      appName: 'Acme',
      templates: {
        recoveryCodeUsed: ({ username }) => ({ subject: 'Code used', text: `code used by ${username}\n`, html: '' }),
      },
      output: { write: (chunk: string) => printed.push(chunk) },
    });
    await sender.send({ kind: 'secondFactorEnabled', username: 'alice', email: 'alice@example.com' });
    await sender.send({ kind: 'secondFactorDisabled', username: 'alice', email: 'alice@example.com' });
    await sender.send({ kind: 'recoveryCodesRegenerated', username: 'alice', email: 'alice@example.com' });
    await sender.send({ kind: 'recoveryCodeUsed', username: 'alice', email: 'alice@example.com' });
    const text = printed.join('');
    expect(text).to.contain('Subject: Two-factor sign-in is now on for your Acme account');
    expect(text).to.contain('Subject: Two-factor sign-in is now off for your Acme account');
    expect(text).to.contain('Subject: New recovery codes for your Acme account');
    expect(text).to.contain('Subject: Code used\n\ncode used by alice');
  });
});
