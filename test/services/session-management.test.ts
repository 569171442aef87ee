import { expect } from 'chai';
import { makeHarness, OTHER_PASSWORD, STRONG_PASSWORD } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';
import { MINUTE } from '../support/manual-clock';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0';
const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 ' +
  'Mobile/15E148 Safari/604.1';

describe('AccountService: sessions you can see and end', () => {
  it('lists the live sessions newest first, with where each came from and which one asked', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    const laptop = await h.accounts.login('alice', STRONG_PASSWORD, { ip: '203.0.113.7', userAgent: FIREFOX });
    h.clock.advance(MINUTE);
    const phone = await h.accounts.login('alice', STRONG_PASSWORD, { ip: '198.51.100.2', userAgent: SAFARI });
    await h.loginNewUser('bob');

    const fromLaptop = await h.accounts.sessions.list(laptop);
    expect(fromLaptop.map((s) => [s.ip, s.userAgent, s.current])).to.deep.equal([
      ['198.51.100.2', SAFARI, false],
      ['203.0.113.7', FIREFOX, true],
    ]);
    const fromPhone = await h.accounts.sessions.list(phone);
    expect(fromPhone.map((s) => s.current)).to.deep.equal([true, false]);
    expect(fromPhone.map((s) => s.id)).to.deep.equal(fromLaptop.map((s) => s.id));
    for (const view of fromPhone) {
      expect(view.id).to.match(/^[0-9a-f-]{36}$/);
      expect(JSON.stringify(view)).to.not.include(phone).and.not.include(laptop);
    }
  });

  it('keeps a bounded user agent without control characters, and nulls for what the client did not send', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    const long = await h.accounts.login('alice', STRONG_PASSWORD, { userAgent: `A\u0000B\r\n${'x'.repeat(2000)}` });
    h.clock.advance(1000);
    const bare = await h.accounts.login('alice', STRONG_PASSWORD);
    const [newest, oldest] = await h.accounts.sessions.list(long);
    expect(newest.userAgent).to.equal(null);
    expect(newest.ip).to.equal(null);
    expect(oldest.userAgent).to.have.length(512);
    expect(oldest.userAgent!.startsWith('ABxxx')).to.equal(true);
    expect((await h.accounts.sessions.list(bare))[0].current).to.equal(true);
  });

  it('ends one of your sessions by id: its token fails at once, the others keep working', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    const first = await h.accounts.login('alice', STRONG_PASSWORD);
    const second = await h.accounts.login('alice', STRONG_PASSWORD);
    const target = (await h.accounts.sessions.list(first)).find((s) => !s.current)!;
    await h.accounts.sessions.end(first, target.id);
    expect(await h.accounts.validateSession(second)).to.equal(null);
    expect(await h.accounts.validateSession(first)).to.not.equal(null);
    expect(h.logger.events('session_ended')).to.have.length(1);
  });

  it("answers an unknown id and someone else's session with the same session_not_found", async () => {
    const h = makeHarness();
    const alice = await h.loginNewUser('alice');
    const bob = await h.loginNewUser('bob');
    const bobsId = (await h.accounts.sessions.list(bob))[0].id;
    const foreign = await expectAccountError(h.accounts.sessions.end(alice, bobsId), 'session_not_found');
    const unknown = await expectAccountError(
      h.accounts.sessions.end(alice, '00000000-0000-4000-8000-000000000000'),
      'session_not_found',
    );
    expect(foreign.message).to.equal(unknown.message);
    expect(await h.accounts.validateSession(bob)).to.not.equal(null);
  });

  it('needs a recent password to end another session, but not to end this one', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    const first = await h.accounts.login('alice', STRONG_PASSWORD);
    h.clock.advance(1000);
    const second = await h.accounts.login('alice', STRONG_PASSWORD);
    h.clock.advance(10 * MINUTE);
    const [secondView, firstView] = await h.accounts.sessions.list(first);
    await expectAccountError(h.accounts.sessions.end(first, secondView.id), 'reauthentication_required');
    await expectAccountError(h.accounts.sessions.endOthers(first), 'reauthentication_required');
    expect(await h.accounts.validateSession(second)).to.not.equal(null);

    await h.accounts.sessions.end(first, firstView.id);
    expect(await h.accounts.validateSession(first)).to.equal(null);
  });

  it('re-authentication opens the window again; a wrong password does not', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    const token = await h.accounts.login('alice', STRONG_PASSWORD);
    await h.accounts.login('alice', STRONG_PASSWORD);
    await h.accounts.login('alice', STRONG_PASSWORD);
    h.clock.advance(11 * MINUTE);
    await expectAccountError(h.accounts.sessions.reauthenticate(token, OTHER_PASSWORD), 'invalid_credentials');
    await expectAccountError(h.accounts.sessions.endOthers(token), 'reauthentication_required');

    const { authenticatedUntil } = await h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD);
    expect(authenticatedUntil.getTime()).to.equal(h.clock.now().getTime() + 10 * MINUTE);
    expect(await h.accounts.sessions.endOthers(token)).to.equal(2);
    expect(await h.accounts.sessions.list(token)).to.have.length(1);
    h.clock.advance(10 * MINUTE);
    await expectAccountError(h.accounts.sessions.endOthers(token), 'reauthentication_required');
  });

  it('the window is an option', async () => {
    const h = makeHarness({ options: { reauthenticationWindowMs: MINUTE } });
    const token = await h.loginNewUser('alice');
    h.clock.advance(MINUTE);
    await expectAccountError(h.accounts.sessions.endOthers(token), 'reauthentication_required');
  });

  it('a session ended by a password change cannot re-authenticate', async () => {
    const h = makeHarness();
    const token = await h.loginNewUser('alice');
    const other = await h.accounts.login('alice', STRONG_PASSWORD);
    await h.accounts.changePassword(other, STRONG_PASSWORD, `${STRONG_PASSWORD} again`);
    await expectAccountError(h.accounts.sessions.reauthenticate(token, STRONG_PASSWORD), 'invalid_session_token');
  });

  it('an operator lists and ends the sessions of a user by username', async () => {
    const h = makeHarness();
    const first = await h.loginNewUser('alice');
    h.clock.advance(1000);
    const second = await h.accounts.login('alice', STRONG_PASSWORD, { ip: '192.0.2.1' });
    const listed = await h.accounts.sessions.listOf('ALICE');
    expect(listed.map((s) => [s.ip, s.current])).to.deep.equal([
      ['192.0.2.1', false],
      [null, false],
    ]);
    await h.accounts.sessions.endOf('alice', listed[0].id);
    expect(await h.accounts.validateSession(second)).to.equal(null);
    await expectAccountError(h.accounts.sessions.endOf('alice', listed[0].id), 'session_not_found');
    expect(await h.accounts.sessions.endAllOf('alice')).to.equal(1);
    expect(await h.accounts.validateSession(first)).to.equal(null);
    await expectAccountError(h.accounts.sessions.listOf('nobody'), 'account_error');
  });
});
