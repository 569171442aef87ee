import { expect } from 'chai';
import { createAccountService } from '../../src/di/create-account-service';
import type { AccountService } from '../../src/services/account-service';
import { PostgresUserStore } from '../../src/stores/postgres-user-store';
import { requireChromium } from '../browser/chromium';
import { createTestDatabase, type TestDatabase } from '../support/postgres-database';
import { RecordingEmailSender } from '../support/recording-email-sender';
import { requireService } from '../support/services';
import { PASSWORD, TEST_SECRET } from '../support/test-app';
import { WebAuthnHarness } from '../support/virtual-authenticator';

const CHEAP = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

// Two instances of Gatehouse on one PostgreSQL database, each with its own pool and core, as two processes behind a
// load balancer are: a ceremony started on one finishes on the other, because its challenge lives in the database.
describe('passkeys across two instances on one PostgreSQL database', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let stores: PostgresUserStore[] = [];
  let one: AccountService;
  let other: AccountService;
  let sender: RecordingEmailSender;
  let webauthn: WebAuthnHarness;

  before(async function () {
    requireChromium(this);
    await requireService(this, 'postgres');
    webauthn = await WebAuthnHarness.start();
    database = await createTestDatabase('passkeys');
    stores = [
      await PostgresUserStore.open({ connectionString: database.url }),
      await PostgresUserStore.open({ connectionString: database.url }),
    ];
    sender = new RecordingEmailSender();
    const options = {
      secretKey: TEST_SECRET,
      hashing: CHEAP,
      passkeys: { rpId: 'localhost', origins: [webauthn.origin] },
    };
    [one, other] = stores.map((store) => createAccountService({ store, sender, options }));
  });

  after(async () => {
    await one?.drain();
    await other?.drain();
    for (const store of stores) await store.close();
    await database?.drop();
    await webauthn?.close();
  });

  it('registers on one and signs in on the other, each ceremony crossing over once', async () => {
    await one.register({ username: 'ivan', email: 'ivan@example.com', password: PASSWORD });
    await one.drain();
    await other.verifyEmail(sender.lastToken('sendVerification', 'ivan@example.com'));
    const session = await one.login('ivan', PASSWORD);

    const creation = await one.passkeys.registrationOptions(session);
    const added = await other.passkeys.register(session, await webauthn.create(creation), 'Phone');
    expect(added.name).to.equal('Phone');
    // The challenge went with the first verify: the same registration again, on either instance, is refused.
    const again = await webauthn.create(await other.passkeys.registrationOptions(session)).catch(() => null);
    expect(again).to.equal(null);

    const request = await other.passkeys.signInOptions();
    const assertion = await webauthn.get(request);
    const signedIn = await one.passkeys.signIn(assertion);
    expect(signedIn.kind).to.equal('session');
    let replayed = 'accepted';
    await other.passkeys.signIn(assertion).catch((error: { code?: string }) => (replayed = error.code ?? 'error'));
    expect(replayed).to.equal('invalid_credentials');
    expect(await other.passkeys.list(session)).to.have.length(1);
  });
});
