import { expect } from 'chai';
import { NEW_PASSWORD } from '../support/fixtures';
import { makeHarness, OTHER_PASSWORD, STRONG_PASSWORD } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { HOUR, MINUTE } from '../support/manual-clock';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { StoreUnavailableError } from '../../src/errors/store-unavailable-error';

describe('AccountService: password reset, change and account deletion', () => {
  it('emails a reset token only for an existing address, and changes nothing until it is used (R1, R5)', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    await h.accounts.requestPasswordReset('nobody@example.com');
    await h.accounts.requestPasswordReset('not an address');
    await h.accounts.drain();
    expect(h.sender.of('sendPasswordReset')).to.have.length(0);

    await h.accounts.requestPasswordReset('Alice@Example.com');
    await h.accounts.drain();
    expect(h.sender.of('sendPasswordReset')).to.have.length(1);
    expect(h.sender.of('sendPasswordReset')[0]).to.include({ username: 'alice', email: 'alice@example.com' });
    await h.accounts.login('alice', STRONG_PASSWORD);
  });

  describe('a database outage during the lookup after the answer', () => {
    /** A memory store whose email lookup fails as an unreachable database would, the next `failNext(n)` times. */
    function flakyStore() {
      const store = new MemoryUserStore();
      const lookup = store.users.findVerifiedByEmailKey.bind(store.users);
      let failures = 0;
      store.users.findVerifiedByEmailKey = async (emailKey) => {
        if (failures > 0) {
          failures--;
          throw new StoreUnavailableError('connection refused');
        }
        return lookup(emailKey);
      };
      return { store, failNext: (count: number) => void (failures = count) };
    }

    it('retries the reset and resend lookups, so the mail still goes, once', async function () {
      this.timeout(10_000);
      const flaky = flakyStore();
      const h = makeHarness({ store: flaky.store });
      await h.createVerifiedUser('alice');
      await h.accounts.register({ username: 'bob', email: 'bob@example.com', password: STRONG_PASSWORD });
      await h.accounts.drain();

      flaky.failNext(2);
      await h.accounts.requestPasswordReset('alice@example.com');
      await h.accounts.drain(); // 1 s, then 2 s of waiting
      expect(h.sender.of('sendPasswordReset', 'alice@example.com')).to.have.length(1);

      flaky.failNext(1);
      await h.accounts.resendVerification('bob@example.com');
      await h.accounts.drain();
      expect(h.sender.of('sendVerification', 'bob@example.com')).to.have.length(2);
      expect(h.logger.lines.filter((line) => line.message === 'background task failed')).to.have.length(0);
    });

    it('gives up at once on stopRetries(), for a shutdown, and logs it', async () => {
      const flaky = flakyStore();
      const h = makeHarness({ store: flaky.store });
      flaky.failNext(100);
      await h.accounts.requestPasswordReset('alice@example.com');
      await new Promise((resolve) => setTimeout(resolve, 20));
      const started = Date.now();
      h.accounts.stopRetries();
      await h.accounts.drain();
      // The retries would go on for 15 s; giving up at once is far inside this.
      expect(Date.now() - started).to.be.below(2_000);
      const failed = h.logger.lines.filter((line) => line.message === 'background task failed');
      expect(failed).to.have.length(1);
      expect(failed[0].fields).to.deep.include({ task: 'request_password_reset' });
    });
  });

  it('resets the password, ends every session, spends the token and sends a notice (R4)', async () => {
    const h = makeHarness();
    const session = await h.loginNewUser('alice');
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    const token = h.sender.lastToken('sendPasswordReset');

    await h.accounts.confirmPasswordReset(token, NEW_PASSWORD);
    await h.accounts.drain();
    expect(await h.accounts.validateSession(session)).to.equal(null);
    await expectAccountError(h.accounts.login('alice', STRONG_PASSWORD), 'invalid_credentials');
    await h.accounts.login('alice', NEW_PASSWORD);
    await expectAccountError(h.accounts.confirmPasswordReset(token, OTHER_PASSWORD), 'invalid_password_reset_token');
    const notice = h.sender.of('sendPasswordChanged');
    expect(notice).to.deep.equal([{ operation: 'sendPasswordChanged', username: 'alice', email: 'alice@example.com' }]);
  });

  it('judges the new password before spending the token (R3)', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    const token = h.sender.lastToken('sendPasswordReset');
    await expectAccountError(h.accounts.confirmPasswordReset(token, 'short'), 'weak_password');
    await h.accounts.confirmPasswordReset(token, NEW_PASSWORD);
  });

  it('expires reset tokens after an hour and lets a new request supersede the old one (T4, T5)', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    const first = h.sender.lastToken('sendPasswordReset');
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    const second = h.sender.lastToken('sendPasswordReset');
    await expectAccountError(h.accounts.confirmPasswordReset(first, NEW_PASSWORD), 'invalid_password_reset_token');

    h.clock.advance(HOUR + MINUTE);
    await expectAccountError(h.accounts.confirmPasswordReset(second, NEW_PASSWORD), 'invalid_password_reset_token');
    await expectAccountError(h.accounts.confirmPasswordReset('garbage', NEW_PASSWORD), 'invalid_password_reset_token');
  });

  it('lets exactly one of several concurrent confirms of one token win (C2)', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    const token = h.sender.lastToken('sendPasswordReset');
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => h.accounts.confirmPasswordReset(token, `${NEW_PASSWORD} variant ${i}`)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
  });

  it('changes the password with the current one, ending every session and outstanding reset tokens (P7, T5)', async () => {
    const h = makeHarness();
    const session = await h.loginNewUser('alice');
    const other = await h.accounts.login('alice', STRONG_PASSWORD);
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    const resetToken = h.sender.lastToken('sendPasswordReset');

    await expectAccountError(h.accounts.changePassword(session, OTHER_PASSWORD, NEW_PASSWORD), 'invalid_credentials');
    await expectAccountError(h.accounts.changePassword(session, STRONG_PASSWORD, 'tiny'), 'weak_password');
    await expectAccountError(h.accounts.changePassword(session, STRONG_PASSWORD, STRONG_PASSWORD), 'weak_password');
    await h.accounts.changePassword(session, STRONG_PASSWORD, NEW_PASSWORD);
    await h.accounts.drain();

    expect(await h.accounts.validateSession(session)).to.equal(null);
    expect(await h.accounts.validateSession(other)).to.equal(null);
    await expectAccountError(
      h.accounts.confirmPasswordReset(resetToken, OTHER_PASSWORD),
      'invalid_password_reset_token',
    );
    await expectAccountError(h.accounts.login('alice', STRONG_PASSWORD), 'invalid_credentials');
    await h.accounts.login('alice', NEW_PASSWORD);
    expect(h.sender.of('sendPasswordChanged')).to.have.length(1);
    await expectAccountError(h.accounts.changePassword(session, NEW_PASSWORD, OTHER_PASSWORD), 'invalid_session_token');
  });

  it('deletes the account with the password; sessions die first and the notice follows the deletion (S5)', async () => {
    const h = makeHarness();
    const session = await h.loginNewUser('alice');
    const bob = await h.loginNewUser('bob');
    await expectAccountError(h.accounts.deleteAccount(session, OTHER_PASSWORD), 'invalid_credentials');
    expect(await h.accounts.validateSession(session)).to.not.equal(null);

    let userAtSendTime: unknown = 'not sent';
    h.sender.onSend = async (message) => {
      if (message.operation === 'sendAccountDeleted') userAtSendTime = await h.store.users.findByUsernameKey('alice');
    };
    await h.accounts.deleteAccount(session, STRONG_PASSWORD);
    await h.accounts.drain();

    expect(userAtSendTime).to.equal(null);
    expect(h.sender.of('sendAccountDeleted')).to.deep.equal([
      { operation: 'sendAccountDeleted', username: 'alice', email: 'alice@example.com' },
    ]);
    await expectAccountError(h.accounts.authenticate(session), 'invalid_session_token');
    await expectAccountError(h.accounts.login('alice', STRONG_PASSWORD), 'invalid_credentials');
    expect(await h.accounts.validateSession(bob)).to.not.equal(null);
    // The name and address are free again.
    await h.accounts.register({ username: 'alice', email: 'alice@example.com', password: STRONG_PASSWORD });
  });
});
