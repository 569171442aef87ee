import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { StoredEmailChange } from '../../../services/user-store';
import { describe, storedEvent, newUser, token, T0, HOUR_LATER, type ConformanceSuite, passwordOf } from '../support';
import { auditFixtures, type AuditedMethod } from './audit';

/**
 * The audit events of a person's own changes (registration, links, passwords, sessions, email changes, the second
 * factor), each composed with its change in one transaction as the core composes it. The store's results decide
 * whether an event is written and whom it is about: a method that finds its user from a token returns that user.
 */
export function describeAccountAudit(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor } = suite;
  const { write, audited, about, describeAudited } = auditFixtures(suite);

  const emailChange = (userId: string, label: string): StoredEmailChange => ({
    tokenHash: `change-${label}`,
    userId,
    newEmail: `${label}@new.example`,
    newEmailKey: `${label}@new.example`,
    createdAt: new Date(T0),
    expiresAt: new Date(HOUR_LATER),
    endOtherSessions: false,
    keepSessionId: null,
  });
  const enrolled = async (label: string) => {
    const { user } = await registered(label);
    const factor = {
      userId: user.id,
      sealedSecret: 'v1.sealed',
      enabled: false,
      createdAt: new Date(T0),
      enabledAt: null,
      lastUsedStep: null,
    };
    assert.equal(await write((tx) => tx.secondFactors.start(factor)), true);
    return user;
  };
  /** The enabling of `enrolled`'s waiting factor at step 1 with the one recovery code `c1`. */
  const enabling = (userId: string) => ({
    userId,
    sealedSecret: 'v1.sealed',
    step: 1,
    recoveryCodeHashes: ['c1'],
    now: new Date(T0),
  });
  const enabled = async (label: string) => {
    const user = await enrolled(label);
    assert.ok(await write((tx) => tx.secondFactors.enable(enabling(user.id))));
    return user;
  };
  /** The event of a change whose result is its user (or null: no change). */
  const ofUser = (audit: Parameters<typeof about>[0]) => (user: { id: string } | null) =>
    user && { ...audit, subjectId: user.id };

  const methods: AuditedMethod[] = [
    {
      name: 'users.create',
      changed: async (audit) => {
        const user = newUser('alice');
        const result = await audited(
          (tx) => tx.users.create(user, token(user.id, 'verify_email', HOUR_LATER, 'v-alice')),
          (created) => (created.ok ? { ...audit, subjectId: created.user.id } : null),
        );
        assert.ok(result.ok);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        await registered('alice');
        const taken = newUser('alice');
        const result = await audited(
          (tx) => tx.users.create(taken, token(taken.id, 'verify_email', HOUR_LATER, 'v-2')),
          (created) => (created.ok ? { ...audit, subjectId: created.user.id } : null),
        );
        assert.equal(result.ok, false);
      },
    },
    {
      name: 'tokens.replace',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const replaced = await audited(
          (tx) =>
            tx.tokens.replace(token(user.id, 'reset_password', HOUR_LATER, 'r-1'), { kind: 'passwordReset', at: T0 }),
          ofUser(audit),
        );
        assert.equal(replaced?.id, user.id);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        await write((tx) => tx.users.disable(user.id, T0));
        const replaced = await audited(
          (tx) =>
            tx.tokens.replace(token(user.id, 'reset_password', HOUR_LATER, 'r-1'), { kind: 'passwordReset', at: T0 }),
          ofUser(audit),
        );
        assert.equal(replaced, null);
        assert.equal(await suite.store.tokens.findUser('r-1', 'reset_password', T0), null, 'a disabled user gets none');
      },
    },
    {
      name: 'users.confirmAddress (subject from the token)',
      changed: async (audit) => {
        const { user, verificationHash } = await registered('alice');
        assert.ok(await audited((tx) => tx.users.confirmAddress(verificationHash, T0), ofUser(audit)));
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        await registered('alice');
        assert.equal(await audited((tx) => tx.users.confirmAddress('no-such-token', T0), ofUser(audit)), null);
      },
    },
    {
      name: 'passwords.reset (subject from the token)',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const reset = await resetTokenFor(user.id, 'alice');
        assert.ok(await audited((tx) => tx.passwords.reset(reset, 'new-hash', T0), ofUser(audit)));
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        await resetTokenFor(user.id, 'alice');
        assert.equal(await audited((tx) => tx.passwords.reset('reset-other', 'new-hash', T0), ofUser(audit)), null);
      },
    },
    {
      name: 'passwords.change',
      changed: async (audit) => {
        const { user } = await registered('alice');
        assert.ok(await audited((tx) => tx.passwords.change(user.id, passwordOf(user), 'new', T0), ofUser(audit)));
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await audited((tx) => tx.passwords.change(user.id, 'stale', 'new', T0), ofUser(audit)), null);
      },
    },
    {
      name: 'users.delete',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const deleted = await audited(
          (tx) => tx.users.delete(user.id, audit.at),
          (result) => (result.outcome === 'deleted' ? { ...audit, subjectId: result.user.id } : null),
        );
        assert.equal(deleted.outcome, 'deleted');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const deleted = await audited(
          (tx) => tx.users.delete(randomUUID(), audit.at),
          (result) => (result.outcome === 'deleted' ? { ...audit, subjectId: result.user.id } : null),
        );
        assert.equal(deleted.outcome, 'unknown_user');
      },
    },
    {
      name: 'sessions.create (not durable)',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = suite.sessionRow(user.id, 's');
        const created = await audited(
          (tx) => tx.sessions.create(session),
          (ok) => about(audit, user.id, ok),
          { durable: false },
        );
        assert.equal(created, true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        const created = await audited(
          (tx) => tx.sessions.create(suite.sessionRow(user.id, 's', { credentialEpoch: 7 })),
          (ok) => about(audit, user.id, ok),
          { durable: false },
        );
        assert.equal(created, false);
      },
    },
    {
      name: 'sessions.delete',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        assert.equal(
          await audited(
            (tx) => tx.sessions.delete(session.tokenHash),
            (ok) => about(audit, user.id, ok),
          ),
          true,
        );
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        assert.equal(
          await audited(
            (tx) => tx.sessions.delete('no-such-session'),
            (ok) => about(audit, null, ok),
          ),
          false,
        );
      },
    },
    {
      name: 'sessions.deleteAll (counted, whenever the user exists)',
      changed: async (audit) => {
        const { user } = await registered('alice');
        await sessionFor(user.id, 's1');
        await sessionFor(user.id, 's2');
        const ended = await audited(
          (tx) => tx.sessions.deleteAll(user.id, audit.at),
          (count) =>
            count === null ? null : { ...audit, subjectId: user.id, details: { by: 'test', sessions_ended: count } },
        );
        assert.equal(ended, 2, 'the count the event records');
        return { ...storedEvent(audit, user.id), details: { by: 'test', sessions_ended: 2 } };
      },
      unchanged: async (audit) => {
        const unknown = randomUUID();
        const ended = await audited(
          (tx) => tx.sessions.deleteAll(unknown, audit.at),
          (count) => about(audit, unknown, count !== null),
        );
        assert.equal(ended, null);
      },
    },
    {
      name: 'sessions.deleteAll of a user without sessions',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const ended = await audited(
          (tx) => tx.sessions.deleteAll(user.id, audit.at),
          (count) => (count === null ? null : { ...audit, subjectId: user.id, details: { sessions_ended: count } }),
        );
        assert.equal(ended, 0);
        return { ...storedEvent(audit, user.id), details: { sessions_ended: 0 } };
      },
    },
    {
      name: 'sessions.deleteById',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        const deleted = await audited(
          (tx) => tx.sessions.deleteById(user.id, session.id),
          (ok) => about(audit, user.id, ok),
        );
        assert.equal(deleted, true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        const deleted = await audited(
          (tx) => tx.sessions.deleteById(user.id, 'no-such-id'),
          (ok) => about(audit, user.id, ok),
        );
        assert.equal(deleted, false);
      },
    },
    {
      name: 'sessions.deleteOthers (counted)',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const kept = await sessionFor(user.id, 's1');
        await sessionFor(user.id, 's2');
        const ended = await audited(
          (tx) => tx.sessions.deleteOthers(user.id, kept.tokenHash, audit.at),
          (count) => (count === null ? null : { ...audit, subjectId: user.id, details: { sessions_ended: count } }),
        );
        assert.equal(ended, 1, 'the count the event records');
        return { ...storedEvent(audit, user.id), details: { sessions_ended: 1 } };
      },
      unchanged: async (audit) => {
        const unknown = randomUUID();
        const ended = await audited(
          (tx) => tx.sessions.deleteOthers(unknown, 'x', audit.at),
          (count) => about(audit, unknown, count !== null),
        );
        assert.equal(ended, null);
      },
    },
    {
      name: 'sessions.markAuthenticated',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        const marked = await audited(
          (tx) => tx.sessions.markAuthenticated(session.tokenHash, user.credentialEpoch, T0),
          (ok) => about(audit, user.id, ok),
        );
        assert.equal(marked, true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        const marked = await audited(
          (tx) => tx.sessions.markAuthenticated(session.tokenHash, user.credentialEpoch + 1, T0),
          (ok) => about(audit, user.id, ok),
        );
        assert.equal(marked, false);
      },
    },
    {
      name: 'emailChanges.request',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        const result = await audited(
          (tx) => tx.emailChanges.request(emailChange(user.id, 'a'), session.tokenHash),
          (requested) => (requested.ok ? { ...audit, subjectId: requested.user.id } : null),
        );
        assert.equal(result.ok, true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        const result = await audited(
          (tx) => tx.emailChanges.request(emailChange(user.id, 'a'), 'no-such-session'),
          (requested) => (requested.ok ? { ...audit, subjectId: requested.user.id } : null),
        );
        assert.equal(result.ok, false);
      },
    },
    {
      name: 'emailChanges.confirm (subject from the token)',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        assert.equal(
          (await write((tx) => tx.emailChanges.request(emailChange(user.id, 'a'), session.tokenHash))).ok,
          true,
        );
        const result = await audited(
          (tx) => tx.emailChanges.confirm('change-a', T0),
          (confirmed) => (confirmed.outcome === 'changed' ? { ...audit, subjectId: confirmed.user.id } : null),
        );
        assert.equal(result.outcome, 'changed');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const result = await audited(
          (tx) => tx.emailChanges.confirm('no-such-change', T0),
          (confirmed) => (confirmed.outcome === 'changed' ? { ...audit, subjectId: confirmed.user.id } : null),
        );
        assert.equal(result.outcome, 'invalid');
      },
    },
    {
      name: 'secondFactors.enable',
      changed: async (audit) => {
        const user = await enrolled('alice');
        const result = await audited(
          (tx) => tx.secondFactors.enable(enabling(user.id)),
          (done) => done && { ...audit, subjectId: done.user.id },
        );
        assert.equal(result?.user.id, user.id);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        const result = await audited(
          (tx) => tx.secondFactors.enable(enabling(user.id)),
          (done) => done && { ...audit, subjectId: done.user.id },
        );
        assert.equal(result, null);
      },
    },
    {
      name: 'secondFactors.consumeRecoveryCode',
      changed: async (audit) => {
        const user = await enabled('alice');
        assert.ok(await audited((tx) => tx.secondFactors.consumeRecoveryCode(user.id, 'c1', T0), ofUser(audit)));
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const user = await enabled('alice');
        assert.equal(
          await audited((tx) => tx.secondFactors.consumeRecoveryCode(user.id, 'c2', T0), ofUser(audit)),
          null,
        );
      },
    },
    {
      name: 'secondFactors.replaceRecoveryCodes',
      changed: async (audit) => {
        const user = await enabled('alice');
        assert.ok(await audited((tx) => tx.secondFactors.replaceRecoveryCodes(user.id, ['c2'], T0), ofUser(audit)));
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        const replaced = await audited(
          (tx) => tx.secondFactors.replaceRecoveryCodes(user.id, ['c2'], T0),
          ofUser(audit),
        );
        assert.equal(replaced, null);
      },
    },
    {
      name: 'secondFactors.disable',
      changed: async (audit) => {
        const user = await enrolled('alice');
        assert.ok(await audited((tx) => tx.secondFactors.disable(user.id, T0), ofUser(audit)));
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await audited((tx) => tx.secondFactors.disable(user.id, T0), ofUser(audit)), null);
      },
    },
    {
      name: 'loginChallenges.create',
      changed: async (audit) => {
        const user = await enrolled('alice');
        const challenge = {
          tokenHash: 'challenge-1',
          userId: user.id,
          credentialEpoch: 0,
          attempts: 0,
          createdAt: new Date(T0),
          expiresAt: new Date(HOUR_LATER),
          ip: null,
          userAgent: null,
          firstFactor: 'pwd' as const,
        };
        await audited(
          (tx) => tx.loginChallenges.create(challenge),
          () => ({ ...audit, subjectId: user.id }),
        );
        return storedEvent(audit, user.id);
      },
    },
  ];

  describe('audit trail', () => describeAudited(methods));
}
