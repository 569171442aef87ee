import { expect } from 'chai';
import { watchArgon2 } from '../security/support/argon2-calls';
import { makeHarness, STRONG_PASSWORD } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { CHEAP_HASHING } from '../support/fixtures';
import { PasswordHasher } from '../../src/services/password-hasher';

describe('AccountService: password policy and hashing', () => {
  it('salts every hash with 16 fresh random bytes, and verifies what it hashed', async () => {
    const hasher = new PasswordHasher({ ...CHEAP_HASHING, parallelism: 1 }, { concurrency: 2, maxQueued: 4 });
    const [first, second] = await Promise.all([hasher.hash(STRONG_PASSWORD), hasher.hash(STRONG_PASSWORD)]);
    const saltOf = (phc: string) => Buffer.from(phc.split('$')[4], 'base64');
    expect(saltOf(first)).to.have.length(16);
    expect(saltOf(second)).to.have.length(16);
    expect(saltOf(first).equals(saltOf(second)), 'two salts alike').to.equal(false);
    expect(first).to.not.equal(second);
    expect(await hasher.verify(first, STRONG_PASSWORD)).to.equal(true);
    expect(await hasher.verify(second, STRONG_PASSWORD + '!')).to.equal(false);
  });

  it('counts length in code points after NFKC: 12 emoji pass, 11 are weak_password (P1, P4)', async () => {
    const h = makeHarness();
    const twelve = '🦊🐙🌵🎻🚲🧭🪁🍄🛶🦉🧩🪐';
    await h.accounts.register({ username: 'emoji', email: 'emoji@example.com', password: twelve });
    const error = await expectAccountError(
      h.accounts.register({ username: 'emoji2', email: 'emoji2@example.com', password: [...twelve].slice(1).join('') }),
      'weak_password',
    );
    expect(error.message).to.include('12');
  });

  it('refuses more than 128 code points, and never truncates (P2, P3)', async () => {
    const h = makeHarness();
    await expectAccountError(
      h.accounts.register({ username: 'long', email: 'long@example.com', password: 'x'.repeat(129) }),
      'weak_password',
    );
    const hundred = 'p'.repeat(60) + ' distinct ending of a long phrase Q'.padEnd(40, '!');
    await h.createVerifiedUser('trunc', 'trunc@example.com', hundred);
    await h.accounts.login('trunc', hundred);
    await expectAccountError(h.accounts.login('trunc', hundred.slice(0, -1) + '?'), 'invalid_credentials');
  });

  it('refuses a megabyte password at login without hashing it, with the ordinary answer', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    const argon2 = watchArgon2();
    try {
      await expectAccountError(h.accounts.login('alice', 'x'.repeat(1 << 20)), 'invalid_credentials');
    } finally {
      argon2.restore();
    }
    expect(argon2.count, 'argon2 calls').to.equal(0);
  });

  it('treats composed and decomposed accents as the same password (P5)', async () => {
    const h = makeHarness();
    const composed = 'caf\u00e9 au lait sans sucre';
    await h.createVerifiedUser('accent', 'accent@example.com', composed);
    const token = await h.accounts.login('accent', 'cafe\u0301 au lait sans sucre');
    expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses common passwords and the account’s own words, on register, reset and change (P6)', async () => {
    const h = makeHarness();
    for (const password of ['passwordpassword', '123456789012', 'Qwertyuiop123']) {
      await expectAccountError(
        h.accounts.register({ username: 'alice', email: 'alice@example.com', password }),
        'weak_password',
      );
    }
    await expectAccountError(
      h.accounts.register({ username: 'zebrafish', email: 'z@example.com', password: 'my ZebraFish is great' }),
      'weak_password',
    );
    await expectAccountError(
      h.accounts.register({ username: 'alice', email: 'marigold@example.com', password: 'marigold forever 2026' }),
      'weak_password',
    );

    const session = await h.loginNewUser('charlie', 'charlie@example.com');
    await expectAccountError(
      h.accounts.changePassword(session, STRONG_PASSWORD, 'charlie the great one'),
      'weak_password',
    );
    await h.accounts.requestPasswordReset('charlie@example.com');
    await h.accounts.drain();
    await expectAccountError(
      h.accounts.confirmPasswordReset(h.sender.lastToken('sendPasswordReset'), 'password1234'),
      'weak_password',
    );
  });

  it('refuses control characters and U+FFFD, which undecodable input turns into', async () => {
    const h = makeHarness();
    for (const password of [
      '\uFFFD\uFFFD\uFFFD secret words here',
      'tab\tseparated words here',
      'nul\u0000 inside words here',
    ]) {
      await expectAccountError(
        h.accounts.register({ username: 'alice', email: 'alice@example.com', password }),
        'weak_password',
      );
    }
  });

  it('rehashes on login when the argon2 parameters were raised (P8)', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    const before = await h.accounts.login('alice', STRONG_PASSWORD);
    const stronger = makeHarness({ store: h.store, options: { hashing: { memoryCost: 24_576 } } });
    await stronger.accounts.login('alice', STRONG_PASSWORD);
    const user = await h.store.users.findByUsernameKey('alice');
    expect(await h.store.passwords.hashOf(user!.id)).to.match(/^\$argon2id\$v=19\$m=24576,p=1,t=2\$/);
    // The same password: the credential state stays, and so does every session made under it.
    expect(user!.credentialEpoch).to.equal(0);
    expect(await h.accounts.validateSession(before)).to.not.equal(null);
    await stronger.accounts.login('alice', STRONG_PASSWORD);
  });

  it('requires a secret key of at least 32 bytes', () => {
    expect(() => makeHarness({ options: { secretKey: 'short' } })).to.throw(TypeError, /at least 32/);
  });
});
