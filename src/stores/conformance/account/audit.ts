import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AuditEvent, NewAuditEvent } from '../../../services/audit-event';
import type { StoredEmailChange } from '../../../services/user-store';
import {
  describe,
  it,
  auditEvent,
  storedEvent,
  newUser,
  token,
  T0,
  HOUR,
  HOUR_LATER,
  DAY_LATER,
  type ConformanceSuite,
} from '../support';

/**
 * One method that takes an audit event: `changed` makes the change with the event and returns the event as the
 * store must keep it; `unchanged` calls the method with the event where nothing changes (no event may be written).
 */
interface AuditedMethod {
  name: string;
  changed(audit: NewAuditEvent): Promise<AuditEvent>;
  unchanged?(audit: NewAuditEvent): Promise<void>;
}

export function describeAudit(suite: ConformanceSuite): void {
  const { registered, sessionFor, resetTokenFor } = suite;
  const store = () => suite.store;
  const all = () => suite.store.listAuditEvents({ limit: 1000 });
  const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

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
    assert.equal(await store().startSecondFactor(factor), true);
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
  const adminWithRole = async (label: string) => {
    const { user } = await registered(label);
    await store().createRole('gatehouse-admin');
    await store().grantRole(user.id, 'gatehouse-admin');
    return user;
  };

  const methods: AuditedMethod[] = [
    {
      name: 'createUser',
      changed: async (audit) => {
        const user = newUser('alice');
        const result = await store().createUser(user, token(user.id, 'verify_email', HOUR_LATER, 'v-alice'), {
          audit: { ...audit, subjectId: user.id },
        });
        assert.ok(result.ok);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        await registered('alice');
        const taken = newUser('alice');
        const result = await store().createUser(taken, token(taken.id, 'verify_email', HOUR_LATER, 'v-2'), { audit });
        assert.equal(result.ok, false);
      },
    },
    {
      name: 'replaceToken',
      changed: async (audit) => {
        const { user } = await registered('alice');
        await store().replaceToken(token(user.id, 'reset_password', HOUR_LATER, 'r-1'), undefined, {
          ...audit,
          subjectId: user.id,
        });
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        await store().disableUser(user.id, T0);
        await store().replaceToken(token(user.id, 'reset_password', HOUR_LATER, 'r-1'), undefined, audit);
        assert.equal(await store().findUserByToken('r-1', 'reset_password', T0), null, 'a disabled user gets none');
      },
    },
    {
      name: 'verifyEmail (subject from the token)',
      changed: async (audit) => {
        const { user, verificationHash } = await registered('alice');
        assert.ok(await store().verifyEmail(verificationHash, T0, undefined, { ...audit, subjectId: undefined }));
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        await registered('alice');
        assert.equal(
          await store().verifyEmail('no-such-token', T0, undefined, { ...audit, subjectId: undefined }),
          null,
        );
      },
    },
    {
      name: 'resetPassword (subject from the token)',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const reset = await resetTokenFor(user.id, 'alice');
        assert.ok(await store().resetPassword(reset, 'new-hash', T0, undefined, { ...audit, subjectId: undefined }));
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        await resetTokenFor(user.id, 'alice');
        assert.equal(await store().resetPassword('reset-other', 'new-hash', T0, undefined, audit), null);
      },
    },
    {
      name: 'changePassword',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const sent = { ...audit, subjectId: user.id };
        assert.equal(
          await store().changePassword(user.id, user.passwordHash, 'new', T0, undefined, undefined, sent),
          true,
        );
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await store().changePassword(user.id, 'stale', 'new', T0, undefined, undefined, audit), false);
      },
    },
    {
      name: 'deleteUser',
      changed: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await store().deleteUser(user.id, undefined, undefined, { ...audit, subjectId: user.id }), true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        assert.equal(await store().deleteUser(randomUUID(), undefined, undefined, audit), false);
      },
    },
    {
      name: 'createSession',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = suite.sessionRow(user.id, 's');
        assert.equal(await store().createSession(session, user.passwordHash, { ...audit, subjectId: user.id }), true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await store().createSession(suite.sessionRow(user.id, 's'), 'stale', audit), false);
      },
    },
    {
      name: 'deleteSession',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        await store().deleteSession(session.tokenHash, { ...audit, subjectId: user.id });
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        await store().deleteSession('no-such-session', audit);
      },
    },
    {
      name: 'deleteUserSessions (with the count, whenever the user exists)',
      changed: async (audit) => {
        const { user } = await registered('alice');
        await sessionFor(user.id, 's1');
        await sessionFor(user.id, 's2');
        const withDetails = { ...audit, subjectId: user.id, details: { by: 'test' } };
        assert.equal(await store().deleteUserSessions(user.id, withDetails), 2);
        return { ...storedEvent(withDetails, user.id), details: { by: 'test', sessions_ended: 2 } };
      },
      unchanged: async (audit) => {
        assert.equal(await store().deleteUserSessions(randomUUID(), audit), 0);
      },
    },
    {
      name: 'deleteUserSessions of a user without sessions',
      changed: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await store().deleteUserSessions(user.id, { ...audit, subjectId: user.id }), 0);
        return { ...storedEvent(audit, user.id), details: { sessions_ended: 0 } };
      },
    },
    {
      name: 'deleteSessionById',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        assert.equal(await store().deleteSessionById(user.id, session.id, { ...audit, subjectId: user.id }), true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await store().deleteSessionById(user.id, 'no-such-id', audit), false);
      },
    },
    {
      name: 'deleteOtherSessions (with the count)',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const kept = await sessionFor(user.id, 's1');
        await sessionFor(user.id, 's2');
        assert.equal(await store().deleteOtherSessions(user.id, kept.tokenHash, { ...audit, subjectId: user.id }), 1);
        return { ...storedEvent(audit, user.id), details: { sessions_ended: 1 } };
      },
      unchanged: async (audit) => {
        assert.equal(await store().deleteOtherSessions(randomUUID(), 'x', audit), 0);
      },
    },
    {
      name: 'markSessionAuthenticated',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        const sent = { ...audit, subjectId: user.id };
        assert.equal(await store().markSessionAuthenticated(session.tokenHash, user.passwordHash, T0, sent), true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        assert.equal(await store().markSessionAuthenticated(session.tokenHash, 'stale', T0, audit), false);
      },
    },
    {
      name: 'requestEmailChange',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        const sent = { ...audit, subjectId: user.id };
        const result = await store().requestEmailChange(emailChange(user.id, 'a'), {}, session.tokenHash, sent);
        assert.equal(result.ok, true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        const result = await store().requestEmailChange(emailChange(user.id, 'a'), {}, 'no-such-session', audit);
        assert.equal(result.ok, false);
      },
    },
    {
      name: 'confirmEmailChange (subject from the token)',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const session = await sessionFor(user.id, 's');
        await store().requestEmailChange(emailChange(user.id, 'a'), {}, session.tokenHash);
        const result = await store().confirmEmailChange('change-a', T0, undefined, { ...audit, subjectId: undefined });
        assert.equal(result.outcome, 'changed');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const result = await store().confirmEmailChange('no-such-change', T0, undefined, {
          ...audit,
          subjectId: undefined,
        });
        assert.equal(result.outcome, 'invalid');
      },
    },
    {
      name: 'enableSecondFactor',
      changed: async (audit) => {
        const user = await enrolled('alice');
        const sent = { ...audit, subjectId: user.id };
        assert.equal(await store().enableSecondFactor(enabling(user.id), undefined, sent), true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await store().enableSecondFactor(enabling(user.id), undefined, audit), false);
      },
    },
    {
      name: 'consumeRecoveryCode',
      changed: async (audit) => {
        const user = await enrolled('alice');
        await store().enableSecondFactor(enabling(user.id));
        assert.equal(
          await store().consumeRecoveryCode(user.id, 'c1', undefined, { ...audit, subjectId: user.id }),
          true,
        );
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const user = await enrolled('alice');
        await store().enableSecondFactor(enabling(user.id));
        assert.equal(await store().consumeRecoveryCode(user.id, 'c2', undefined, audit), false);
      },
    },
    {
      name: 'replaceRecoveryCodes',
      changed: async (audit) => {
        const user = await enrolled('alice');
        await store().enableSecondFactor(enabling(user.id));
        const sent = { ...audit, subjectId: user.id };
        assert.equal(await store().replaceRecoveryCodes(user.id, ['c2'], T0, undefined, sent), true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await store().replaceRecoveryCodes(user.id, ['c2'], T0, undefined, audit), false);
      },
    },
    {
      name: 'disableSecondFactor',
      changed: async (audit) => {
        const user = await enrolled('alice');
        assert.equal(await store().disableSecondFactor(user.id, T0, undefined, { ...audit, subjectId: user.id }), true);
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await store().disableSecondFactor(user.id, T0, undefined, audit), false);
      },
    },
    {
      name: 'createLoginChallenge',
      changed: async (audit) => {
        const user = await enrolled('alice');
        const challenge = {
          tokenHash: 'challenge-1',
          userId: user.id,
          passwordBinding: 'binding',
          attempts: 0,
          createdAt: new Date(T0),
          expiresAt: new Date(HOUR_LATER),
          ip: null,
          userAgent: null,
        };
        await store().createLoginChallenge(challenge, { ...audit, subjectId: user.id });
        return storedEvent(audit, user.id);
      },
    },
    {
      name: 'createRole',
      changed: async (audit) => {
        assert.equal(await store().createRole('editor', { ...audit, details: { role: 'editor' } }), true);
        return { ...storedEvent(audit, null), details: { role: 'editor' } };
      },
      unchanged: async (audit) => {
        await store().createRole('editor');
        assert.equal(await store().createRole('editor', audit), false);
      },
    },
    {
      name: 'createPermission',
      changed: async (audit) => {
        assert.equal(await store().createPermission('posts:write', audit), true);
        return storedEvent(audit, null);
      },
      unchanged: async (audit) => {
        await store().createPermission('posts:write');
        assert.equal(await store().createPermission('posts:write', audit), false);
      },
    },
    {
      name: 'grantPermission',
      changed: async (audit) => {
        await store().createRole('editor');
        await store().createPermission('posts:write');
        assert.equal(await store().grantPermission('editor', 'posts:write', audit), 'ok');
        return storedEvent(audit, null);
      },
      unchanged: async (audit) => {
        await store().createPermission('posts:write');
        assert.equal(await store().grantPermission('ghost', 'posts:write', audit), 'unknown_role');
      },
    },
    {
      name: 'revokePermission',
      changed: async (audit) => {
        await store().createRole('editor');
        await store().createPermission('posts:write');
        await store().grantPermission('editor', 'posts:write');
        assert.equal(await store().revokePermission('editor', 'posts:write', audit), 'ok');
        return storedEvent(audit, null);
      },
      unchanged: async (audit) => {
        await store().createRole('editor');
        assert.equal(await store().revokePermission('editor', 'ghost', audit), 'unknown_permission');
      },
    },
    {
      name: 'grantRole',
      changed: async (audit) => {
        const { user } = await registered('alice');
        await store().createRole('editor');
        assert.equal(await store().grantRole(user.id, 'editor', { ...audit, subjectId: user.id }), 'ok');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        await store().createRole('editor');
        assert.equal(await store().grantRole(randomUUID(), 'editor', audit), 'unknown_user');
      },
    },
    {
      name: 'revokeRole',
      changed: async (audit) => {
        const { user } = await registered('alice');
        await store().createRole('editor');
        await store().grantRole(user.id, 'editor');
        assert.equal(await store().revokeRole(user.id, 'editor', { ...audit, subjectId: user.id }), 'ok');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const admin = await adminWithRole('alice');
        assert.equal(await store().revokeRole(admin.id, 'gatehouse-admin', audit, true), 'last_holder');
        assert.equal(await store().revokeRole(admin.id, 'ghost', audit), 'unknown_role');
      },
    },
    {
      name: 'disableUser',
      changed: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await store().disableUser(user.id, T0, { ...audit, subjectId: user.id }), 'ok');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const admin = await adminWithRole('alice');
        assert.equal(await store().disableUser(admin.id, T0, audit, 'gatehouse-admin'), 'last_holder');
        assert.equal(await store().disableUser(randomUUID(), T0, audit), 'unknown_user');
      },
    },
    {
      name: 'enableUser',
      changed: async (audit) => {
        const { user } = await registered('alice');
        await store().disableUser(user.id, T0);
        assert.equal(await store().enableUser(user.id, T0, { ...audit, subjectId: user.id }), 'ok');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        assert.equal(await store().enableUser(randomUUID(), T0, audit), 'unknown_user');
      },
    },
    {
      name: 'markUserVerified',
      changed: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(await store().markUserVerified(user.id, T0, { ...audit, subjectId: user.id }), 'verified');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user, verificationHash } = await registered('alice');
        await store().verifyEmail(verificationHash, T0);
        assert.equal(await store().markUserVerified(user.id, T0, audit), 'already_verified');
      },
    },
    {
      name: 'deleteUserAsAdmin',
      changed: async (audit) => {
        const { user } = await registered('alice');
        assert.equal(
          await store().deleteUserAsAdmin(user.id, 'gatehouse-admin', { ...audit, subjectId: user.id }),
          'ok',
        );
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const admin = await adminWithRole('alice');
        assert.equal(await store().deleteUserAsAdmin(admin.id, 'gatehouse-admin', audit), 'last_holder');
        assert.equal(await store().deleteUserAsAdmin(randomUUID(), undefined, audit), 'unknown_user');
      },
    },
  ];

  describe('audit trail', () => {
    describe('written in the same transaction as the change, and only with a change', () => {
      for (const method of methods) {
        it(`${method.name}: the event is written with the change`, async () => {
          const audit = auditEvent('admin.user_disabled', { actorType: 'admin', actorId: randomUUID() });
          const expected = await method.changed(audit);
          assert.deepEqual(await all(), [expected]);
        });
        if (method.unchanged) {
          const unchanged = method.unchanged;
          it(`${method.name}: no event without a change`, async () => {
            await unchanged(auditEvent('admin.user_disabled'));
            assert.deepEqual(await all(), []);
          });
        }
      }
    });

    it('appendAuditEvent keeps every field as given, details included; returned events are copies', async () => {
      const subject = randomUUID();
      const event = auditEvent('login', {
        outcome: 'wrong_password',
        actorType: 'anonymous',
        subjectId: subject,
        ip: null,
        requestId: null,
        details: { method: 'totp', count: 3, remembered: false },
      });
      const bare = auditEvent('logout', { at: at(1), actorId: subject, subjectId: null, details: null });
      await store().appendAuditEvent({ ...event, subjectId: subject });
      await store().appendAuditEvent({ ...bare, subjectId: null });

      const listed = await all();
      assert.deepEqual(listed, [storedEvent(bare, null), storedEvent(event, subject)]);
      (listed[1].details as Record<string, unknown>).method = 'changed';
      listed[1].at.setTime(0);
      assert.deepEqual((await all())[1], storedEvent(event, subject));
    });

    it('lists newest first (at, then id, descending), page by page after a cursor, unshifted by new events', async () => {
      const events = Array.from({ length: 23 }, (_, i) =>
        auditEvent('login', { id: randomUUID(), at: at(i % 7), subjectId: randomUUID() }),
      );
      for (const event of events) await store().appendAuditEvent({ ...event, subjectId: event.subjectId ?? null });
      const expected = [...events].sort(
        (a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
      );
      assert.deepEqual(
        (await all()).map((event) => event.id),
        expected.map((event) => event.id),
      );

      const paged: string[] = [];
      for (let page = 0; ; page++) {
        const last =
          paged.length === 0 ? undefined : (await all()).find((event) => event.id === paged[paged.length - 1]);
        const after = last && { at: last.at, id: last.id };
        const rows = await store().listAuditEvents({ limit: 5, after });
        if (rows.length === 0) break;
        paged.push(...rows.map((row) => row.id));
        // Newer events written meanwhile land before the cursor: they move nothing of the pages still to come.
        await store().appendAuditEvent({ ...auditEvent('logout', { at: at(100 + page) }), subjectId: null });
      }
      assert.deepEqual(
        paged,
        expected.map((event) => event.id),
      );
      assert.deepEqual(await store().listAuditEvents({ limit: 0 }), []);
    });

    it('filters by user (subject or actor), by types, since (inclusive) and until (exclusive), combined', async () => {
      const alice = randomUUID();
      const bob = randomUUID();
      const events = [
        auditEvent('login', { at: at(0), subjectId: alice, actorId: alice }),
        auditEvent('admin.user_disabled', { at: at(1), subjectId: bob, actorId: alice, actorType: 'admin' }),
        auditEvent('login', { at: at(2), subjectId: bob, actorId: bob }),
        auditEvent('logout', { at: at(3), subjectId: alice, actorId: alice }),
        auditEvent('register', { at: at(4), subjectId: null, actorId: null, actorType: 'anonymous' }),
      ];
      for (const event of events) await store().appendAuditEvent({ ...event, subjectId: event.subjectId ?? null });
      const ids = async (query: Parameters<typeof suite.store.listAuditEvents>[0]) =>
        (await store().listAuditEvents(query)).map((event) => events.findIndex((e) => e.id === event.id));

      assert.deepEqual(await ids({ limit: 10, userId: alice }), [3, 1, 0]);
      assert.deepEqual(await ids({ limit: 10, userId: bob }), [2, 1]);
      assert.deepEqual(await ids({ limit: 10, types: ['login'] }), [2, 0]);
      assert.deepEqual(await ids({ limit: 10, types: ['login', 'logout'] }), [3, 2, 0]);
      assert.deepEqual(await ids({ limit: 10, types: [] }), []);
      assert.deepEqual(await ids({ limit: 10, since: at(1) }), [4, 3, 2, 1]);
      assert.deepEqual(await ids({ limit: 10, until: at(3) }), [2, 1, 0]);
      assert.deepEqual(
        await ids({ limit: 10, userId: alice, types: ['login', 'admin.user_disabled'], since: at(1) }),
        [1],
      );
      assert.deepEqual(await ids({ limit: 2, userId: alice }), [3, 1]);
      assert.deepEqual(await ids({ limit: 10, userId: randomUUID() }), []);
    });

    it('deleteExpired removes the events at or before auditBefore, counted, and keeps the rest', async () => {
      const events = [0, 1, 2, 3].map((minutes) => auditEvent('login', { at: at(minutes) }));
      for (const event of events) await store().appendAuditEvent({ ...event, subjectId: null });
      const cutoffs = { now: T0, sessionIdleBefore: new Date(T0.getTime() - HOUR) };

      assert.equal(await store().deleteExpired(cutoffs), 0, 'without auditBefore, the trail stays');
      assert.equal(await store().deleteExpired({ ...cutoffs, auditBefore: at(1) }), 2);
      assert.deepEqual(
        (await all()).map((event) => event.id),
        [events[3].id, events[2].id],
      );
      assert.equal(await store().deleteExpired({ ...cutoffs, auditBefore: DAY_LATER }), 2);
      assert.deepEqual(await all(), []);
    });

    it('events outlive their user', async () => {
      const { user } = await registered('alice');
      await store().appendAuditEvent({ ...auditEvent('login'), subjectId: user.id });
      const deleted = { ...auditEvent('account_deleted', { at: at(1) }), subjectId: user.id };
      assert.equal(await store().deleteUser(user.id, undefined, undefined, deleted), true);
      assert.deepEqual(
        (await store().listAuditEvents({ limit: 10, userId: user.id })).map((event) => event.type),
        ['account_deleted', 'login'],
      );
    });
  });
}
