import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigurationError } from '../../src/errors/configuration-error';
import { accountOptionsOf, loadConfig } from '../../src/server/config';
import { parseOidc } from '../../src/server/oidc-config';
import { resolveAccountOptions } from '../../src/services/account-options';

const SECRET = 'corp-client-secret-Zq8pW3nR';
const GITHUB_SECRET = 'github-client-secret-Ht5vK2mX';

/** A standalone server with two providers, as docs/reference/configuration.md describes them. */
const GOOD = {
  GATEHOUSE_SECRET_KEY: 'k'.repeat(40),
  GATEHOUSE_PUBLIC_URL: 'https://accounts.example.com',
  GATEHOUSE_OIDC_PROVIDERS: 'corp-sso, github',
  GATEHOUSE_OIDC_CORP_SSO_ISSUER: 'https://id.example.com/realms/staff',
  GATEHOUSE_OIDC_CORP_SSO_CLIENT_ID: 'gatehouse',
  GATEHOUSE_OIDC_CORP_SSO_CLIENT_SECRET: SECRET,
  GATEHOUSE_OIDC_CORP_SSO_NAME: 'Staff login',
  GATEHOUSE_OIDC_CORP_SSO_SCOPES: 'openid email profile',
  GATEHOUSE_OIDC_CORP_SSO_ALLOWED_DOMAINS: 'example.com, Example.org',
  GATEHOUSE_OIDC_CORP_SSO_TRUSTED_AMR: 'mfa,hwk',
  GATEHOUSE_OIDC_CORP_SSO_TRUSTED_ACR: 'urn:example:loa:high',
  GATEHOUSE_OIDC_GITHUB_PRESET: 'github',
  GATEHOUSE_OIDC_GITHUB_CLIENT_ID: 'Iv1.0123456789abcdef',
  GATEHOUSE_OIDC_GITHUB_CLIENT_SECRET: GITHUB_SECRET,
};

describe('OpenID providers from the environment (src/server/oidc-config.ts)', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(path.join(tmpdir(), 'gatehouse-oidc-config-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  const load = (env: Record<string, string | undefined>) => loadConfig(env, { cwd });
  /** The message of the start refused with `env`, which must name `variable` and never a client secret. */
  function refusal(env: Record<string, string | undefined>, variable: string): string {
    let message = '';
    expect(() => {
      try {
        load(env);
      } catch (error) {
        message = (error as Error).message;
        throw error;
      }
    }, variable).to.throw(ConfigurationError, variable);
    for (const secret of [SECRET, GITHUB_SECRET]) expect(message, variable).to.not.include(secret);
    return message;
  }

  it('builds AccountOptions.oidc: each provider, and the redirect URI base from the public URL and the prefix', () => {
    const config = load({ ...GOOD, GATEHOUSE_PREFIX: '/accounts', GATEHOUSE_OIDC_FLOW_TTL: '5m' });
    expect(config.oidc).to.deep.equal({
      providers: [
        {
          id: 'corp-sso',
          issuer: 'https://id.example.com/realms/staff',
          clientId: 'gatehouse',
          clientSecret: SECRET,
          name: 'Staff login',
          scopes: ['openid', 'email', 'profile'],
          allowedEmailDomains: ['example.com', 'Example.org'],
          trustedAmr: ['mfa', 'hwk'],
          trustedAcr: ['urn:example:loa:high'],
        },
        { id: 'github', preset: 'github', clientId: 'Iv1.0123456789abcdef', clientSecret: GITHUB_SECRET },
      ],
      callbackBase: 'https://accounts.example.com/accounts',
      flowTtlMs: 5 * 60_000,
    });
    const resolved = resolveAccountOptions(accountOptionsOf(config)).oidc!;
    expect([...resolved.providers.keys()]).to.deep.equal(['corp-sso', 'github']);
    expect(resolved.returnUrls).to.deep.equal(['https://accounts.example.com/accounts/oidc/return']);
    expect(resolved.secure).to.equal(true);
    expect(resolved.providers.get('corp-sso')!.allowedEmailDomains).to.deep.equal(['example.com', 'example.org']);
  });

  it('takes the return URLs, and accepts plain http on localhost only', () => {
    const config = load({
      ...GOOD,
      GATEHOUSE_PUBLIC_URL: 'http://localhost:8000',
      GATEHOUSE_OIDC_RETURN_URLS: 'http://localhost:3000/signed-in, http://localhost:8000/auth/oidc/return',
    });
    expect(config.oidc!.callbackBase).to.equal('http://localhost:8000/auth');
    expect(config.oidc!.returnUrls).to.deep.equal([
      'http://localhost:3000/signed-in',
      'http://localhost:8000/auth/oidc/return',
    ]);
    const message = refusal({ ...GOOD, GATEHOUSE_PUBLIC_URL: 'http://accounts.example.com' }, 'GATEHOUSE_PUBLIC_URL');
    expect(message).to.include('https');
    // Without GATEHOUSE_PUBLIC_URL, the address the server listens on: usable on loopback, not on every interface.
    expect(load({ ...GOOD, GATEHOUSE_PUBLIC_URL: undefined }).oidc!.callbackBase).to.equal(
      'http://127.0.0.1:8000/auth',
    );
    refusal({ ...GOOD, GATEHOUSE_PUBLIC_URL: undefined, HOST: '0.0.0.0' }, 'GATEHOUSE_PUBLIC_URL');
  });

  it('is off without GATEHOUSE_OIDC_PROVIDERS, and then refuses any other GATEHOUSE_OIDC_ variable', () => {
    expect(load({ GATEHOUSE_SECRET_KEY: 'k'.repeat(40) }).oidc).to.equal(undefined);
    expect(parseOidc({}, { publicUrl: 'https://a.example', prefix: '/auth', flowTtlMs: undefined })).to.equal(
      undefined,
    );
    const { GATEHOUSE_OIDC_PROVIDERS: _listed, ...unlisted } = GOOD;
    refusal(unlisted, 'GATEHOUSE_OIDC_CORP_SSO_ALLOWED_DOMAINS');
    refusal(
      { GATEHOUSE_SECRET_KEY: 'k'.repeat(40), GATEHOUSE_OIDC_RETURN_URLS: 'https://a.example/x' },
      'GATEHOUSE_OIDC_RETURN_URLS',
    );
  });

  it('refuses each bad value with a message naming its variable, and never a client secret', () => {
    const cases: [string, string | undefined][] = [
      ['GATEHOUSE_OIDC_PROVIDERS', 'Corp'],
      ['GATEHOUSE_OIDC_PROVIDERS', 'corp,corp'],
      ['GATEHOUSE_OIDC_PROVIDERS', 'corp_sso'],
      ['GATEHOUSE_OIDC_PROVIDERS', ' , '],
      ['GATEHOUSE_OIDC_CORP_SSO_ISSUER', 'http://id.example.com'],
      ['GATEHOUSE_OIDC_CORP_SSO_ISSUER', 'https://id.example.com/?x=1'],
      ['GATEHOUSE_OIDC_CORP_SSO_ISSUER', 'not a url'],
      ['GATEHOUSE_OIDC_CORP_SSO_ISSUER', undefined],
      ['GATEHOUSE_OIDC_CORP_SSO_PRESET', 'gitlab'],
      ['GATEHOUSE_OIDC_CORP_SSO_CLIENT_ID', undefined],
      ['GATEHOUSE_OIDC_CORP_SSO_CLIENT_ID', 'a\u0000b'],
      ['GATEHOUSE_OIDC_CORP_SSO_CLIENT_SECRET', undefined],
      ['GATEHOUSE_OIDC_CORP_SSO_CLIENT_SECRET', `${SECRET}\n`.repeat(3)],
      ['GATEHOUSE_OIDC_CORP_SSO_CLIENT_SECRET', `${SECRET}`.repeat(100)],
      ['GATEHOUSE_OIDC_CORP_SSO_NAME', 'x'.repeat(65)],
      ['GATEHOUSE_OIDC_CORP_SSO_NAME', 'two\nlines'],
      ['GATEHOUSE_OIDC_CORP_SSO_SCOPES', 'email profile'],
      ['GATEHOUSE_OIDC_CORP_SSO_SCOPES', 'openid "quoted"'],
      ['GATEHOUSE_OIDC_CORP_SSO_ALLOWED_DOMAINS', 'example..com'],
      ['GATEHOUSE_OIDC_CORP_SSO_ALLOWED_DOMAINS', '*.example.com'],
      ['GATEHOUSE_OIDC_CORP_SSO_TRUSTED_AMR', 'mfa "otp"'],
      ['GATEHOUSE_OIDC_CORP_SSO_TRUSTED_ACR', 'x'.repeat(257)],
      ['GATEHOUSE_OIDC_RETURN_URLS', 'https://app.example.com/return?next=1'],
      ['GATEHOUSE_OIDC_RETURN_URLS', 'http://app.example.com/return'],
      ['GATEHOUSE_OIDC_RETURN_URLS', 'javascript:alert(1)'],
      ['GATEHOUSE_OIDC_FLOW_TTL', '30s'],
      ['GATEHOUSE_OIDC_FLOW_TTL', '31m'],
      ['GATEHOUSE_OIDC_FLOW_TTL', 'ten minutes'],
      // A typo of a provider's variable, or one of a provider left out of the list.
      ['GATEHOUSE_OIDC_CORP_ISSUER', 'https://id.example.com'],
      ['GATEHOUSE_OIDC_CORP_SSO_ISSUR', 'https://id.example.com'],
    ];
    for (const [variable, value] of cases) {
      const env: Record<string, string | undefined> = { ...GOOD, [variable]: value };
      const named = value === undefined && variable.endsWith('ISSUER') ? 'GATEHOUSE_OIDC_CORP_SSO_ISSUER' : variable;
      refusal(env, named);
    }
  });
});
