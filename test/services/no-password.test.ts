import { expect } from 'chai';
import { watchArgon2 } from '../security/support/argon2-calls';
import { makeHarness, STRONG_PASSWORD, type Harness } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { freshStoreEachTest, TEST_STORES } from '../support/test-stores';

/** A verified account with no password credential, made through the store (no route makes one yet). */
async function accountWithoutPassword(h: Harness, username: string): Promise<void> {
  const now = h.clock.now();
  const id = `id-${username}`;
  const email = `${username}@example.com`;
  const user = { id, username, usernameKey: username, email, emailKey: email, passwordHash: null, createdAt: now };
  const expiresAt = new Date(now.getTime() + 60_000);
  const verification = { tokenHash: `verify-${username}`, userId: id, purpose: 'verify_email' as const, expiresAt };
  const created = await h.store.transaction((tx) => tx.users.create(user, verification));
  expect(created.ok).to.equal(true);
  expect(await h.store.transaction((tx) => tx.users.confirmAddress(`verify-${username}`, now))).to.not.equal(null);
}

/** What a password login as `username` answers, and how many argon2 calls it made. */
async function refusedLogin(h: Harness, username: string) {
  const argon2 = watchArgon2();
  try {
    const error = await expectAccountError(h.accounts.login(username, STRONG_PASSWORD), 'invalid_credentials');
    return { error: { code: error.code, message: error.message }, argon2Calls: argon2.count };
  } finally {
    argon2.restore();
  }
}

for (const kind of TEST_STORES) {
  describe(`an account without a password (${kind.name})`, () => {
    let h: Harness;
    freshStoreEachTest(kind, (store) => {
      h = makeHarness({ store });
    });

    it('answers a password login exactly as a wrong password, after the same argon2 work as an unknown user', async () => {
      await h.createVerifiedUser('alice', 'alice@example.com', `${STRONG_PASSWORD}-other`);
      await accountWithoutPassword(h, 'ghost');
      // The dummy hash is made once, on first use: made here, so that every login below costs one verification.
      await expectAccountError(h.accounts.login('nobody', STRONG_PASSWORD), 'invalid_credentials');

      const wrong = await refusedLogin(h, 'alice');
      const unknown = await refusedLogin(h, 'nobody');
      const noPassword = await refusedLogin(h, 'ghost');
      expect(noPassword).to.deep.equal(wrong);
      expect(noPassword).to.deep.equal(unknown);
      expect(noPassword.argon2Calls).to.equal(1);
      expect(await h.store.passwords.hashOf('id-ghost')).to.equal(null);
    });

    it('gets a password from a reset, and signs in with it', async () => {
      await accountWithoutPassword(h, 'ghost');
      await h.accounts.requestPasswordReset('ghost@example.com');
      await h.accounts.drain();
      await h.accounts.confirmPasswordReset(h.sender.lastToken('sendPasswordReset'), STRONG_PASSWORD);
      expect(await h.accounts.login('ghost', STRONG_PASSWORD)).to.match(/^[A-Za-z0-9_-]{43}$/);
    });
  });
}
