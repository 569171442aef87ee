import { expect } from 'chai';
import { USERNAME_EXISTS_MESSAGE } from '../../src/errors/account-error';
import { makeHarness, STRONG_PASSWORD } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { DAY, MINUTE } from '../support/manual-clock';

describe('AccountService: registration and email verification', () => {
  it('creates an unverified user and emails a raw verification token whose hash alone is stored', async () => {
    const h = makeHarness();
    await h.accounts.register({ username: 'alice', email: 'alice@example.com', password: STRONG_PASSWORD });
    await h.accounts.drain();

    const user = await h.store.users.findByUsernameKey('alice');
    expect(user).to.include({ username: 'alice', email: 'alice@example.com', verified: false });
    expect(await h.store.passwords.hashOf(user!.id)).to.match(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    const [mail] = h.sender.of('sendVerification');
    expect(mail).to.include({ username: 'alice', email: 'alice@example.com' });
    expect(mail.token).to.match(/^[A-Za-z0-9_-]{43}$/);
    // The raw token is not a key of the store: only its keyed hash is.
    expect(await h.store.tokens.findUser(mail.token!, 'verify_email', h.clock.now())).to.equal(null);
  });

  it('verifies with the emailed token, once, and notifies the user', async () => {
    const h = makeHarness();
    await h.accounts.register({ username: 'alice', email: 'alice@example.com', password: STRONG_PASSWORD });
    await h.accounts.drain();
    const token = h.sender.lastToken('sendVerification');

    await h.accounts.verifyEmail(token);
    await h.accounts.drain();
    expect((await h.store.users.findByUsernameKey('alice'))!.verified).to.equal(true);
    expect(h.sender.of('sendEmailVerified')).to.have.length(1);
    await expectAccountError(h.accounts.verifyEmail(token), 'invalid_verification_token');
  });

  it('refuses unknown, malformed, expired and wrong-purpose verification tokens', async () => {
    const h = makeHarness();
    await h.accounts.register({ username: 'alice', email: 'alice@example.com', password: STRONG_PASSWORD });
    await h.accounts.drain();
    await expectAccountError(h.accounts.verifyEmail('A'.repeat(43)), 'invalid_verification_token');
    await expectAccountError(h.accounts.verifyEmail('not a token'), 'invalid_verification_token');
    await expectAccountError(h.accounts.verifyEmail(''), 'invalid_verification_token');

    h.clock.advance(DAY);
    await expectAccountError(
      h.accounts.verifyEmail(h.sender.lastToken('sendVerification')),
      'invalid_verification_token',
    );
    expect((await h.store.users.findByUsernameKey('alice'))!.verified).to.equal(false);
  });

  it('does not accept a verification token as a reset token, nor the reverse (T3)', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('bob');
    await h.accounts.register({ username: 'alice', email: 'alice@example.com', password: STRONG_PASSWORD });
    await h.accounts.requestPasswordReset('bob@example.com');
    await h.accounts.drain();
    await expectAccountError(
      h.accounts.confirmPasswordReset(
        h.sender.lastToken('sendVerification', 'alice@example.com'),
        'brand new passphrase 9',
      ),
      'invalid_password_reset_token',
    );
    await expectAccountError(
      h.accounts.verifyEmail(h.sender.lastToken('sendPasswordReset')),
      'invalid_verification_token',
    );
  });

  it('answers a taken username with the 409 message, whatever its case', async () => {
    const h = makeHarness();
    await h.accounts.register({ username: 'alice', email: 'alice@example.com', password: STRONG_PASSWORD });
    const error = await expectAccountError(
      h.accounts.register({ username: 'ALICE', email: 'other@example.com', password: STRONG_PASSWORD }),
      'invalid_username',
    );
    expect(error.message).to.equal(USERNAME_EXISTS_MESSAGE);
  });

  it('stores a registration of an owned address like any other, never confirmable, and tells the owner (E3)', async () => {
    const h = makeHarness();
    await h.accounts.register({ username: 'alice', email: 'alice@example.com', password: STRONG_PASSWORD });
    await h.accounts.drain();
    await h.accounts.verifyEmail(h.sender.lastToken('sendVerification'));
    const result = await h.accounts.register({
      username: 'mallory',
      email: 'ALICE@Example.COM',
      password: STRONG_PASSWORD,
    });
    await h.accounts.drain();
    expect(result).to.equal(undefined);
    expect((await h.store.users.findByUsernameKey('mallory'))?.verified).to.equal(false);
    await expectAccountError(h.accounts.login('mallory', STRONG_PASSWORD), 'unverified_user');
    expect(h.sender.of('sendVerification')).to.have.length(1);
    expect(h.sender.of('sendRegistrationAttempt')).to.deep.equal([
      { operation: 'sendRegistrationAttempt', username: 'alice', email: 'alice@example.com' },
    ]);
    await h.accounts.resendVerification('alice@example.com');
    await h.accounts.drain();
    expect(h.sender.of('sendVerification'), 'no link to an owned address on resend either').to.have.length(1);
  });

  it('rejects invalid usernames and emails with their codes', async () => {
    const h = makeHarness();
    for (const username of ['ab', 'a'.repeat(33), 'has space', '-dash', 'ünïcode', 'semi;colon', "o'neil"]) {
      await expectAccountError(
        h.accounts.register({ username, email: 'x@example.com', password: STRONG_PASSWORD }),
        'invalid_username',
      );
    }
    for (const email of [
      'plain',
      'two@@example.com',
      'a@b@example.com',
      'line\r\nbreak@example.com',
      'comma,x@example.com',
      '"quoted"@example.com',
      'nodot@localhost',
      `${'a'.repeat(65)}@example.com`,
      `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(60)}.com`,
    ]) {
      await expectAccountError(
        h.accounts.register({ username: 'alice', email, password: STRONG_PASSWORD }),
        'invalid_email',
      );
    }
  });

  it('canonicalizes emails with NFKC before validating them (fullwidth @)', async () => {
    const h = makeHarness();
    await h.accounts.register({ username: 'alice', email: 'Alice＠Example.com', password: STRONG_PASSWORD });
    expect((await h.store.users.findByUsernameKey('alice'))!.email).to.equal('Alice@example.com');
  });

  it('resends verification only to an unverified account, superseding the older token', async () => {
    const h = makeHarness();
    await h.accounts.register({ username: 'alice', email: 'alice@example.com', password: STRONG_PASSWORD });
    await h.accounts.drain();
    const first = h.sender.lastToken('sendVerification');

    await h.accounts.resendVerification('ALICE@example.com');
    await h.accounts.drain();
    const second = h.sender.lastToken('sendVerification');
    expect(second).to.not.equal(first);
    await expectAccountError(h.accounts.verifyEmail(first), 'invalid_verification_token');
    await h.accounts.verifyEmail(second);

    await h.accounts.resendVerification('alice@example.com');
    await h.accounts.resendVerification('nobody@example.com');
    await h.accounts.resendVerification('not an email');
    await h.accounts.drain();
    expect(h.sender.of('sendVerification')).to.have.length(2);
  });

  it('keeps the registration when the sender fails, logs it without the token, and retries with the same link', async () => {
    const h = makeHarness();
    h.sender.failWith = new Error('SMTP is down');
    await h.accounts.register({ username: 'alice', email: 'alice@example.com', password: STRONG_PASSWORD });
    await h.accounts.drain();
    expect(await h.store.users.findByUsernameKey('alice')).to.not.equal(null);
    const token = h.sender.lastToken('sendVerification');
    const failure = h.logger.lines.find((line) => (line.fields as { outcome?: string }).outcome === 'retry');
    expect(failure?.level).to.equal('warn');
    expect(failure?.fields).to.include({ event: 'email_delivery', kind: 'verification', attempt: 1 });
    expect(h.logger.text()).to.not.include(token);
    expect(h.logger.text()).to.not.include('alice@example.com');

    // The message waited in the outbox; once the sender works and its retry is due, the same link goes out.
    h.sender.failWith = undefined;
    h.clock.advance(MINUTE);
    await h.accounts.drain();
    expect(h.sender.of('sendVerification').map((mail) => mail.token)).to.deep.equal([token, token]);
    await h.accounts.verifyEmail(token);
  });
});
