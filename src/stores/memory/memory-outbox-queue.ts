import { randomUUID } from 'node:crypto';
import {
  carriesLink,
  type ClaimedMessage,
  type OutboxEntry,
  type OutboxQuery,
  type RetryTarget,
} from '../../services/outbox-message';
import type { OutboxQueue } from '../../services/store/outbox-records';
import { claimedOf, entryOf, isAtOrBefore, type OutboxRow } from './copies';
import type { MemoryState } from './memory-state';

/**
 * The outbox as the delivery workers and the operator see it. Each write is a transaction of its own (it waits for
 * the running one): a message that a transaction queued is never claimed before that transaction commits, and a
 * message it supersedes is never claimed meanwhile. No transaction waits for one of these, so the wait always ends.
 */
export class MemoryOutboxQueue implements OutboxQueue {
  constructor(private readonly state: MemoryState) {}

  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedMessage[]> {
    return this.state.exclusive(() => {
      const { outbox } = this.state.live;
      const due = [...outbox.values()]
        .filter((row) => row.status === 'pending' && isAtOrBefore(row.nextAttemptAt, now))
        .sort(
          (a, b) =>
            a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime(),
        )
        .slice(0, Math.max(0, limit));
      return due.map((row) => {
        const claimed: OutboxRow = {
          ...row,
          claimId: randomUUID(),
          attempts: row.attempts + 1,
          nextAttemptAt: new Date(leaseUntil),
          updatedAt: new Date(now),
        };
        outbox.set(row.id, claimed);
        return claimedOf(claimed);
      });
    });
  }

  markSent(id: string, now: Date): Promise<boolean> {
    return this.state.exclusive(() => {
      const { outbox } = this.state.live;
      const row = outbox.get(id);
      if (row?.status !== 'pending') return false;
      outbox.set(id, {
        ...row,
        status: 'sent',
        sealedToken: null,
        claimId: null,
        lastError: null,
        sentAt: new Date(now),
        updatedAt: new Date(now),
      });
      return true;
    });
  }

  markRetry(id: string, claimId: string, nextAttemptAt: Date, lastError: string, now: Date): Promise<boolean> {
    return this.state.exclusive(() => {
      const row = this.heldMessage(id, claimId);
      if (!row) return false;
      this.state.live.outbox.set(id, {
        ...row,
        claimId: null,
        lastError,
        nextAttemptAt: new Date(nextAttemptAt),
        updatedAt: new Date(now),
      });
      return true;
    });
  }

  markFailed(id: string, claimId: string, lastError: string, now: Date): Promise<boolean> {
    return this.state.exclusive(() => {
      const row = this.heldMessage(id, claimId);
      if (!row) return false;
      this.state.live.outbox.set(id, {
        ...row,
        status: 'failed',
        sealedToken: null,
        claimId: null,
        lastError,
        updatedAt: new Date(now),
      });
      return true;
    });
  }

  /** A read: the committed messages, without waiting for a running transaction. */
  async list(query: OutboxQuery = {}): Promise<OutboxEntry[]> {
    return [...this.state.committed.outbox.values()]
      .filter((row) => query.status === undefined || row.status === query.status)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, query.limit ?? 100)
      .map(entryOf);
  }

  retry(target: RetryTarget, now: Date, giveUpAt: Date): Promise<number> {
    return this.state.exclusive(() => {
      const { outbox } = this.state.live;
      const rows = 'id' in target ? [outbox.get(target.id)].filter(isDefined) : [...outbox.values()];
      let changed = 0;
      for (const row of rows) {
        const waiting = row.status === 'pending' && (row.claimId === null || isAtOrBefore(row.nextAttemptAt, now));
        const revivable = row.status === 'failed' && !carriesLink(row.kind);
        if ('status' in target ? !revivable : !(waiting || revivable)) continue;
        outbox.set(row.id, {
          ...row,
          ...(revivable && { status: 'pending' as const, attempts: 0, giveUpAt: new Date(giveUpAt) }),
          claimId: null,
          nextAttemptAt: new Date(now),
          updatedAt: new Date(now),
        });
        changed++;
      }
      return changed;
    });
  }

  private heldMessage(id: string, claimId: string): OutboxRow | null {
    const row = this.state.live.outbox.get(id);
    return row && row.status === 'pending' && row.claimId === claimId ? row : null;
  }
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}
