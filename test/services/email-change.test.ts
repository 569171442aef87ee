import { expect } from 'chai';
import { makeHarness, STRONG_PASSWORD } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { HOUR, MINUTE } from '../support/manual-clock';
import { OUTBOX_KINDS } from '../../src/services/outbox-message';

describe('AccountService: email change', () => {
  it('mails a link to the new address and a notice to the old; the address changes only when the link is used', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice', 'alice@example.com');
    await h.accounts.emailChanges.request(token, 'Alice.New@Example.com');
    await h.accounts.drain();
    expect(h.sender.of('sendEmailChangeRequested').map((m) => m.email)).to.deep.equal(['alice@example.com']);
    expect(h.sender.of('sendEmailChange').map((m) => [m.username, m.email])).to.deep.equal([
      ['alice', 'Alice.New@example.com'],
    ]);
    expect((await h.accounts.authenticate(token)).email).to.equal('alice@example.com');

    const link = h.sender.lastToken('sendEmailChange');
    expect(await h.accounts.emailChanges.pending(link)).to.deep.equal({
      username: 'alice',
      newEmail: 'Alice.New@example.com',
    });
    await h.accounts.emailChanges.confirm(link);
    await h.accounts.drain();
    const me = await h.accounts.authenticate(token);
    expect(me.email).to.equal('Alice.New@example.com');
    expect(me.verified).to.equal(true);
    expect(h.sender.of('sendEmailChanged').map((m) => m.email)).to.deep.equal(['alice@example.com']);
    await expectAccountError(h.accounts.emailChanges.confirm(link), 'invalid_email_change_token');
    expect(await h.accounts.emailChanges.pending(link)).to.equal(null);
  });

  it('a reset is then mailed to the new address, and the old address has no account', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice', 'alice@example.com');
    await h.accounts.emailChanges.request(token, 'alice@new.example');
    await h.accounts.drain();
    await h.accounts.emailChanges.confirm(h.sender.lastToken('sendEmailChange'));
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.requestPasswordReset('alice@new.example');
    await h.accounts.drain();
    expect(h.sender.of('sendPasswordReset').map((m) => m.email)).to.deep.equal(['alice@new.example']);
  });

  it('ends the other sessions with the change by default, keeping the one that asked', async () => {
    const h = makeHarness();
    const asking = await h.loginNewUser('alice');
    const other = await h.accounts.login('alice', STRONG_PASSWORD);
    await h.accounts.emailChanges.request(asking, 'alice@new.example');
    await h.accounts.drain();
    expect(await h.accounts.validateSession(other)).to.not.equal(null);
    await h.accounts.emailChanges.confirm(h.sender.lastToken('sendEmailChange'));
    expect(await h.accounts.validateSession(other)).to.equal(null);
    expect(await h.accounts.validateSession(asking)).to.not.equal(null);
  });

  it('keeps the other sessions when the person says so', async () => {
    const h = makeHarness();
    const asking = await h.loginNewUser('alice');
    const other = await h.accounts.login('alice', STRONG_PASSWORD);
    await h.accounts.emailChanges.request(asking, 'alice@new.example', { endOtherSessions: false });
    await h.accounts.drain();
    await h.accounts.emailChanges.confirm(h.sender.lastToken('sendEmailChange'));
    expect(await h.accounts.validateSession(other)).to.not.equal(null);
  });

  it('needs a recent password', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    h.clock.advance(10 * MINUTE);
    await expectAccountError(h.accounts.emailChanges.request(token, 'alice@new.example'), 'reauthentication_required');
    await h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD);
    await h.accounts.emailChanges.request(token, 'alice@new.example');
  });

  it('refuses a malformed address and the current one', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice', 'alice@example.com');
    await expectAccountError(h.accounts.emailChanges.request(token, 'not an address'), 'invalid_email');
    await expectAccountError(h.accounts.emailChanges.request(token, 'ALICE@example.com'), 'invalid_email');
  });

  it('answers a taken address like a free one, tells its owner, and sends no link', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('bob', 'bob@example.com');
    const token = await h.loginNewUser('alice', 'alice@example.com');
    const before = h.sender.sent.length;
    await h.accounts.emailChanges.request(token, 'bob@example.com');
    await h.accounts.drain();
    const mail = h.sender.sent.slice(before).map((m) => [m.operation, m.username, m.email]);
    expect(mail).to.have.deep.members([
      ['sendEmailChangeRequested', 'alice', 'alice@example.com'],
      ['sendEmailChangeAttempt', 'bob', 'bob@example.com'],
    ]);
    expect(h.logger.events('email_change_requested').map((e) => e.outcome)).to.deep.equal(['address_owned']);
  });

  it('a new request supersedes the earlier link', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    await h.accounts.emailChanges.request(token, 'first@example.com');
    await h.accounts.drain();
    const first = h.sender.lastToken('sendEmailChange');
    await h.accounts.emailChanges.request(token, 'second@example.com');
    await h.accounts.drain();
    await expectAccountError(h.accounts.emailChanges.confirm(first), 'invalid_email_change_token');
    await h.accounts.emailChanges.confirm(h.sender.lastToken('sendEmailChange'));
    expect((await h.accounts.authenticate(token)).email).to.equal('second@example.com');
  });

  it('the link expires, and a password reset cancels the pending change', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice', 'alice@example.com');
    await h.accounts.emailChanges.request(token, 'late@example.com');
    await h.accounts.drain();
    const late = h.sender.lastToken('sendEmailChange');
    h.clock.advance(HOUR);
    await expectAccountError(h.accounts.emailChanges.confirm(late), 'invalid_email_change_token');

    const fresh = await h.accounts.login('alice', STRONG_PASSWORD);
    await h.accounts.emailChanges.request(fresh, 'attacker@example.com');
    await h.accounts.drain();
    const attackers = h.sender.lastToken('sendEmailChange');
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    await h.accounts.confirmPasswordReset(h.sender.lastToken('sendPasswordReset'), `${STRONG_PASSWORD} anew`);
    await expectAccountError(h.accounts.emailChanges.confirm(attackers), 'invalid_email_change_token');
  });

  it('makes the account the owner of the new address: unverified claims of it end', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    await h.accounts.register({ username: 'squatter', email: 'wanted@example.com', password: STRONG_PASSWORD });
    await h.accounts.drain();
    const squattersLink = h.sender.lastToken('sendVerification', 'wanted@example.com');
    await h.accounts.emailChanges.request(token, 'wanted@example.com');
    await h.accounts.drain();
    await h.accounts.emailChanges.confirm(h.sender.lastToken('sendEmailChange'));
    await expectAccountError(h.accounts.verifyEmail(squattersLink), 'invalid_verification_token');
    expect(await h.store.users.findByUsernameKey('squatter')).to.equal(null);
  });

  it('two confirmations of one link: exactly one changes the address', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    await h.accounts.emailChanges.request(token, 'alice@new.example');
    await h.accounts.drain();
    const link = h.sender.lastToken('sendEmailChange');
    const results = await Promise.allSettled([
      h.accounts.emailChanges.confirm(link),
      h.accounts.emailChanges.confirm(link),
    ]);
    expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
  });

  it('is refused with its own code when the email sender cannot carry it', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    h.sender.kinds = OUTBOX_KINDS.filter((kind) => kind !== 'emailChange');
    await expectAccountError(h.accounts.emailChanges.request(token, 'alice@new.example'), 'email_change_unavailable');
  });

  it('logs the request and the change without a token', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    await h.accounts.emailChanges.request(token, 'alice@new.example');
    await h.accounts.drain();
    const link = h.sender.lastToken('sendEmailChange');
    await h.accounts.emailChanges.confirm(link);
    expect(h.logger.events('email_change').map((e) => e.outcome)).to.deep.equal(['changed']);
    expect(h.logger.text()).to.not.include(link).and.not.include(token);
  });
});
