import { expect } from 'chai';
import { Harness, makeHarness, OTHER_PASSWORD, STRONG_PASSWORD } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { CHEAP_HASHING, NEW_PASSWORD } from '../support/fixtures';
import { meanwhileBefore } from '../support/store-writes';
import { freshStoreEachTest, TEST_STORES, type TestStoreKind } from '../support/test-stores';

/**
 * Issue 13, finding 2: an operation that checks a session and a password and then writes must check both again inside
 * its write, so that a reset, a change or a logout-all that committed while it verified wins.
 */
function describeCredentialRaces(kind: TestStoreKind): void {
  describe(`AccountService: a credential check and its write cannot be split (${kind.name})`, () => {
    let h: Harness;
    let attacker: string;
    let owner: string;
    freshStoreEachTest(kind, async (store) => {
      h = makeHarness({ store, options: { hashing: CHEAP_HASHING } });
      attacker = await h.loginNewUser('alice');
      owner = await h.accounts.login('alice', STRONG_PASSWORD);
      return () => h.accounts.drain();
    });

    const stillThere = async () => expect(await h.store.users.findByUsernameKey('alice')).to.not.equal(null);

    it('a deletion in flight loses to a reset that locked its holder out', async () => {
      await h.accounts.requestPasswordReset('alice@example.com');
      await h.accounts.drain();
      const reset = h.sender.lastToken('sendPasswordReset');
      meanwhileBefore(h.store, 'users.delete', () => h.accounts.confirmPasswordReset(reset, NEW_PASSWORD));
      await expectAccountError(h.accounts.deleteAccount(attacker, STRONG_PASSWORD), 'invalid_session_token');
      await stillThere();
      await h.accounts.login('alice', NEW_PASSWORD);
    });

    it('a deletion in flight loses to a logout-all', async () => {
      meanwhileBefore(h.store, 'users.delete', () => h.accounts.logoutAll(owner));
      await expectAccountError(h.accounts.deleteAccount(attacker, STRONG_PASSWORD), 'invalid_session_token');
      await stillThere();
      expect(h.logger.lines.map((line) => line.fields)).to.deep.include({
        event: 'account_deleted',
        outcome: 'credentials_changed',
        userId: (await h.store.users.findByUsernameKey('alice'))!.id,
      });
    });

    it('a deletion in flight loses to a password change on another session', async () => {
      // The change ends every session, the attacker's too; the hash check alone would refuse as well.
      meanwhileBefore(h.store, 'users.delete', () => h.accounts.changePassword(owner, STRONG_PASSWORD, NEW_PASSWORD));
      await expectAccountError(h.accounts.deleteAccount(attacker, STRONG_PASSWORD), 'invalid_session_token');
      await stillThere();
    });

    it('a password change in flight loses to a logout-all', async () => {
      meanwhileBefore(h.store, 'passwords.change', () => h.accounts.logoutAll(owner));
      await expectAccountError(
        h.accounts.changePassword(attacker, STRONG_PASSWORD, OTHER_PASSWORD),
        'invalid_session_token',
      );
      await h.accounts.login('alice', STRONG_PASSWORD);
    });

    it('a password change in flight loses to a reset', async () => {
      await h.accounts.requestPasswordReset('alice@example.com');
      await h.accounts.drain();
      const reset = h.sender.lastToken('sendPasswordReset');
      meanwhileBefore(h.store, 'passwords.change', () => h.accounts.confirmPasswordReset(reset, NEW_PASSWORD));
      await expectAccountError(
        h.accounts.changePassword(attacker, STRONG_PASSWORD, OTHER_PASSWORD),
        'invalid_session_token',
      );
      await h.accounts.login('alice', NEW_PASSWORD);
    });

    it('with nothing in between, both still succeed', async () => {
      await h.accounts.changePassword(attacker, STRONG_PASSWORD, NEW_PASSWORD);
      const session = await h.accounts.login('alice', NEW_PASSWORD);
      await h.accounts.deleteAccount(session, NEW_PASSWORD);
      expect(await h.store.users.findByUsernameKey('alice')).to.equal(null);
    });
  });
}

for (const kind of TEST_STORES) describeCredentialRaces(kind);
