import { expect } from 'chai';
import { createAccountService } from '../../src/di/create-account-service';
import type { AccountService } from '../../src/services/account-service';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import type { TestOidcProvider } from '../support/oidc-provider';
import { createTestDatabase, type TestDatabase } from '../support/postgres-database';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { requireService } from '../support/services';
import { PASSWORD, TEST_SECRET } from '../support/test-app';
import { oidcOptions, PROVIDER_ID, startTestProvider } from './oidc-support';

const CHEAP = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

/** The code of a return URL's fragment; fails on an error fragment. */
function codeOf(redirectTo: string): string {
  const fragment = new URLSearchParams(redirectTo.slice(redirectTo.indexOf('#') + 1));
  const code = fragment.get('code');
  expect(code, redirectTo).to.be.a('string');
  return code!;
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: { code?: string }) => error.code ?? String(error),
  );

// Two instances of Gatehouse on one PostgreSQL database, as two processes behind a load balancer: a flow started on
// one comes back to the other, because it lives in the database; and what races between them is decided there.
describe('OpenID provider flows across two instances on one PostgreSQL database', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let stores: PostgresUserStore[] = [];
  let one: AccountService;
  let other: AccountService;
  let sender: RecordingEmailSender;
  let idp: TestOidcProvider;
  let counter = 0;

  before(async function () {
    await requireService(this, 'postgres');
    idp = await startTestProvider();
    database = await createTestDatabase('oidc');
    stores = [
      await PostgresUserStore.open({ connectionString: database.url }),
      await PostgresUserStore.open({ connectionString: database.url }),
    ];
    sender = new RecordingEmailSender();
    const options = { secretKey: TEST_SECRET, hashing: CHEAP, oidc: oidcOptions(idp) };
    [one, other] = stores.map((store) => createAccountService({ store, sender, options }));
  });

  after(async () => {
    await one?.drain();
    await other?.drain();
    for (const store of stores) await store.close();
    await database?.drop();
    await idp?.close();
  });

  function person(email?: string) {
    counter += 1;
    const sub = `pg-${counter}-${Date.now()}`;
    idp.addAccount({ sub, email: email ?? `pg${counter}@idp.example`, email_verified: true });
    return sub;
  }

  /** A flow started on `start` and authorized at the provider: the callback URL and the browser's secret. */
  async function authorized(start: AccountService, sub: string) {
    const flow = await start.oidc.startSignIn(PROVIDER_ID, undefined);
    const callbackUrl = new URL(await idp.authorize(flow.authorizationUrl, { as: sub }));
    return { callbackUrl, browserSecret: flow.browserSecret };
  }

  it('starts on one instance, takes the callback on the other, and exchanges on the first', async () => {
    const sub = person();
    const { callbackUrl, browserSecret } = await authorized(one, sub);
    const { redirectTo } = await other.oidc.callback(PROVIDER_ID, callbackUrl, browserSecret);
    const result = await one.oidc.exchange(codeOf(redirectTo));
    expect(result.kind).to.equal('session');
  });

  it('lets one of two racing deliveries of a callback through, on either instance', async () => {
    const { callbackUrl, browserSecret } = await authorized(one, person());
    const outcomes = await Promise.all(
      [one, other].map((instance) =>
        instance.oidc.callback(PROVIDER_ID, callbackUrl, browserSecret).then(
          ({ redirectTo }) => redirectTo,
          (error: { code?: string }) => error.code,
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'oidc_flow_invalid')).to.have.length(1);
    const code = codeOf(outcomes.find((outcome) => outcome !== 'oidc_flow_invalid')!);
    // Its code works once, on whichever instance asks first.
    const exchanges = await Promise.all([one, other].map((instance) => refusal(instance.oidc.exchange(code))));
    expect(exchanges.sort()).to.deep.equal(['accepted', 'invalid_oidc_code']);
  });

  it('makes one account of two first sign-ins of one identity at once', async () => {
    const email = `twice${++counter}@idp.example`;
    const sub = person(email);
    const flows = [await authorized(one, sub), await authorized(other, sub)];
    const redirects = await Promise.all(
      flows.map(({ callbackUrl, browserSecret }, i) =>
        [one, other][i].oidc.callback(PROVIDER_ID, callbackUrl, browserSecret),
      ),
    );
    const sessions = await Promise.all(redirects.map(({ redirectTo }) => one.oidc.exchange(codeOf(redirectTo))));
    const users = await Promise.all(
      sessions.map(async (result) => {
        expect(result.kind).to.equal('session');
        return (await one.authenticateSession((result as { token: string }).token)).user.id;
      }),
    );
    expect(users[0]).to.equal(users[1]);
    // The loser's account went with its transaction: nothing else claims the address.
    expect((await stores[0].users.findVerifiedByEmailKey(email))?.id).to.equal(users[0]);
    expect(await stores[0].users.findUnverifiedByEmailKey(email, new Date(0), 10)).to.have.length(0);
  });

  it('decides a link racing a first sign-in of the same identity: one account holds it', async () => {
    const sub = person(`raced${++counter}@idp.example`);
    await one.register({ username: `linker${counter}`, email: `linker${counter}@example.com`, password: PASSWORD });
    await one.drain();
    await one.verifyEmail(sender.lastToken('sendVerification', `linker${counter}@example.com`));
    const session = await one.login(`linker${counter}`, PASSWORD);
    const link = await one.oidc.startLink(session, PROVIDER_ID, undefined);
    const linkUrl = new URL(await idp.authorize(link.authorizationUrl, { as: sub }));
    const signIn = await authorized(other, sub);
    const [linked, signedIn] = await Promise.all([
      one.oidc.callback(PROVIDER_ID, linkUrl, link.browserSecret),
      other.oidc.callback(PROVIDER_ID, signIn.callbackUrl, signIn.browserSecret),
    ]);
    const linkOutcome = await refusal(one.oidc.exchange(codeOf(linked.redirectTo)));
    const signInResult = await other.oidc.exchange(codeOf(signedIn.redirectTo));
    expect(signInResult.kind).to.equal('session');
    const signedInAs = (await one.authenticateSession((signInResult as { token: string }).token)).user.username;
    const mine = await one.oidc.identities(session);
    if (linkOutcome === 'accepted') {
      // The link won: the sign-in found the identity linked and signed in to the linker's account.
      expect(signedInAs).to.equal(`linker${counter}`);
      expect(mine).to.have.length(1);
    } else {
      // The sign-in won: its new account holds the identity, and the link was refused.
      expect(linkOutcome).to.equal('identity_already_linked');
      expect(signedInAs).to.not.equal(`linker${counter}`);
      expect(mine).to.have.length(0);
    }
  });
});
