import { expect } from 'chai';
import { SMTP_DEFAULTS } from '../../src/email';
import { smtpTransportOptions } from '../../src/email/smtp-transport-options';

describe('smtpTransportOptions', () => {
  it('bounds every wait to a few seconds and pools connections by default', () => {
    expect(smtpTransportOptions('smtp://mail.example:2525', undefined)).to.deep.equal({
      connectionTimeout: 5_000,
      greetingTimeout: 5_000,
      socketTimeout: 10_000,
      pool: true,
      url: 'smtp://mail.example:2525',
    });
    const { connectionTimeout, greetingTimeout, socketTimeout } = SMTP_DEFAULTS;
    for (const timeout of [connectionTimeout, greetingTimeout, socketTimeout]) {
      expect(timeout).to.be.within(1_000, 10_000);
    }
  });

  it('lets the host transport options override the defaults', () => {
    const transport = { host: 'mail.example', port: 465, secure: true, socketTimeout: 20_000, pool: false as const };
    expect(smtpTransportOptions(undefined, transport)).to.deep.equal({
      connectionTimeout: 5_000,
      greetingTimeout: 5_000,
      socketTimeout: 20_000,
      pool: false,
      host: 'mail.example',
      port: 465,
      secure: true,
    });
  });

  it('refuses a non-SMTP url without quoting it', () => {
    expect(() => smtpTransportOptions('https://user:s3cret@mail.example', undefined))
      .to.throw(TypeError, /smtp:\/\/user:pass@host:port/)
      .with.property('message')
      .that.does.not.contain('s3cret');
  });
});
