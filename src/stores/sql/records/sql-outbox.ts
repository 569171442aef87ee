import { randomUUID } from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import {
  carriesLink,
  checkOutboxKind,
  OUTBOX_KINDS,
  type ClaimedMessage,
  type NewOutboxMessage,
  type OutboxEntry,
  type OutboxQuery,
  type RetryTarget,
} from '../../../services/outbox-message';
import type { MessageRecipient, OutboxQueue, OutboxWriter } from '../../../services/store/outbox-records';
import { claimedFromOutboxRow, fromOutboxRow, toOutboxRow } from '../rows';
import { runPrepared } from '../run-prepared';
import { type Database, OUTBOX_COLUMNS, type OutboxTable } from '../schema';
import type { SqlCapabilities, WriteOptions } from '../sql-capabilities';
import { UNFLUSHED_STATEMENT } from './unflushed';
import type { SqlUnit } from './unit-of-work';

/**
 * The outbox inside a transaction: the message waits to go with the change's other inserts (`SqlUnit`), so it
 * commits with the change that causes it, at no round trip of its own on PostgreSQL. A taken id fails the insert,
 * and so the whole transaction.
 */
export class SqlOutboxWriter implements OutboxWriter {
  constructor(private readonly unit: SqlUnit) {}

  async add(message: NewOutboxMessage, recipient: MessageRecipient): Promise<void> {
    // The column has no constraint (2026-11-30-kinds-checked-in-code): an unknown kind is refused here, which fails
    // the whole transaction as the constraint did.
    checkOutboxKind(message.kind);
    // Copied now: the message must not change with the caller's object, nor with the user's later address.
    const row = toOutboxRow(message, { id: recipient.id, username: recipient.username, email: recipient.email });
    this.unit.queue((db) => db.insertInto('outbox').values(row));
  }
}

/** The outbox as the delivery workers and the operator see it: each method its own short transaction. */
export class SqlOutboxQueue implements OutboxQueue {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: SqlCapabilities,
  ) {}

  // The claim and the marks below may commit without waiting for the disk (`UNFLUSHED_STATEMENT`): the message itself
  // was queued durably with the change that caused it, and losing one of these to a power cut only sends it again.
  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedMessage[]> {
    if (limit < 1) return [];
    const claimId = randomUUID();
    // Pick, then claim, in one statement. Where rows are locked (PostgreSQL), FOR UPDATE SKIP LOCKED lets concurrent
    // workers take disjoint batches instead of queuing for the same rows, and holds the picked ones until the claim
    // commits. The pick is a MATERIALIZED common table expression, evaluated once: as a plain `IN (SELECT ... LIMIT n
    // FOR UPDATE SKIP LOCKED)`, PostgreSQL may evaluate it more than once and then claim more than n. SQLite has one
    // writer at a time, so claims cannot overlap there.
    const { rows } = await this.write(
      (trx) =>
        runPrepared(
          trx,
          this.capabilities,
          trx
            .with(
              (cte) => cte('picked').materialized(),
              (db) =>
                db
                  .selectFrom('outbox')
                  .select('id')
                  .where('status', '=', 'pending')
                  .where('next_attempt_at', '<=', now.getTime())
                  .orderBy('next_attempt_at')
                  .orderBy('created_at')
                  .limit(limit)
                  .$if(this.capabilities.rowLocks, (query) => query.forUpdate().skipLocked()),
            )
            .updateTable('outbox')
            .set((eb) => ({
              claim_id: claimId,
              attempts: eb('attempts', '+', 1),
              next_attempt_at: leaseUntil.getTime(),
              updated_at: now.getTime(),
            }))
            .where('id', 'in', (eb) => eb.selectFrom('picked').select('picked.id'))
            .returning(OUTBOX_COLUMNS),
        ),
      UNFLUSHED_STATEMENT,
    );
    // One claim id for the batch is enough: it is new, and only this worker knows it.
    return rows.map(claimedFromOutboxRow).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async markSent(id: string, now: Date): Promise<boolean> {
    const result = await this.write(
      (trx) =>
        runPrepared(
          trx,
          this.capabilities,
          trx
            .updateTable('outbox')
            .set({
              status: 'sent',
              sealed_token: null,
              claim_id: null,
              last_error: null,
              sent_at: now.getTime(),
              updated_at: now.getTime(),
            })
            .where('id', '=', id)
            .where('status', '=', 'pending'),
        ),
      UNFLUSHED_STATEMENT,
    );
    return Boolean(result.numAffectedRows);
  }

  async markRetry(id: string, claimId: string, nextAttemptAt: Date, lastError: string, now: Date): Promise<boolean> {
    return this.endClaim(id, claimId, {
      next_attempt_at: nextAttemptAt.getTime(),
      last_error: lastError,
      updated_at: now.getTime(),
    });
  }

  async markFailed(id: string, claimId: string, lastError: string, now: Date): Promise<boolean> {
    return this.endClaim(id, claimId, {
      status: 'failed',
      sealed_token: null,
      last_error: lastError,
      updated_at: now.getTime(),
    });
  }

  async list(query: OutboxQuery = {}): Promise<OutboxEntry[]> {
    const rows = await this.db
      .selectFrom('outbox')
      .selectAll()
      .$if(query.status !== undefined, (q) => q.where('status', '=', query.status!))
      .orderBy('created_at', 'desc')
      .limit(query.limit ?? 100)
      .execute();
    return rows.map(fromOutboxRow);
  }

  async retry(target: RetryTarget, now: Date, giveUpAt: Date): Promise<number> {
    const notices = OUTBOX_KINDS.filter((kind) => !carriesLink(kind));
    const at = now.getTime();
    return this.write(async (trx) => {
      const revived = await trx
        .updateTable('outbox')
        .set({
          status: 'pending',
          attempts: 0,
          claim_id: null,
          next_attempt_at: at,
          give_up_at: giveUpAt.getTime(),
          updated_at: at,
        })
        .where('status', '=', 'failed')
        .where('kind', 'in', notices)
        .$if('id' in target, (q) => q.where('id', '=', (target as { id: string }).id))
        .executeTakeFirst();
      if (!('id' in target) || revived.numUpdatedRows > 0n) return Number(revived.numUpdatedRows);
      // A pending message no worker holds (or whose holder's lease ran out) becomes due now.
      const hurried = await trx
        .updateTable('outbox')
        .set({ claim_id: null, next_attempt_at: at, updated_at: at })
        .where('id', '=', target.id)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('claim_id', 'is', null), eb('next_attempt_at', '<=', at)]))
        .executeTakeFirst();
      return Number(hurried.numUpdatedRows);
    });
  }

  /** Ends the claim `claimId` on message `id` with `changes`; false when that claim no longer holds it. */
  private async endClaim(id: string, claimId: string, changes: Updateable<OutboxTable>): Promise<boolean> {
    const result = await this.write(
      (trx) =>
        trx
          .updateTable('outbox')
          .set({ ...changes, claim_id: null })
          .where('id', '=', id)
          .where('claim_id', '=', claimId)
          .where('status', '=', 'pending')
          .executeTakeFirst(),
      UNFLUSHED_STATEMENT,
    );
    return result.numUpdatedRows > 0n;
  }

  private write<T>(work: (trx: Kysely<Database>) => Promise<T>, options?: WriteOptions): Promise<T> {
    return this.capabilities.writeTransaction(this.db, work, options);
  }
}
