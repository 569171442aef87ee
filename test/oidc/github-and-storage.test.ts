import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { resolveAccountService } from '../../src/di/resolve';
import { startGithubStub, type GithubStub } from '../support/github-stub';
import type { TestOidcProvider } from '../support/oidc-provider';
import { TEST_STORES, type OpenedTestStore } from '../support/test-stores';
import { bearer, buildTestApp, PREFIX, type TestApp } from '../support/test-app';
import {
  CALLBACK_BASE,
  callCallback,
  CLIENT,
  configureOidc,
  exchange,
  fragmentOf,
  oidcOptions,
  RETURN_URL,
  startFlow,
  startTestProvider,
} from './oidc-support';

const GITHUB_CLIENT = { clientId: 'gh-client', clientSecret: 'gh-secret-never-stored' };

describe('the github preset against a GitHub-shaped server', function () {
  this.timeout(30_000);
  let github: GithubStub;
  let t: TestApp;

  before(async () => {
    github = await startGithubStub({ ...GITHUB_CLIENT, redirectUris: [`${CALLBACK_BASE}/oidc/github/callback`] });
  });
  after(async () => {
    await github?.close();
  });
  beforeEach(() => {
    t = buildTestApp();
    configureOidc({
      providers: [
        {
          id: 'github',
          preset: 'github',
          ...GITHUB_CLIENT,
          authorizationEndpoint: github.authorizationEndpoint,
          tokenEndpoint: github.tokenEndpoint,
          apiBase: github.apiBase,
        },
      ],
      callbackBase: CALLBACK_BASE,
      returnUrls: [RETURN_URL],
    });
  });
  afterEach(() => resolveAccountService().drain());

  async function signInAs(id: number) {
    const flow = await startFlow(t, 'github');
    const url = new URL(flow.authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).to.equal('S256');
    const callbackUrl = await github.authorize(flow.authorizationUrl, { as: id });
    const response = await callCallback(t, callbackUrl, flow.cookie).expect(302);
    return fragmentOf(response.headers.location as string);
  }

  it('takes the verified primary address from /user/emails, never the profile’s', async () => {
    github.addAccount({
      id: 5001,
      login: 'octo',
      profileEmail: 'someone-else@example.com',
      emails: [
        { email: 'unverified@example.com', primary: false, verified: false },
        { email: 'octo@example.com', primary: true, verified: true },
      ],
    });
    const session = await exchange(t, (await signInAs(5001)).get('code')!).expect(200);
    const me = await t.http.get(`${PREFIX}/me`).set(bearer(session.body.access_token)).expect(200);
    expect(me.body.email).to.equal('octo@example.com');
  });

  it('makes no account from an address GitHub has not verified', async () => {
    github.addAccount({
      id: 5002,
      login: 'unsure',
      emails: [{ email: 'unsure@example.com', primary: true, verified: false }],
    });
    const fragment = await signInAs(5002);
    // No verified address at all: no account can be made from it.
    expect(fragment.get('error')).to.equal('email_required');
  });
});

describe('what a provider sign-in stores (SQLite file)', function () {
  this.timeout(30_000);
  let idp: TestOidcProvider;
  let opened: OpenedTestStore;
  let t: TestApp;

  before(async () => {
    idp = await startTestProvider();
    opened = await TEST_STORES.find((kind) => kind.name === 'SQLite')!.open();
    t = buildTestApp({ store: opened.store });
    configureOidc(oidcOptions(idp));
  });
  after(async () => {
    await resolveAccountService().drain();
    await opened?.close();
    await idp?.close();
  });

  it('keeps no state, nonce, browser secret, one-time code or client secret in usable form', async () => {
    idp.addAccount({ sub: 'stored-1', email: 'stored@idp.example', email_verified: true });
    const flow = await startFlow(t);
    const authorization = new URL(flow.authorizationUrl);
    const state = authorization.searchParams.get('state')!;
    const nonce = authorization.searchParams.get('nonce')!;
    const browserSecret = flow.cookie.split('=')[1];
    // A second flow left waiting: its row is in the database while we look.
    const waiting = await startFlow(t);
    const waitingState = new URL(waiting.authorizationUrl).searchParams.get('state')!;
    const callbackUrl = await idp.authorize(flow.authorizationUrl, { as: 'stored-1' });
    const code = fragmentOf(
      (await callCallback(t, callbackUrl, flow.cookie).expect(302)).headers.location as string,
    ).get('code')!;
    const providerCode = new URL(callbackUrl).searchParams.get('code')!;

    const filename = (opened.store as unknown as { filename?: string }).filename;
    const bytes = readDatabase(filename);
    for (const [name, secret] of Object.entries({
      state,
      nonce,
      browserSecret,
      waitingState,
      code,
      providerCode,
      clientSecret: CLIENT.clientSecret,
    })) {
      expect(bytes.includes(secret), `${name} is stored as given`).to.equal(false);
    }
    await exchange(t, code).expect(200);
  });
});

/** The database file and its write-ahead log, as one string: whatever a copy of the disk would show. */
function readDatabase(filename: string | undefined): string {
  expect(filename, 'the SQLite store names its file').to.be.a('string');
  return [filename!, `${filename}-wal`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1'))
    .join('');
}
