import type { ClaimedMessage, NewOutboxMessage, OutboxEntry, OutboxQuery, RetryTarget } from './outbox-message';

/**
 * The outbox: email that must not be lost, queued by the account changes that cause it (see `AccountStore`), then
 * claimed by delivery workers under a lease, with each outcome recorded (the conformance suite in
 * `stores/conformance/outbox/` checks it).
 */
export interface OutboxStore {
  /** Queues a message that no account change causes, to the user `userId`; false, and nothing stored, when that user does not exist. */
  enqueueMessage(userId: string, message: NewOutboxMessage): Promise<boolean>;
  /**
   * Atomically claims up to `limit` pending messages due at `now` (`nextAttemptAt <= now`), oldest due first: each
   * gets a new claim id, one more attempt, and `nextAttemptAt = leaseUntil`, so no other caller can claim it until the
   * lease runs out (a worker that dies holding a claim thus delays the message by the lease, and never loses it).
   * Concurrent callers never get the same message (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  claimDueMessages(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedMessage[]>;
  /**
   * Records that a pending message was accepted by the sender: `sent`, its sealed token erased. Whoever holds the
   * claim: a delivery is a fact even when its lease ran out. False when the message is not pending.
   */
  markMessageSent(id: string, now: Date): Promise<boolean>;
  /**
   * Ends the claim `claimId` with a failed attempt: pending again, due at `nextAttemptAt`, with the failure's code.
   * False (and no change) when the message is no longer held under that claim.
   */
  markMessageRetry(id: string, claimId: string, nextAttemptAt: Date, lastError: string, now: Date): Promise<boolean>;
  /** Ends the claim `claimId` by giving up: `failed`, its sealed token erased. False as for `markMessageRetry`. */
  markMessageFailed(id: string, claimId: string, lastError: string, now: Date): Promise<boolean>;
  /** Messages newest first (by creation), optionally of one status; at most `limit` (default 100). */
  listMessages(query?: OutboxQuery): Promise<OutboxEntry[]>;
  /**
   * Makes messages due again (see `RetryTarget`): a pending one that no worker holds is due at `now`; a failed one
   * that carries no link becomes pending, due at `now`, with no attempts yet and `giveUpAt`. Returns how many changed.
   */
  retryMessages(target: RetryTarget, now: Date, giveUpAt: Date): Promise<number>;
}
