import { expect } from 'chai';
import { EmailLinks, type EmailLinksOptions } from '../../src/email';

describe('EmailLinks', () => {
  it('joins publicUrl, prefix, the default paths and the token', () => {
    const links = new EmailLinks({ publicUrl: 'https://example.com', prefix: '/auth' });
    expect(links.verification('abc_DEF-123')).to.equal('https://example.com/auth/verify-email?token=abc_DEF-123');
    expect(links.passwordReset('abc_DEF-123')).to.equal('https://example.com/auth/password-reset?token=abc_DEF-123');
  });

  it('defaults the prefix to none and drops a trailing slash of publicUrl, path included', () => {
    expect(new EmailLinks({ publicUrl: 'http://127.0.0.1:8000/' }).verification('t')).to.equal(
      'http://127.0.0.1:8000/verify-email?token=t',
    );
    expect(new EmailLinks({ publicUrl: 'https://example.com/app/', prefix: '/auth' }).passwordReset('t')).to.equal(
      'https://example.com/app/auth/password-reset?token=t',
    );
  });

  it('uses configured paths', () => {
    const links = new EmailLinks({
      publicUrl: 'https://example.com',
      prefix: '/api/v1',
      verifyPath: '/account/verify',
      resetPath: '/account/reset',
    });
    expect(links.verification('t')).to.equal('https://example.com/api/v1/account/verify?token=t');
    expect(links.passwordReset('t')).to.equal('https://example.com/api/v1/account/reset?token=t');
  });

  it('percent-encodes the token', () => {
    const links = new EmailLinks({ publicUrl: 'https://example.com' });
    expect(links.verification('a b/c?d&e=f#g')).to.equal(
      'https://example.com/verify-email?token=a%20b%2Fc%3Fd%26e%3Df%23g',
    );
  });

  it('refuses an empty token', () => {
    const links = new EmailLinks({ publicUrl: 'https://example.com' });
    expect(() => links.verification('')).to.throw(TypeError, 'non-empty token');
    expect(() => links.passwordReset(undefined as unknown as string)).to.throw(TypeError, 'non-empty token');
  });

  describe('front-end bases (verifyUrl / resetUrl)', () => {
    it('point the links at the host front end, without publicUrl when both are given', () => {
      const links = new EmailLinks({
        verifyUrl: 'https://app.example.com/verify',
        resetUrl: 'https://app.example.com/#/reset',
      });
      expect(links.verification('t1')).to.equal('https://app.example.com/verify?token=t1');
      expect(links.passwordReset('t2')).to.equal('https://app.example.com/#/reset?token=t2');
    });

    it('append with & when the base already has a query', () => {
      const links = new EmailLinks({
        verifyUrl: 'https://app.example.com/verify?lang=en',
        resetUrl: 'https://app.example.com/r',
      });
      expect(links.verification('t')).to.equal('https://app.example.com/verify?lang=en&token=t');
    });

    it('may replace one link while the other is built from publicUrl', () => {
      const links = new EmailLinks({
        publicUrl: 'https://example.com',
        prefix: '/auth',
        resetUrl: 'https://app.example.com/reset',
      });
      expect(links.verification('t')).to.equal('https://example.com/auth/verify-email?token=t');
      expect(links.passwordReset('t')).to.equal('https://app.example.com/reset?token=t');
    });

    it('still need publicUrl for the link they do not replace', () => {
      expect(() => new EmailLinks({ verifyUrl: 'https://app.example.com/verify' })).to.throw(
        TypeError,
        /publicUrl is required/,
      );
    });

    it('must be absolute http(s) URLs', () => {
      expect(() => new EmailLinks({ verifyUrl: '/verify', resetUrl: 'https://a.example/r' })).to.throw(
        TypeError,
        /verifyUrl must be an absolute/,
      );
      expect(() => new EmailLinks({ verifyUrl: 'https://a.example/v', resetUrl: 'javascript:alert(1)' })).to.throw(
        TypeError,
        /resetUrl must use http or https/,
      );
    });
  });

  describe('refuses at construction', () => {
    const site = { publicUrl: 'https://example.com' };
    const refused: Array<[string, EmailLinksOptions, RegExp]> = [
      ['no options', undefined as unknown as EmailLinksOptions, /needs an options object/],
      ['no publicUrl', {}, /publicUrl is required/],
      ['a relative publicUrl', { publicUrl: 'example.com' }, /publicUrl must be an absolute http\(s\) URL/],
      ['another scheme', { publicUrl: 'ftp://example.com' }, /publicUrl must use http or https, not ftp/],
      ['a javascript: URL', { publicUrl: 'javascript:alert(1)' }, /publicUrl must use http or https, not javascript/],
      ['credentials', { publicUrl: 'https://user:pw@example.com' }, /publicUrl must not contain a user name/],
      ['a query', { publicUrl: 'https://example.com/?a=1' }, /publicUrl must not contain a query/],
      ['an empty query', { publicUrl: 'https://example.com?' }, /publicUrl must not contain a query/],
      ['a fragment', { publicUrl: 'https://example.com/#top' }, /publicUrl must not contain a query \(\?\) or/],
      ['surrounding whitespace', { publicUrl: ' https://example.com' }, /publicUrl must not contain whitespace/],
      ['a line break', { publicUrl: 'https://example.com\r\n' }, /publicUrl must not contain whitespace, control/],
      ['a backslash', { publicUrl: 'https:\\\\evil.example' }, /publicUrl must not contain .*backslashes/],
      ['a prefix without a leading slash', { ...site, prefix: 'auth' }, /prefix must be '' or a path/],
      ['a prefix ending with a slash', { ...site, prefix: '/auth/' }, /prefix must be '' or a path/],
      ['a bare slash prefix', { ...site, prefix: '/' }, /prefix must be '' or a path/],
      ['a prefix with a query', { ...site, prefix: '/auth?x=1' }, /prefix must be/],
      ['a prefix with a space', { ...site, prefix: '/a b' }, /prefix must be/],
      ['a relative verifyPath', { ...site, verifyPath: 'verify' }, /verifyPath must be a path/],
      ['a resetPath with //', { ...site, resetPath: '//evil.example' }, /resetPath must be a path/],
    ];
    for (const [what, options, message] of refused) {
      it(what, () => {
        expect(() => new EmailLinks(options)).to.throw(TypeError, message);
      });
    }
  });
});
