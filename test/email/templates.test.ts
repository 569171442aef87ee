import { expect } from 'chai';
import {
  englishDuration,
  englishTemplates,
  escapeHtml,
  renderMessage,
  resolveTemplates,
  type EmailTemplates,
} from '../../src/email';

const notice = { appName: 'Acme', username: 'alice', email: 'alice@example.com' };
const withLink = { ...notice, link: 'https://example.com/auth/password-reset?token=tok', expiresInMs: 3_600_000 };

describe('email templates', () => {
  it('word durations in English, rounding down', () => {
    expect(englishDuration(60 * 60_000)).to.equal('1 hour');
    expect(englishDuration(24 * 60 * 60_000)).to.equal('24 hours');
    expect(englishDuration(2 * 24 * 60 * 60_000)).to.equal('2 days');
    expect(englishDuration(7 * 24 * 60 * 60_000)).to.equal('7 days');
    expect(englishDuration(90 * 60_000)).to.equal('90 minutes');
    expect(englishDuration(60_000)).to.equal('1 minute');
    expect(englishDuration(59_999)).to.equal('1 minute');
    expect(englishDuration(61 * 60_000 + 59_000)).to.equal('61 minutes');
  });

  it('state the link lifetime in the reset and verification messages', () => {
    expect(englishTemplates.passwordReset(withLink).text).to.contain('expires in 1 hour');
    const verification = englishTemplates.verification({ ...withLink, expiresInMs: 86_400_000 });
    expect(verification.text).to.contain('expires in 24 hours');
  });

  it('name the account a verification link confirms, and tell whoever did not choose it not to confirm', () => {
    const verification = englishTemplates.verification({ ...withLink, username: 'mallory' });
    expect(verification.text).to.contain('with this address and the username mallory');
    expect(verification.text).to.contain('If you did not choose the username mallory, do not confirm');
    expect(verification.html).to.contain('>Confirm for mallory</a>');
  });

  it('carry no link or token in the notices, and tell the owner what to do', () => {
    const changed = englishTemplates.passwordChanged(notice);
    expect(changed.text).to.not.match(/https?:|token/i);
    expect(changed.text).to.contain("If this wasn't you, reset your password");
    const attempt = englishTemplates.registrationAttempt(notice);
    expect(attempt.text).to.contain('tried to create a new Acme account with this email address');
    expect(attempt.text).to.contain('forgot your password, reset it');
    expect(attempt.text).to.not.match(/https?:|token/i);
  });

  it('render text and HTML from the same blocks, escaping every value in the HTML', () => {
    const message = renderMessage('Hi & bye', [
      'Hello <b>"x"</b> & \'y\'',
      { label: 'Go <now>', url: 'https://e.example/?a=1&b=<2>' },
    ]);
    expect(message.subject).to.equal('Hi & bye');
    expect(message.text).to.equal('Hello <b>"x"</b> & \'y\'\n\nhttps://e.example/?a=1&b=<2>\n');
    expect(message.html).to.contain('<p>Hello &lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; &#39;y&#39;</p>');
    expect(message.html).to.contain('<a href="https://e.example/?a=1&amp;b=&lt;2&gt;">Go &lt;now&gt;</a>');
    expect(message.html).to.contain('<title>Hi &amp; bye</title>');
    expect(escapeHtml(`<>&"'`)).to.equal('&lt;&gt;&amp;&quot;&#39;');
  });

  it('lay host replacements over the English set', () => {
    const passwordChanged: EmailTemplates['passwordChanged'] = () => ({ subject: 'Custom', text: 't', html: 'h' });
    const templates = resolveTemplates({ passwordChanged, accountDeleted: undefined });
    expect(templates.passwordChanged(notice).subject).to.equal('Custom');
    expect(templates.accountDeleted).to.equal(englishTemplates.accountDeleted);
    expect(templates.verification).to.equal(englishTemplates.verification);
  });

  it('refuse an unknown template name or a non-function, at start', () => {
    expect(() => resolveTemplates({ passwordReste: () => null } as unknown as Partial<EmailTemplates>)).to.throw(
      TypeError,
      /unknown email template "passwordReste"/,
    );
    expect(() => resolveTemplates({ passwordReset: 'Reset!' } as unknown as Partial<EmailTemplates>)).to.throw(
      TypeError,
      /"passwordReset" must be a function/,
    );
  });
});
