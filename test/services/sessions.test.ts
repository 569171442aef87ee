import { expect } from 'chai';
import { TokenHasher } from '../../src/services/token-hasher';
import { makeHarness, OTHER_PASSWORD, STRONG_PASSWORD, TEST_SECRET } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { DAY, HOUR, MINUTE } from '../support/manual-clock';

describe('AccountService: login and sessions', () => {
  it('refuses an unverified user only after a correct password, creating no session', async () => {
    const h = makeHarness();
    await h.accounts.register({ username: 'alice', email: 'alice@example.com', password: STRONG_PASSWORD });
    const user = await h.store.users.findByUsernameKey('alice');
    await expectAccountError(h.accounts.login('alice', OTHER_PASSWORD), 'invalid_credentials');
    await expectAccountError(h.accounts.login('alice', STRONG_PASSWORD), 'unverified_user');
    // Expiring everything removes what exists: the verification token alone, so no session was created.
    expect(await h.store.deleteExpired({ now: new Date(8.64e15), sessionIdleBefore: new Date(8.64e15) })).to.equal(1);
    expect(user!.verified).to.equal(false);
  });

  it('answers unknown user and wrong password with the same error and message (E1)', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    const unknown = await expectAccountError(h.accounts.login('nobody', STRONG_PASSWORD), 'invalid_credentials');
    const wrong = await expectAccountError(h.accounts.login('alice', OTHER_PASSWORD), 'invalid_credentials');
    expect(unknown.message).to.equal(wrong.message);
  });

  it('mints a new token at every login and accepts any case of the username (S1)', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('Alice');
    const first = await h.accounts.login('alice', STRONG_PASSWORD);
    const second = await h.accounts.login('ALICE', STRONG_PASSWORD);
    expect(first).to.not.equal(second);
    expect((await h.accounts.authenticate(first)).username).to.equal('Alice');
    expect((await h.accounts.authenticate(second)).username).to.equal('Alice');
  });

  it('logout ends only the presented session (S2)', async () => {
    const h = makeHarness();
    const first = await h.loginNewUser('alice');
    const second = await h.accounts.login('alice', STRONG_PASSWORD);
    await h.accounts.logout(first);
    expect(await h.accounts.validateSession(first)).to.equal(null);
    expect(await h.accounts.validateSession(second)).to.not.equal(null);
    await expectAccountError(h.accounts.logout(first), 'invalid_session_token');
  });

  it('logout-all ends every session of that user and nobody else’s (S3)', async () => {
    const h = makeHarness();
    const a1 = await h.loginNewUser('alice');
    const a2 = await h.accounts.login('alice', STRONG_PASSWORD);
    const b1 = await h.loginNewUser('bob');
    await h.accounts.logoutAll(a2);
    expect(await h.accounts.validateSession(a1)).to.equal(null);
    expect(await h.accounts.validateSession(a2)).to.equal(null);
    expect(await h.accounts.validateSession(b1)).to.not.equal(null);
  });

  it('rejects unknown, malformed and foreign-key tokens as invalid sessions', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    await expectAccountError(h.accounts.authenticate('B'.repeat(43)), 'invalid_session_token');
    await expectAccountError(h.accounts.authenticate(token + 'x'), 'invalid_session_token');
    await expectAccountError(h.accounts.authenticate(''), 'invalid_session_token');
    // A new secret key hashes tokens differently: every old session is rejected (spec 5.7).
    const rotated = makeHarness({ store: h.store, options: { secretKey: 'a-completely-different-secret-key-of-40b' } });
    await expectAccountError(rotated.accounts.authenticate(token), 'invalid_session_token');
  });

  it('expires a session idle for 7 days (S6)', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    h.clock.advance(7 * DAY - MINUTE);
    expect(await h.accounts.validateSession(token)).to.not.equal(null);
    h.clock.advance(7 * DAY - MINUTE);
    expect(await h.accounts.validateSession(token)).to.not.equal(null);
    h.clock.advance(7 * DAY);
    expect(await h.accounts.validateSession(token)).to.equal(null);
  });

  it('slides the idle window with use but never past the 30-day absolute cap (S6)', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    for (let day = 5; day < 30; day += 5) {
      h.clock.advance(5 * DAY);
      expect(await h.accounts.validateSession(token), `day ${day}`).to.not.equal(null);
    }
    h.clock.advance(5 * DAY);
    expect(await h.accounts.validateSession(token)).to.equal(null);
  });

  it('writes the idle refresh at most once an hour', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    const tokenHash = new TokenHasher(Buffer.from(TEST_SECRET)).hash(token);
    const lastSeen = async () => (await h.store.sessions.findWithUser(tokenHash))!.session.lastSeenAt.getTime();
    const start = await lastSeen();
    h.clock.advance(59 * MINUTE);
    await h.accounts.validateSession(token);
    expect(await lastSeen()).to.equal(start);
    h.clock.advance(2 * MINUTE);
    await h.accounts.validateSession(token);
    expect(await lastSeen()).to.equal(start + 61 * MINUTE);
    h.clock.advance(HOUR / 2);
    await h.accounts.validateSession(token);
    expect(await lastSeen()).to.equal(start + 61 * MINUTE);
  });
});
