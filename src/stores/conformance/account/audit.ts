import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AuditEvent, NewAuditEvent } from '../../../services/audit-event';
import type { TransactionOptions, UserStoreTransaction } from '../../../services/user-store';
import { describe, it, auditEvent, storedEvent, T0, HOUR, DAY_LATER, type ConformanceSuite } from '../support';

/** An event as `tx.audit.add` takes it: its subject decided. */
export type RecordedEvent = NewAuditEvent & { subjectId: string | null };

/**
 * One change the core records with an audit event: `changed` makes the change with the event and returns the event
 * as the store must keep it; `unchanged` makes the call where nothing changes (no event may be written).
 */
export interface AuditedMethod {
  name: string;
  changed(audit: NewAuditEvent): Promise<AuditEvent>;
  unchanged?(audit: NewAuditEvent): Promise<void>;
}

/** What both audit areas use (this one and `audit-account.ts`). */
export function auditFixtures(suite: ConformanceSuite) {
  const all = () => suite.store.audit.list({ limit: 1000 });
  const write = <T>(work: (tx: UserStoreTransaction) => Promise<T>): Promise<T> => suite.store.transaction(work);

  /**
   * `change`, and in the same transaction the event `eventOf` makes of its result, as the core composes them: null
   * when the result says nothing changed, and then no event is written.
   */
  const audited = <T>(
    change: (tx: UserStoreTransaction) => Promise<T>,
    eventOf: (result: T) => RecordedEvent | null,
    options?: TransactionOptions,
  ): Promise<T> =>
    suite.store.transaction(async (tx) => {
      const result = await change(tx);
      const event = eventOf(result);
      if (event) await tx.audit.add(event);
      return result;
    }, options);

  /** The event of a change that names its user, or null (no change) when `changed` is false. */
  const about = (audit: NewAuditEvent, subjectId: string | null, changed: boolean): RecordedEvent | null =>
    changed ? { ...audit, subjectId } : null;

  /** Declares, for each method, that its event is written with its change, and none without one. */
  const describeAudited = (methods: AuditedMethod[]) =>
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

  return { all, write, audited, about, describeAudited };
}

/**
 * The audit trail: the events of the administration's changes (roles, permissions, disabling, verifying, deleting),
 * and how the trail is kept and read. The events of a person's own changes are in `audit-account.ts`.
 */
export function describeAudit(suite: ConformanceSuite): void {
  const { registered } = suite;
  const store = () => suite.store;
  const { all, write, audited, about, describeAudited } = auditFixtures(suite);
  const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
  const append = (event: RecordedEvent) => write((tx) => tx.audit.add(event));
  const adminWithRole = async (label: string) => {
    const { user } = await registered(label);
    await write((tx) => tx.access.createRole('gatehouse-admin'));
    await write((tx) => tx.access.grantRole(user.id, 'gatehouse-admin'));
    return user;
  };

  const methods: AuditedMethod[] = [
    {
      name: 'access.createRole',
      changed: async (audit) => {
        const withRole = { ...audit, details: { role: 'editor' } };
        const created = await audited(
          (tx) => tx.access.createRole('editor'),
          (ok) => about(withRole, null, ok),
        );
        assert.equal(created, true);
        return { ...storedEvent(audit, null), details: { role: 'editor' } };
      },
      unchanged: async (audit) => {
        await write((tx) => tx.access.createRole('editor'));
        assert.equal(
          await audited(
            (tx) => tx.access.createRole('editor'),
            (ok) => about(audit, null, ok),
          ),
          false,
        );
      },
    },
    {
      name: 'access.createPermission',
      changed: async (audit) => {
        const created = await audited(
          (tx) => tx.access.createPermission('posts:write'),
          (ok) => about(audit, null, ok),
        );
        assert.equal(created, true);
        return storedEvent(audit, null);
      },
      unchanged: async (audit) => {
        await write((tx) => tx.access.createPermission('posts:write'));
        const created = await audited(
          (tx) => tx.access.createPermission('posts:write'),
          (ok) => about(audit, null, ok),
        );
        assert.equal(created, false);
      },
    },
    {
      name: 'access.grantPermission',
      changed: async (audit) => {
        await write((tx) => tx.access.createRole('editor'));
        await write((tx) => tx.access.createPermission('posts:write'));
        const granted = await audited(
          (tx) => tx.access.grantPermission('editor', 'posts:write'),
          (result) => about(audit, null, result === 'ok'),
        );
        assert.equal(granted, 'ok');
        return storedEvent(audit, null);
      },
      unchanged: async (audit) => {
        await write((tx) => tx.access.createPermission('posts:write'));
        const granted = await audited(
          (tx) => tx.access.grantPermission('ghost', 'posts:write'),
          (result) => about(audit, null, result === 'ok'),
        );
        assert.equal(granted, 'unknown_role');
      },
    },
    {
      name: 'access.revokePermission',
      changed: async (audit) => {
        await write((tx) => tx.access.createRole('editor'));
        await write((tx) => tx.access.createPermission('posts:write'));
        await write((tx) => tx.access.grantPermission('editor', 'posts:write'));
        const revoked = await audited(
          (tx) => tx.access.revokePermission('editor', 'posts:write'),
          (result) => about(audit, null, result === 'ok'),
        );
        assert.equal(revoked, 'ok');
        return storedEvent(audit, null);
      },
      unchanged: async (audit) => {
        await write((tx) => tx.access.createRole('editor'));
        const revoked = await audited(
          (tx) => tx.access.revokePermission('editor', 'ghost'),
          (result) => about(audit, null, result === 'ok'),
        );
        assert.equal(revoked, 'unknown_permission');
      },
    },
    {
      name: 'access.grantRole',
      changed: async (audit) => {
        const { user } = await registered('alice');
        await write((tx) => tx.access.createRole('editor'));
        const granted = await audited(
          (tx) => tx.access.grantRole(user.id, 'editor'),
          (result) => about(audit, user.id, result === 'ok'),
        );
        assert.equal(granted, 'ok');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        await write((tx) => tx.access.createRole('editor'));
        const unknown = randomUUID();
        const granted = await audited(
          (tx) => tx.access.grantRole(unknown, 'editor'),
          (result) => about(audit, unknown, result === 'ok'),
        );
        assert.equal(granted, 'unknown_user');
      },
    },
    {
      name: 'access.revokeRole',
      changed: async (audit) => {
        const { user } = await registered('alice');
        await write((tx) => tx.access.createRole('editor'));
        await write((tx) => tx.access.grantRole(user.id, 'editor'));
        const revoked = await audited(
          (tx) => tx.access.revokeRole(user.id, 'editor'),
          (result) => about(audit, user.id, result === 'ok'),
        );
        assert.equal(revoked, 'ok');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const admin = await adminWithRole('alice');
        const revoke = (role: string, keepLastHolder?: boolean) =>
          audited(
            (tx) => tx.access.revokeRole(admin.id, role, { keepLastHolder }),
            (result) => about(audit, admin.id, result === 'ok'),
          );
        assert.equal(await revoke('gatehouse-admin', true), 'last_holder');
        assert.equal(await revoke('ghost'), 'unknown_role');
      },
    },
    {
      name: 'users.disable',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const disabled = await audited(
          (tx) => tx.users.disable(user.id, T0),
          (result) => about(audit, user.id, result === 'ok'),
        );
        assert.equal(disabled, 'ok');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const admin = await adminWithRole('alice');
        const disable = (userId: string, keepLastHolderOf?: string) =>
          audited(
            (tx) => tx.users.disable(userId, T0, keepLastHolderOf),
            (result) => about(audit, userId, result === 'ok'),
          );
        assert.equal(await disable(admin.id, 'gatehouse-admin'), 'last_holder');
        assert.equal(await disable(randomUUID()), 'unknown_user');
      },
    },
    {
      name: 'users.enable',
      changed: async (audit) => {
        const { user } = await registered('alice');
        await write((tx) => tx.users.disable(user.id, T0));
        const enabled = await audited(
          (tx) => tx.users.enable(user.id, T0),
          (result) => about(audit, user.id, result === 'ok'),
        );
        assert.equal(enabled, 'ok');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const unknown = randomUUID();
        const enabled = await audited(
          (tx) => tx.users.enable(unknown, T0),
          (result) => about(audit, unknown, result === 'ok'),
        );
        assert.equal(enabled, 'unknown_user');
      },
    },
    {
      name: 'users.markVerified',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const verified = await audited(
          (tx) => tx.users.markVerified(user.id, T0),
          (result) => about(audit, user.id, result === 'verified'),
        );
        assert.equal(verified, 'verified');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const { user, verificationHash } = await registered('alice');
        assert.ok(await write((tx) => tx.users.confirmAddress(verificationHash, T0)));
        const verified = await audited(
          (tx) => tx.users.markVerified(user.id, T0),
          (result) => about(audit, user.id, result === 'verified'),
        );
        assert.equal(verified, 'already_verified');
      },
    },
    {
      name: 'users.delete by an administrator',
      changed: async (audit) => {
        const { user } = await registered('alice');
        const deleted = await audited(
          (tx) => tx.users.delete(user.id, audit.at, { keepLastHolderOf: 'gatehouse-admin' }),
          (result) => (result.outcome === 'deleted' ? { ...audit, subjectId: result.user.id } : null),
        );
        assert.equal(deleted.outcome, 'deleted');
        return storedEvent(audit, user.id);
      },
      unchanged: async (audit) => {
        const admin = await adminWithRole('alice');
        const remove = async (userId: string, keepLastHolderOf?: string) =>
          (
            await audited(
              (tx) => tx.users.delete(userId, audit.at, { keepLastHolderOf }),
              (result) => (result.outcome === 'deleted' ? { ...audit, subjectId: result.user.id } : null),
            )
          ).outcome;
        assert.equal(await remove(admin.id, 'gatehouse-admin'), 'last_holder');
        assert.equal(await remove(randomUUID()), 'unknown_user');
      },
    },
  ];

  describe('audit trail', () => {
    describeAudited(methods);

    it('audit.add keeps every field as given, details included; returned events are copies', async () => {
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
      await append({ ...event, subjectId: subject });
      await append({ ...bare, subjectId: null });

      const listed = await all();
      assert.deepEqual(listed, [storedEvent(bare, null), storedEvent(event, subject)]);
      (listed[1].details as Record<string, unknown>).method = 'changed';
      listed[1].at.setTime(0);
      assert.deepEqual((await all())[1], storedEvent(event, subject));
    });

    it('audit.add refuses an event type this release does not know (the table does not constrain it)', async () => {
      const unknown = { ...auditEvent('login'), type: 'noSuchType' as never, subjectId: null };
      await assert.rejects(append(unknown), /unknown audit event type/);
      assert.deepEqual(await all(), []);
    });

    it('lists newest first (at, then id, descending), page by page after a cursor, unshifted by new events', async () => {
      const events = Array.from({ length: 23 }, (_, i) =>
        auditEvent('login', { id: randomUUID(), at: at(i % 7), subjectId: randomUUID() }),
      );
      for (const event of events) await append({ ...event, subjectId: event.subjectId ?? null });
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
        const rows = await store().audit.list({ limit: 5, after });
        if (rows.length === 0) break;
        paged.push(...rows.map((row) => row.id));
        // Newer events written meanwhile land before the cursor: they move nothing of the pages still to come.
        await append({ ...auditEvent('logout', { at: at(100 + page) }), subjectId: null });
      }
      assert.deepEqual(
        paged,
        expected.map((event) => event.id),
      );
      assert.deepEqual(await store().audit.list({ limit: 0 }), []);
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
      for (const event of events) await append({ ...event, subjectId: event.subjectId ?? null });
      const ids = async (query: Parameters<typeof suite.store.audit.list>[0]) =>
        (await store().audit.list(query)).map((event) => events.findIndex((e) => e.id === event.id));

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
      for (const event of events) await append({ ...event, subjectId: null });
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
      await append({ ...auditEvent('login'), subjectId: user.id });
      const deleted = { ...auditEvent('account_deleted', { at: at(1) }), subjectId: user.id };
      const outcome = await audited(
        (tx) => tx.users.delete(user.id, deleted.at),
        (result) => (result.outcome === 'deleted' ? deleted : null),
      );
      assert.equal(outcome.outcome, 'deleted');
      assert.deepEqual(
        (await store().audit.list({ limit: 10, userId: user.id })).map((event) => event.type),
        ['account_deleted', 'login'],
      );
    });
  });
}
