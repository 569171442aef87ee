import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:https';
import { join } from 'node:path';
import {
  newFlowSecrets,
  providerClient,
  ProviderRefusedError,
  ProviderUnavailableError,
  type ProviderClient,
  type ProviderClientTuning,
} from '../../src/services/oidc/provider-client';
import { resolveOidcSettings, type OidcProvider, type OidcProviderOptions } from '../../src/services/oidc/oidc-options';
import { startGithubStub, type GithubStub } from '../support/github-stub';
import { followToClient, listen, stopServer, testTlsCertificate } from '../support/https-test-server';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider';

// The provider client against real providers over HTTPS (oidc-provider, and a GitHub-shaped server): openid-client
// does every check, nothing between it and the provider is mocked. The test CA is trusted through NODE_EXTRA_CA_CERTS.

const CALLBACK_BASE = 'http://127.0.0.1:8080/auth';
const CLIENT_ID = 'gatehouse-test';
// Distinctive, so a test can prove no error ever carries it.
const CLIENT_SECRET = 'client-secret-NEVER-IN-ERRORS-7f3a';
const redirectUriOf = (id: string) => `${CALLBACK_BASE}/oidc/${id}/callback`;

function resolved(given: Omit<OidcProviderOptions, 'clientId' | 'clientSecret'>): OidcProvider {
  const settings = resolveOidcSettings({
    providers: [{ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...given }],
    callbackBase: CALLBACK_BASE,
  });
  return settings!.providers.get(given.id)!;
}

type Secrets = Awaited<ReturnType<typeof newFlowSecrets>>;

async function start(client: ProviderClient, provider: OidcProvider, secrets: Secrets): Promise<string> {
  return client.authorizationUrl({
    redirectUri: redirectUriOf(provider.id),
    state: secrets.state,
    nonce: secrets.nonce,
    codeChallenge: secrets.codeChallenge,
    scopes: provider.scopes,
  });
}

function finish(client: ProviderClient, provider: OidcProvider, callbackUrl: string, secrets: Secrets) {
  return client.finish({
    callbackUrl: new URL(callbackUrl),
    redirectUri: redirectUriOf(provider.id),
    state: secrets.state,
    nonce: secrets.nonce,
    codeVerifier: secrets.codeVerifier,
  });
}

async function refusal(promise: Promise<unknown>): Promise<ProviderRefusedError> {
  const error = await promise.then(
    () => expect.fail('expected the answer to be refused'),
    (caught: unknown) => caught,
  );
  expect(error, String(error)).to.be.instanceOf(ProviderRefusedError);
  const refused = error as ProviderRefusedError;
  expect(refused.message).not.to.include(CLIENT_SECRET);
  expect(refused.reason).not.to.include(CLIENT_SECRET);
  return refused;
}

async function unavailability(promise: Promise<unknown>): Promise<ProviderUnavailableError> {
  const error = await promise.then(
    () => expect.fail('expected the provider to be unavailable'),
    (caught: unknown) => caught,
  );
  expect(error, String(error)).to.be.instanceOf(ProviderUnavailableError);
  expect((error as Error).message).not.to.include(CLIENT_SECRET);
  return error as ProviderUnavailableError;
}

const discoveries = (idp: TestOidcProvider) =>
  idp.requests.filter((line) => line.startsWith('GET /.well-known/openid-configuration')).length;

describe('oidc: the provider client against a real OpenID provider', function () {
  this.timeout(60_000);
  let idp: TestOidcProvider;
  let provider: OidcProvider;
  let client: ProviderClient;

  before(async () => {
    idp = await startOidcProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [redirectUriOf('corp')],
    });
    idp.addAccount({
      sub: 'sub-ann',
      email: 'ann@example.com',
      email_verified: true,
      amr: ['pwd', 'otp'],
      acr: 'urn:test:loa:2',
    });
    idp.addAccount({ sub: 'sub-bob', email: 'bob@example.com', email_verified: 'true' });
    idp.addAccount({ sub: 'sub-cy' });
    provider = resolved({ id: 'corp', issuer: idp.issuer });
    client = providerClient(provider);
  });

  after(() => idp.close());

  it('asks for a code with PKCE S256, state, nonce, the exact redirect URI and the scopes, after one discovery', async () => {
    const secrets = await newFlowSecrets();
    const url = new URL(await start(client, provider, secrets));
    const again = new URL(await start(client, provider, await newFlowSecrets()));

    expect(url.origin + url.pathname).to.equal(`${idp.issuer}/auth`);
    const query = Object.fromEntries(url.searchParams);
    expect(query).to.deep.equal({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: redirectUriOf('corp'),
      scope: 'openid email',
      state: secrets.state,
      nonce: secrets.nonce,
      code_challenge: secrets.codeChallenge,
      code_challenge_method: 'S256',
    });
    expect(again.searchParams.get('state')).not.to.equal(secrets.state);
    expect(discoveries(idp)).to.equal(1);
  });

  it('makes fresh flow secrets: 43-character base64url values, the challenge the S256 of the verifier', async () => {
    const { createHash } = await import('node:crypto');
    const a = await newFlowSecrets();
    const b = await newFlowSecrets();
    for (const value of [a.state, a.nonce, a.codeVerifier, a.codeChallenge]) {
      expect(value).to.match(/^[A-Za-z0-9_-]{43}$/);
    }
    expect(a.codeChallenge).to.equal(createHash('sha256').update(a.codeVerifier).digest('base64url'));
    expect([b.state, b.nonce, b.codeVerifier]).not.to.include.members([a.state, a.nonce, a.codeVerifier]);
  });

  it('finishes a flow: subject, verified address from userinfo, amr and acr from the ID token', async () => {
    const secrets = await newFlowSecrets();
    const callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' });
    const query = new URL(callbackUrl).searchParams;
    expect(query.get('state')).to.equal(secrets.state);
    expect(query.get('iss')).to.equal(idp.issuer);

    expect(await finish(client, provider, callbackUrl, secrets)).to.deep.equal({
      issuer: idp.issuer,
      subject: 'sub-ann',
      email: 'ann@example.com',
      emailVerified: true,
      amr: ['pwd', 'otp'],
      acr: 'urn:test:loa:2',
    });
    expect(idp.requests.filter((line) => line.startsWith('GET /me'))).to.have.length(1);
  });

  it('counts only a boolean true as verified, and answers no address when the provider gives none', async () => {
    let secrets = await newFlowSecrets();
    let callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-bob' });
    expect(await finish(client, provider, callbackUrl, secrets)).to.include({
      subject: 'sub-bob',
      email: 'bob@example.com',
      emailVerified: false,
    });

    secrets = await newFlowSecrets();
    callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-cy' });
    expect(await finish(client, provider, callbackUrl, secrets)).to.deep.equal({
      issuer: idp.issuer,
      subject: 'sub-cy',
      email: null,
      emailVerified: false,
      amr: [],
      acr: null,
    });
  });

  it('refuses a changed iss parameter (mix-up), and a missing one since the provider advertises it', async () => {
    let secrets = await newFlowSecrets();
    const callbackUrl = new URL(await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' }));
    callbackUrl.searchParams.set('iss', 'https://attacker.example');
    const changed = await refusal(finish(client, provider, callbackUrl.href, secrets));
    expect(changed.reason).to.include('"iss"');

    secrets = await newFlowSecrets();
    idp.tamperNextIss(null);
    const missing = await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' });
    expect(new URL(missing).searchParams.has('iss')).to.equal(false);
    expect((await refusal(finish(client, provider, missing, secrets))).reason).to.include('"iss"');
  });

  it('refuses an answer carrying another flow’s state', async () => {
    const secrets = await newFlowSecrets();
    const callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' });
    const other = await newFlowSecrets();
    await refusal(finish(client, provider, callbackUrl, { ...secrets, state: other.state }));
  });

  it('refuses an ID token whose nonce is not the flow’s', async () => {
    const secrets = await newFlowSecrets();
    const callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' });
    const other = await newFlowSecrets();
    const refused = await refusal(finish(client, provider, callbackUrl, { ...secrets, nonce: other.nonce }));
    expect(refused.reason).to.include('nonce');
  });

  it('refuses a code exchanged with another verifier (PKCE)', async () => {
    const secrets = await newFlowSecrets();
    const callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' });
    const other = await newFlowSecrets();
    const refused = await refusal(
      finish(client, provider, callbackUrl, { ...secrets, codeVerifier: other.codeVerifier }),
    );
    expect(refused.reason).to.include('invalid_grant');
  });

  it('refuses a code used twice', async () => {
    const secrets = await newFlowSecrets();
    const callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' });
    await finish(client, provider, callbackUrl, secrets);
    const refused = await refusal(finish(client, provider, callbackUrl, secrets));
    expect(refused.reason).to.include('invalid_grant');
    expect(refused.reason).not.to.include(new URL(callbackUrl).searchParams.get('code')!);
  });

  it('refuses the error a provider sends back (the person said no)', async () => {
    const secrets = await newFlowSecrets();
    const callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann', deny: true });
    expect(new URL(callbackUrl).searchParams.get('error')).to.equal('access_denied');
    expect((await refusal(finish(client, provider, callbackUrl, secrets))).reason).to.include('access_denied');
  });

  it('logs a browser that follows the redirects itself in as loginAs’s account (what a Chromium test does)', async () => {
    const secrets = await newFlowSecrets();
    idp.loginAs('sub-ann');
    try {
      const callbackUrl = await followToClient(await start(client, provider, secrets), idp.issuer, (url) => url);
      expect(await finish(client, provider, callbackUrl, secrets)).to.include({ subject: 'sub-ann' });
    } finally {
      idp.loginAs(null);
    }
  });

  it('sends the token request to the redirect URI the flow started with, whatever URL the callback arrived at', async () => {
    const secrets = await newFlowSecrets();
    const callbackUrl = new URL(await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' }));
    const behindProxy = new URL(`http://10.0.0.7:3000/internal/callback${callbackUrl.search}`);
    expect(await finish(client, provider, behindProxy.href, secrets)).to.include({ subject: 'sub-ann' });
  });
});

describe('oidc: the provider client and a provider’s configuration', function () {
  this.timeout(60_000);
  const started: TestOidcProvider[] = [];
  const begin = async (options: Partial<Parameters<typeof startOidcProvider>[0]> = {}) => {
    const idp = await startOidcProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [redirectUriOf('corp')],
      ...options,
    });
    idp.addAccount({ sub: 'sub-ann', email: 'ann@example.com', email_verified: true, amr: ['pwd'] });
    started.push(idp);
    return idp;
  };

  after(async () => {
    await Promise.all(started.map((idp) => idp.close()));
  });

  it('refuses a provider whose discovery document names another issuer, and does not ask again at once', async () => {
    const idp = await begin({ advertisedIssuer: (origin) => `${origin}/elsewhere` });
    const provider = resolved({ id: 'corp', issuer: idp.issuer });
    const client = providerClient(provider);
    const refused = await refusal(start(client, provider, await newFlowSecrets()));
    expect(refused.reason).to.include('issuer');
    await refusal(start(client, provider, await newFlowSecrets()));
    expect(discoveries(idp)).to.equal(1);
  });

  it('authenticates with client_secret_post when that is all the provider allows', async () => {
    const idp = await begin({ tokenAuthMethod: 'client_secret_post' });
    const provider = resolved({ id: 'corp', issuer: idp.issuer });
    const client = providerClient(provider);
    const secrets = await newFlowSecrets();
    const callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' });
    expect(await finish(client, provider, callbackUrl, secrets)).to.include({ subject: 'sub-ann' });
  });

  it('reads the address from the ID token when the provider puts it there, without asking userinfo', async () => {
    const idp = await begin({ emailInIdToken: true });
    const provider = resolved({ id: 'corp', issuer: idp.issuer });
    const client = providerClient(provider);
    const secrets = await newFlowSecrets();
    const callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' });
    expect(await finish(client, provider, callbackUrl, secrets)).to.include({
      email: 'ann@example.com',
      emailVerified: true,
    });
    expect(idp.requests.filter((line) => line.startsWith('GET /me'))).to.have.length(0);
  });

  it('answers unavailable at once while the provider is down, tries again after the back-off, and recovers', async () => {
    const idp = await begin();
    await idp.stop();
    let now = 1_000_000;
    const tuning: ProviderClientTuning = { retryAfterMs: 5_000, now: () => now };
    const provider = resolved({ id: 'corp', issuer: idp.issuer });
    const client = providerClient(provider, tuning);

    const began = Date.now();
    const down = await unavailability(start(client, provider, await newFlowSecrets()));
    expect(down.message).to.include('ECONNREFUSED');
    expect(down.retryAfterSeconds).to.equal(5);
    await idp.start();
    // Within the back-off the failure stands without a new attempt.
    await unavailability(start(client, provider, await newFlowSecrets()));
    expect(discoveries(idp)).to.equal(0);
    expect(Date.now() - began).to.be.below(2_000);

    now += 5_000;
    const secrets = await newFlowSecrets();
    const callbackUrl = await idp.authorize(await start(client, provider, secrets), { as: 'sub-ann' });
    expect(discoveries(idp)).to.equal(1);

    // Down between the redirect and the callback: the token request cannot be made.
    await idp.stop();
    await unavailability(finish(client, provider, callbackUrl, secrets));
    await idp.start();
    expect(await finish(client, provider, callbackUrl, secrets)).to.include({ subject: 'sub-ann' });
  });

  it('gives up on a provider that does not answer within the timeout', async () => {
    const silent = createServer(testTlsCertificate(), () => undefined);
    const port = await listen(silent, 0);
    try {
      const provider = resolved({ id: 'corp', issuer: `https://127.0.0.1:${port}` });
      const client = providerClient(provider, { timeoutMs: 300 });
      const began = Date.now();
      const error = await unavailability(start(client, provider, await newFlowSecrets()));
      expect(error.message).to.include('no answer in time');
      expect(Date.now() - began).to.be.below(3_000);
    } finally {
      await stopServer(silent);
    }
  });

  it('answers unavailable, naming the TLS error, when the provider’s CA is not trusted (no insecure way round)', () => {
    // A fresh process without NODE_EXTRA_CA_CERTS: the test CA's certificate is then just an unknown one.
    const probe = `
      const https = require('node:https');
      const [support, clientModule] = process.argv.slice(1);
      const { listen, stopServer, testTlsCertificate } = require(support);
      const { providerClient, newFlowSecrets } = require(clientModule);
      const server = https.createServer(testTlsCertificate(), (req, res) => res.end('{}'));
      listen(server, 0).then(async (port) => {
        const client = providerClient({ id: 'corp', name: 'Corp', kind: 'oidc', issuer: 'https://127.0.0.1:' + port,
          clientId: 'c', clientSecret: 's', scopes: ['openid'], allowedEmailDomains: [], trustedAmr: [], trustedAcr: [],
          authorizationEndpoint: null, tokenEndpoint: null, apiBase: null });
        const secrets = await newFlowSecrets();
        const error = await client.authorizationUrl({ redirectUri: 'http://127.0.0.1/cb', ...secrets, scopes: ['openid'] })
          .then(() => null, (caught) => caught);
        await stopServer(server);
        process.stdout.write(JSON.stringify({ name: error && error.name, message: error && error.message }));
      });
    `;
    const env = { ...process.env };
    delete env.NODE_EXTRA_CA_CERTS;
    const support = join(__dirname, '../support/https-test-server.js');
    const clientModule = join(__dirname, '../../src/services/oidc/provider-client.js');
    const out = JSON.parse(
      execFileSync(process.execPath, ['-e', probe, support, clientModule], { encoding: 'utf8', env }),
    );
    expect(out.name).to.equal('ProviderUnavailableError');
    expect(out.message).to.include('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });
});

describe('oidc: the provider client against a GitHub-shaped OAuth server', function () {
  this.timeout(60_000);
  let github: GithubStub;
  let provider: OidcProvider;
  let client: ProviderClient;

  before(async () => {
    github = await startGithubStub({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [redirectUriOf('github')],
    });
    github.addAccount({
      id: 4242,
      login: 'ann',
      profileEmail: 'public-unverified@example.com',
      emails: [
        { email: 'old@example.com', primary: false, verified: true },
        { email: 'ann@example.com', primary: true, verified: true },
      ],
    });
    github.addAccount({
      id: 5151,
      login: 'bob',
      emails: [
        { email: 'bob-primary@example.com', primary: true, verified: false },
        { email: 'bob-work@example.com', primary: false, verified: true },
      ],
    });
    github.addAccount({
      id: 6161,
      login: 'cy',
      profileEmail: 'cy@example.com',
      emails: [{ email: 'cy@example.com', primary: true, verified: false }],
    });
    provider = resolved({
      id: 'github',
      preset: 'github',
      authorizationEndpoint: github.authorizationEndpoint,
      tokenEndpoint: github.tokenEndpoint,
      apiBase: github.apiBase,
    });
    client = providerClient(provider);
  });

  after(() => github.close());

  it('asks for a code with PKCE S256 and state, the exact redirect URI and GitHub’s scopes, without a nonce', async () => {
    const secrets = await newFlowSecrets();
    const url = new URL(await start(client, provider, secrets));
    expect(url.origin + url.pathname).to.equal(github.authorizationEndpoint);
    expect(Object.fromEntries(url.searchParams)).to.deep.equal({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: redirectUriOf('github'),
      scope: 'read:user user:email',
      state: secrets.state,
      code_challenge: secrets.codeChallenge,
      code_challenge_method: 'S256',
    });
  });

  it('finishes a flow: the numeric id, the verified primary address, never the profile’s', async () => {
    const secrets = await newFlowSecrets();
    const callbackUrl = await github.authorize(await start(client, provider, secrets), { as: 4242 });
    expect(await finish(client, provider, callbackUrl, secrets)).to.deep.equal({
      issuer: 'https://github.com',
      subject: '4242',
      email: 'ann@example.com',
      emailVerified: true,
      amr: [],
      acr: null,
    });

    const token = github.requests.find((request) => request.path === '/login/oauth/access_token')!;
    expect(token.headers.accept).to.include('application/json');
    expect(token.headers.authorization).to.equal(undefined);
    expect(token.form).to.include({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_type: 'authorization_code',
      redirect_uri: redirectUriOf('github'),
      code_verifier: secrets.codeVerifier,
    });
    const api = github.requests.filter((request) => request.path.startsWith('/api/v3/'));
    expect(api.map((request) => request.path)).to.deep.equal(['/api/v3/user', '/api/v3/user/emails']);
  });

  it('signs a browser that follows the redirects itself in as loginAs’s account', async () => {
    const secrets = await newFlowSecrets();
    github.loginAs(5151);
    try {
      const callbackUrl = await followToClient(await start(client, provider, secrets), github.origin, (url) => url);
      expect(await finish(client, provider, callbackUrl, secrets)).to.include({ subject: '5151' });
    } finally {
      github.loginAs(null);
    }
  });

  it('takes a verified address over an unverified primary one, and none when none is verified', async () => {
    let secrets = await newFlowSecrets();
    let callbackUrl = await github.authorize(await start(client, provider, secrets), { as: 5151 });
    expect(await finish(client, provider, callbackUrl, secrets)).to.include({
      subject: '5151',
      email: 'bob-work@example.com',
      emailVerified: true,
    });

    secrets = await newFlowSecrets();
    callbackUrl = await github.authorize(await start(client, provider, secrets), { as: 6161 });
    expect(await finish(client, provider, callbackUrl, secrets)).to.include({
      subject: '6161',
      email: null,
      emailVerified: false,
    });
  });

  it('refuses a code used twice (GitHub answers 200 with an error), a wrong state and an iss it never sends', async () => {
    let secrets = await newFlowSecrets();
    let callbackUrl = await github.authorize(await start(client, provider, secrets), { as: 4242 });
    await finish(client, provider, callbackUrl, secrets);
    await refusal(finish(client, provider, callbackUrl, secrets));

    secrets = await newFlowSecrets();
    callbackUrl = await github.authorize(await start(client, provider, secrets), { as: 4242 });
    await refusal(finish(client, provider, callbackUrl, { ...secrets, state: (await newFlowSecrets()).state }));

    const mixedUp = new URL(callbackUrl);
    mixedUp.searchParams.set('iss', 'https://attacker.example');
    await refusal(finish(client, provider, mixedUp.href, secrets));
  });

  it('refuses the person’s refusal, and answers unavailable when GitHub fails or is down', async () => {
    let secrets = await newFlowSecrets();
    let callbackUrl = await github.authorize(await start(client, provider, secrets), { as: 4242, deny: true });
    expect((await refusal(finish(client, provider, callbackUrl, secrets))).reason).to.include('access_denied');

    secrets = await newFlowSecrets();
    callbackUrl = await github.authorize(await start(client, provider, secrets), { as: 4242 });
    github.failing(true);
    try {
      await unavailability(finish(client, provider, callbackUrl, secrets));
    } finally {
      github.failing(false);
    }

    secrets = await newFlowSecrets();
    callbackUrl = await github.authorize(await start(client, provider, secrets), { as: 4242 });
    await github.stop();
    try {
      await unavailability(finish(client, provider, callbackUrl, secrets));
    } finally {
      await github.start();
    }
    expect(await finish(client, provider, callbackUrl, secrets)).to.include({ subject: '4242' });
  });
});
