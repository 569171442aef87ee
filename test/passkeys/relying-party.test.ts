import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '../../src/errors/configuration-error';
import { accountOptionsOf, loadConfig } from '../../src/server/config';
import { resolveRelyingParty } from '../../src/services/passkeys/relying-party';

const KEY = 'k'.repeat(40);

describe('passkeys: the relying party comes from configuration only', () => {
  it('defaults the RP ID and the one origin to the public URL, user verification required, attestation none', () => {
    const rp = resolveRelyingParty({ publicUrl: 'https://accounts.example.com/auth' })!;
    expect(rp.rpId).to.equal('accounts.example.com');
    expect(rp.origins).to.deep.equal(['https://accounts.example.com']);
    expect(rp.userVerification).to.equal('required');
    expect(rp.attestation).to.equal('none');
    expect(rp.presenceOnlySecondFactor).to.equal(false);
    expect(rp.challengeTtlMs).to.equal(300_000);
  });

  it('takes a registrable suffix as RP ID and sibling hosts as extra origins', () => {
    const rp = resolveRelyingParty({
      rpId: 'Example.com',
      origins: ['https://accounts.example.com', 'https://app.example.com:8443', 'https://example.com'],
    })!;
    expect(rp.rpId).to.equal('example.com');
    expect(rp.origins).to.deep.equal([
      'https://accounts.example.com',
      'https://app.example.com:8443',
      'https://example.com',
    ]);
  });

  it('accepts plain http on localhost only', () => {
    expect(resolveRelyingParty({ publicUrl: 'http://localhost:8000' })!.origins).to.deep.equal([
      'http://localhost:8000',
    ]);
    expect(() => resolveRelyingParty({ publicUrl: 'http://accounts.example.com' })).to.throw(
      ConfigurationError,
      /plain http/,
    );
  });

  it('refuses an IP-literal RP ID, an origin outside the RP ID, a non-origin and a look-alike suffix', () => {
    const refuses = (options: Parameters<typeof resolveRelyingParty>[0], message: RegExp) =>
      expect(() => resolveRelyingParty(options)).to.throw(ConfigurationError, message);
    refuses({ publicUrl: 'https://10.0.0.5' }, /IP address/);
    refuses({ rpId: '127.0.0.1', origins: ['http://127.0.0.1:8000'] }, /IP address/);
    refuses({ rpId: '[::1]', origins: ['http://[::1]:8000'] }, /IP address/);
    refuses({ rpId: 'example.com', origins: ['https://evil.com'] }, /outside the RP ID/);
    refuses({ rpId: 'example.com', origins: ['https://notexample.com'] }, /outside the RP ID/);
    refuses({ rpId: 'example.com', origins: ['https://app.example.com/path'] }, /not an origin/);
    refuses({ rpId: 'exa mple.com', origins: ['https://example.com'] }, /not a host name/);
    refuses({ rpId: 'example.com' }, /origins or publicUrl/);
    refuses({ rpId: 'co.uk', origins: ['https://shop.co.uk'] }, /public suffix/);
    refuses({ rpId: 'github.io', origins: ['https://someone.github.io'] }, /public suffix/);
    refuses({ publicUrl: 'https://example.com', challengeTtlMs: 1000 }, /challengeTtlMs/);
    refuses({ publicUrl: 'https://example.com', userVerification: 'discouraged' as never }, /userVerification/);
  });

  it('is off when not configured', () => {
    expect(resolveRelyingParty(undefined)).to.equal(null);
  });

  describe('in the standalone configuration', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'gatehouse-passkey-config-'));
    const load = (env: Record<string, string>, warnings: string[] = []) =>
      loadConfig({ GATEHOUSE_SECRET_KEY: KEY, ...env }, { cwd, warn: (message) => warnings.push(message) });

    it('follows GATEHOUSE_PUBLIC_URL, and GATEHOUSE_WEBAUTHN_* over it', () => {
      const byUrl = accountOptionsOf(load({ GATEHOUSE_PUBLIC_URL: 'https://accounts.example.com' }));
      expect(resolveRelyingParty(byUrl.passkeys)!.rpId).to.equal('accounts.example.com');
      const explicit = accountOptionsOf(
        load({
          GATEHOUSE_PUBLIC_URL: 'https://accounts.example.com',
          GATEHOUSE_WEBAUTHN_RP_ID: 'example.com',
          GATEHOUSE_WEBAUTHN_ORIGINS: 'https://accounts.example.com, https://app.example.com',
          GATEHOUSE_WEBAUTHN_RP_NAME: 'Example',
          GATEHOUSE_WEBAUTHN_USER_VERIFICATION: 'preferred',
          GATEHOUSE_WEBAUTHN_PRESENCE_ONLY_SECOND_FACTOR: 'on',
        }),
      );
      expect(resolveRelyingParty(explicit.passkeys)).to.deep.include({
        rpId: 'example.com',
        rpName: 'Example',
        userVerification: 'preferred',
        presenceOnlySecondFactor: true,
        origins: ['https://accounts.example.com', 'https://app.example.com'],
      });
    });

    it('stops the start on a wrong variable, naming it', () => {
      expect(() => load({ GATEHOUSE_WEBAUTHN_RP_ID: '192.168.1.10' })).to.throw(
        ConfigurationError,
        /GATEHOUSE_WEBAUTHN/,
      );
      expect(() =>
        load({ GATEHOUSE_WEBAUTHN_RP_ID: 'example.com', GATEHOUSE_WEBAUTHN_ORIGINS: 'https://other.org' }),
      ).to.throw(ConfigurationError, /outside the RP ID/);
      expect(() => load({ GATEHOUSE_WEBAUTHN_PRESENCE_ONLY_SECOND_FACTOR: 'yes' })).to.throw(
        ConfigurationError,
        /on or off/,
      );
    });

    it('leaves passkeys off for the default address, and says so when the public URL was set to one', () => {
      const quiet: string[] = [];
      expect(load({}, quiet).passkeys).to.equal(undefined);
      expect(quiet).to.deep.equal([]);
      const told: string[] = [];
      expect(load({ GATEHOUSE_PUBLIC_URL: 'http://10.1.2.3:8000' }, told).passkeys).to.equal(undefined);
      expect(told.join('\n')).to.match(/passkeys are off/);
      expect(load({ GATEHOUSE_PUBLIC_URL: 'http://accounts.example.com' }).passkeys).to.equal(undefined);
      expect(load({ HOST: 'localhost' }).passkeys).to.deep.include({ publicUrl: 'http://localhost:8000' });
      expect(resolveRelyingParty(load({ GATEHOUSE_PUBLIC_URL: 'http://localhost:8123' }).passkeys)).to.deep.include({
        rpId: 'localhost',
        origins: ['http://localhost:8123'],
      });
    });
  });
});
