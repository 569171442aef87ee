import type { ClaimedMessage, NewOutboxMessage, OutboxEntry, OutboxQuery, RetryTarget } from '../outbox-message';
import type { StoredUser } from '../types';

/** Whom a message goes to: copied into the message, so that it outlives its user and a later change of address. */
export type MessageRecipient = Pick<StoredUser, 'id' | 'username' | 'email'>;

/**
 * The outbox inside a transaction (`UserStoreTransaction.outbox`): a message queued with the change that causes it
 * commits with it, or neither does.
 */
export interface OutboxWriter {
  /**
   * Queues `message` to `recipient` (pending, due at its `createdAt`). A message that cannot be stored (its id is
   * taken) throws, and so undoes the whole transaction.
   */
  add(message: NewOutboxMessage, recipient: MessageRecipient): Promise<void>;
}

/**
 * The outbox as the delivery workers and the operator see it (`UserStore.outbox`): messages claimed under a lease,
 * with each outcome recorded. Each method is its own short transaction.
 */
export interface OutboxQueue {
  /**
   * Claims up to `limit` pending messages due at `now` (`nextAttemptAt <= now`), oldest due first: each gets a new
   * claim id, one more attempt, and `nextAttemptAt = leaseUntil`, so no other caller can claim it until the lease
   * runs out (a worker that dies holding a claim thus delays the message by the lease, and never loses it).
   * Concurrent callers never get the same message (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedMessage[]>;
  /**
   * Records that a pending message was accepted by the sender: `sent`, its sealed token erased. Whoever holds the
   * claim: a delivery is a fact even when its lease ran out. False when the message is not pending.
   */
  markSent(id: string, now: Date): Promise<boolean>;
  /**
   * Ends the claim `claimId` with a failed attempt: pending again, due at `nextAttemptAt`, with the failure's code.
   * False (and no change) when the message is no longer held under that claim.
   */
  markRetry(id: string, claimId: string, nextAttemptAt: Date, lastError: string, now: Date): Promise<boolean>;
  /** Ends the claim `claimId` by giving up: `failed`, its sealed token erased. False as for `markRetry`. */
  markFailed(id: string, claimId: string, lastError: string, now: Date): Promise<boolean>;
  /** Messages newest first (by creation), optionally of one status; at most `limit` (default 100). */
  list(query?: OutboxQuery): Promise<OutboxEntry[]>;
  /**
   * Makes messages due again (see `RetryTarget`): a pending one that no worker holds is due at `now`; a failed one
   * that carries no link becomes pending, due at `now`, with no attempts yet and `giveUpAt`. Returns how many changed.
   */
  retry(target: RetryTarget, now: Date, giveUpAt: Date): Promise<number>;
}
