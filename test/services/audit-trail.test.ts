import { expect } from 'chai';
import { OPERATOR, type AdminActor } from '../../src/services/admin-views';
import type { AuditEvent } from '../../src/services/audit-event';
import { makeHarness, OTHER_PASSWORD, STRONG_PASSWORD, type Harness } from '../support/core-harness';
import { expectAccountError } from '../support/expect-account-error';

async function trail(h: Harness, userId?: string): Promise<AuditEvent[]> {
  return (await h.accounts.admin.listAuditEvents(OPERATOR, { userId, limit: 200 })).items;
}

const brief = (events: AuditEvent[]) => events.map((e) => `${e.type}:${e.outcome}`).reverse();

describe('AccountService: the audit trail', () => {
  it('records each security event of an account, with its actor, request id and client address', async () => {
    let origin: { requestId: string; ip: string } | undefined = { requestId: 'req-1', ip: '203.0.113.9' };
    const h = makeHarness({ origin: () => origin });
    await h.createVerifiedUser('alice');
    const aliceId = await h.accounts.admin.userIdOf('alice');
    await expectAccountError(h.accounts.login('alice', 'not the password at all'), 'invalid_credentials');
    const token = await h.accounts.login('alice', STRONG_PASSWORD);
    await h.accounts.changePassword(token, STRONG_PASSWORD, OTHER_PASSWORD);
    const again = await h.accounts.login('alice', OTHER_PASSWORD);
    await h.accounts.logout(again);
    origin = undefined;
    await h.accounts.requestPasswordReset('alice@example.com');
    await h.accounts.drain();
    await h.accounts.confirmPasswordReset(
      h.sender.lastToken('sendPasswordReset', 'alice@example.com'),
      STRONG_PASSWORD,
    );

    const events = await trail(h, aliceId);
    expect(brief(events)).to.deep.equal([
      'register:success',
      'verify_email:success',
      'login:wrong_password',
      'login:success',
      'password_change:success',
      'login:success',
      'logout:success',
      'password_reset_requested:sent',
      'password_reset:success',
    ]);
    for (const event of events) expect(event.subjectId).to.equal(aliceId);
    const login = events.find((e) => e.type === 'login' && e.outcome === 'success')!;
    expect(login).to.include({ actorType: 'user', actorId: aliceId, ip: '203.0.113.9', requestId: 'req-1' });
    const failed = events.find((e) => e.outcome === 'wrong_password')!;
    expect(failed).to.include({ actorType: 'anonymous', actorId: null });
    const reset = events.find((e) => e.type === 'password_reset')!;
    expect(reset).to.include({ ip: null, requestId: null });
  });

  it('a request view (forRequest) puts its request id and address on its own lines and events, and nothing else changes', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('alice');
    const aliceId = await h.accounts.admin.userIdOf('alice');
    const view = h.accounts.forRequest({ requestId: 'req-9', ip: '198.51.100.7' });
    const token = await view.login('alice', STRONG_PASSWORD);
    await h.accounts.logout(token);
    // The view's background work (the reset's lookup) is the service's: one drain waits for both.
    await view.requestPasswordReset('alice@example.com');
    await h.accounts.drain();

    const events = await trail(h, aliceId);
    const login = events.find((e) => e.type === 'login' && e.outcome === 'success')!;
    expect(login).to.include({ requestId: 'req-9', ip: '198.51.100.7' });
    expect(events.find((e) => e.type === 'logout')).to.include({ requestId: null, ip: null });
    expect(events.find((e) => e.type === 'password_reset_requested')).to.include({ requestId: 'req-9' });
    const lines = h.logger.lines as { fields: Record<string, unknown> }[];
    const loginLine = lines.find((line) => line.fields.event === 'login' && line.fields.outcome === 'success')!;
    expect(loginLine.fields).to.include({ requestId: 'req-9', ip: '198.51.100.7' });
    const logoutLine = lines.find((line) => line.fields.event === 'logout')!;
    expect(logoutLine.fields).to.not.have.property('requestId');
    // The same core: what the view did, the service sees.
    expect(await h.accounts.validateSession(token)).to.equal(null);
  });

  it('names the acting administrator, and never holds a token, password, hash or address', async () => {
    const h = makeHarness();
    await h.createVerifiedUser('root');
    await h.accounts.admin.makeAdministrator('root');
    const rootId = await h.accounts.admin.userIdOf('root');
    const root: AdminActor = {
      kind: 'admin',
      user: { id: rootId },
      sessionToken: await h.accounts.login('root', STRONG_PASSWORD),
    };
    const token = await h.loginNewUser('bob', 'bob.secret@example.com');
    const bobId = await h.accounts.admin.userIdOf('bob');
    await h.accounts.admin.disableUser(root, bobId);
    await h.accounts.admin.enableUser(root, bobId);
    await h.accounts.admin.grantRole(root, bobId, 'gatehouse-admin');

    const events = await trail(h, bobId);
    const disabled = events.find((e) => e.type === 'admin.user_disabled')!;
    expect(disabled).to.include({ actorType: 'admin', actorId: rootId, subjectId: bobId, outcome: 'success' });
    expect(events.find((e) => e.type === 'admin.role_granted')!.details).to.deep.equal({ role: 'gatehouse-admin' });
    const operatorGrant = (await trail(h, rootId)).find(
      (e) => e.type === 'admin.role_granted' && e.subjectId === rootId,
    )!;
    expect(operatorGrant).to.include({ actorType: 'operator', actorId: null, subjectId: rootId });

    const bobUser = (await h.store.users.findById(bobId))!;
    const everything = JSON.stringify(await trail(h));
    for (const secret of [
      token,
      STRONG_PASSWORD,
      (await h.store.passwords.hashOf(bobUser.id))!,
      'bob.secret@example.com',
      'bob.secret',
    ]) {
      expect(everything).to.not.include(secret);
    }
  });

  it('records a login of an unknown name without the name typed', async () => {
    const h = makeHarness();
    await expectAccountError(h.accounts.login('my-Passw0rd-typed-here', STRONG_PASSWORD), 'invalid_credentials');
    const [event] = await trail(h);
    expect(event).to.include({ type: 'login', outcome: 'unknown_user', subjectId: null, actorType: 'anonymous' });
    expect(JSON.stringify(event)).to.not.include('Passw0rd');
  });

  it('filters by type and time, pages with a cursor, and the clean-up removes events past the retention', async () => {
    const h = makeHarness({ options: { auditRetentionMs: 60_000 } });
    await h.createVerifiedUser('carol');
    for (let i = 0; i < 5; i += 1) {
      h.clock.advance(1000);
      await h.accounts.login('carol', STRONG_PASSWORD);
    }
    const logins = await h.accounts.admin.listAuditEvents(OPERATOR, { types: ['login'], limit: 2 });
    expect(logins.items).to.have.length(2);
    const rest = await h.accounts.admin.listAuditEvents(OPERATOR, { types: ['login'], cursor: logins.nextCursor! });
    expect(rest.items).to.have.length(3);
    expect(rest.nextCursor).to.equal(null);
    const recent = await h.accounts.admin.listAuditEvents(OPERATOR, {
      types: ['login'],
      since: new Date(h.clock.now().getTime() - 1500),
    });
    expect(recent.items).to.have.length(2);
    // Each read of the trail is recorded, after it (so no page lists its own reading).
    const reads = await h.accounts.admin.listAuditEvents(OPERATOR, { types: ['admin.audit_read'] });
    expect(reads.items.map((event) => [event.actorType, event.details])).to.deep.equal([
      ['operator', { shown: 2 }],
      ['operator', { shown: 3 }],
      ['operator', { shown: 2 }],
    ]);

    h.clock.advance(61_000);
    await h.accounts.removeExpired();
    expect(await trail(h)).to.deep.equal([]);
  });
});
