import { expect } from 'chai';
import {
  EmailLinks,
  englishTemplates,
  localeKey,
  renderMessage,
  resolveLocales,
  templatesFor,
  TemplatedEmailSender,
  type EmailContext,
  type EmailMessage,
  type EmailOperation,
  type EmailTemplates,
  type TemplatedEmailSenderOptions,
} from '../../src/email';

/** A partial French set, as a host would ship one: built with renderMessage, so every value is escaped. */
const french: Partial<EmailTemplates> = {
  passwordReset: ({ appName, username, link }) =>
    renderMessage(
      `Réinitialisez votre mot de passe ${appName}`,
      [`Bonjour ${username},`, { label: 'Choisir un nouveau mot de passe', url: link }],
      'fr',
    ),
  passwordChanged: ({ appName, username }) =>
    renderMessage(`Votre mot de passe ${appName} a été changé`, [`Bonjour ${username},`], 'fr'),
};

class MemorySender extends TemplatedEmailSender {
  readonly delivered: { message: EmailMessage; context: EmailContext }[] = [];
  constructor(options: Partial<TemplatedEmailSenderOptions> = {}) {
    super({ links: new EmailLinks({ publicUrl: 'https://id.example.com', prefix: '/auth' }), ...options });
  }
  protected override async deliver(
    _to: string,
    message: EmailMessage,
    _operation: EmailOperation,
    context: EmailContext,
  ) {
    this.delivered.push({ message, context });
  }
}

describe('email languages (locales)', () => {
  it('pick the exact tag, then the language, then the default set', () => {
    const locales = resolveLocales({ fr: french, 'pt-BR': {} }, englishTemplates);
    expect(templatesFor(locales, 'fr', englishTemplates).passwordReset).to.equal(french.passwordReset);
    expect(templatesFor(locales, 'FR_ca', englishTemplates).passwordReset).to.equal(french.passwordReset);
    expect(templatesFor(locales, 'de', englishTemplates)).to.equal(englishTemplates);
    expect(templatesFor(locales, undefined, englishTemplates)).to.equal(englishTemplates);
    expect(templatesFor(locales, '../../etc', englishTemplates)).to.equal(englishTemplates);
    expect(templatesFor(locales, 'pt-br', englishTemplates).passwordReset).to.equal(englishTemplates.passwordReset);
    expect([localeKey(' pt_BR '), localeKey('x'), localeKey(42)]).to.deep.equal(['pt-br', null, null]);
  });

  it('refuse a key that is not a locale tag, or an unknown message, at start', () => {
    expect(() => new MemorySender({ locales: { 'french!': french } })).to.throw(
      TypeError,
      /"french!" is not a locale tag/,
    );
    expect(() => new MemorySender({ locales: { fr: { pwReset: () => null } as never } })).to.throw(
      TypeError,
      /unknown email template "pwReset"/,
    );
  });

  it("send in the recipient's language, falling back message by message to the host's default set", async () => {
    const custom = () => ({ subject: 'Custom notice', text: 'custom', html: '<p>custom</p>' });
    const sender = new MemorySender({ locales: { fr: french }, templates: { accountDeleted: custom } });
    await sender.send(
      { kind: 'passwordReset', username: 'alice', email: 'alice@example.com', token: 'tok' },
      { messageId: 'm1', locale: 'fr-CA' },
    );
    await sender.send({ kind: 'accountDeleted', username: 'alice', email: 'alice@example.com' }, { locale: 'fr' });
    await sender.send(
      { kind: 'passwordReset', username: 'alice', email: 'alice@example.com', token: 'tok' },
      { locale: 'de' },
    );
    await sender.send({ kind: 'passwordReset', username: 'alice', email: 'alice@example.com', token: 'tok' });

    const [fr, frFallback, de, none] = sender.delivered;
    expect(fr.message.subject).to.equal('Réinitialisez votre mot de passe Gatehouse');
    expect(fr.message.html).to.contain('<html lang="fr">');
    expect(fr.message.text).to.contain('https://id.example.com/auth/password-reset?token=tok');
    expect(fr.context).to.deep.equal({ messageId: 'm1', locale: 'fr-CA' });
    expect(frFallback.message.subject).to.equal('Custom notice');
    expect(de.message.subject).to.equal('Reset your Gatehouse password');
    expect(none.message.subject).to.equal('Reset your Gatehouse password');
  });

  it('escape user-controlled values in a translated HTML body', async () => {
    const sender = new MemorySender({ locales: { fr: french } });
    await sender.send(
      { kind: 'passwordChanged', username: '<img src=x onerror=alert(1)>', email: 'alice@example.com' },
      { locale: 'fr' },
    );
    const [{ message }] = sender.delivered;
    expect(message.html).to.contain('<p>Bonjour &lt;img src=x onerror=alert(1)&gt;,</p>');
    expect(message.html).to.not.contain('<img');
  });
});
