import { expect } from 'chai';
import { html } from '../../src/pages/html';
import { durationText, passwordHint } from '../../src/pages/policy-text';
import { DEFAULT_ACCOUNT_OPTIONS } from '../../src/services/account-options';

describe('pages: markup', () => {
  it('escapes every interpolated value, in text and in quoted attributes', () => {
    const value = `"><script>alert('x')</script>&`;
    const out = html`<p title="${value}">${value}</p>`.value;
    expect(out).to.equal(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">' +
        '&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>',
    );
  });

  it('nests markup it made, joins lists, and drops empty values', () => {
    const items = ['<a>', 'b'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).to.equal(
      '<ul><li>&lt;a&gt;</li><li>b</li></ul>0',
    );
  });

  it('explains the password policy from the options in force', () => {
    expect(passwordHint(DEFAULT_ACCOUNT_OPTIONS.password))
      .to.match(/^Use 12 to 128 characters\./)
      .and.include('common passwords');
    const lenient = passwordHint({ ...DEFAULT_ACCOUNT_OPTIONS.password, minLength: 15, useBlocklist: false });
    expect(lenient)
      .to.match(/^Use 15 to 128 characters\./)
      .and.not.include('common passwords');
  });

  it('says token lifetimes the way people do', () => {
    expect(durationText(DEFAULT_ACCOUNT_OPTIONS.verificationTokenTtlMs)).to.equal('a day');
    expect(durationText(DEFAULT_ACCOUNT_OPTIONS.resetTokenTtlMs)).to.equal('an hour');
    expect(durationText(2 * 3_600_000)).to.equal('2 hours');
    expect(durationText(30 * 60_000)).to.equal('30 minutes');
    expect(durationText(90_000)).to.equal('90 seconds');
  });
});
