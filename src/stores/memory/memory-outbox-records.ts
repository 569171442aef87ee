import {
  checkOutboxKind,
  SUPERSEDED_ERROR,
  type NewOutboxMessage,
  type OutboxKind,
} from '../../services/outbox-message';
import type { MessageRecipient, OutboxWriter } from '../../services/store/outbox-records';
import type { OutboxRow } from './copies';
import type { MemoryData } from './memory-state';

/** The outbox inside a transaction: a message queued with the change that causes it. */
export class MemoryOutboxRecords implements OutboxWriter {
  constructor(private readonly data: MemoryData) {}

  async add(message: NewOutboxMessage, recipient: MessageRecipient): Promise<void> {
    // Mirrors the primary key: the throw undoes the whole transaction.
    if (this.data.outbox.has(message.id)) throw new Error('MemoryUserStore: duplicate message id');
    this.data.outbox.set(message.id, {
      id: message.id,
      // As the SQL stores: the kind is checked here, not by a table constraint.
      kind: checkOutboxKind(message.kind),
      userId: recipient.id,
      username: recipient.username,
      email: recipient.email,
      sealedToken: message.sealedToken,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(message.createdAt),
      giveUpAt: new Date(message.giveUpAt),
      createdAt: new Date(message.createdAt),
      updatedAt: new Date(message.createdAt),
      sentAt: null,
      lastError: null,
      claimId: null,
    });
  }
}

/**
 * Pending messages of the same kind to the user, that no worker holds, die with the token they carried; one a worker
 * holds is left to finish, but never tried again (see `giveUpHeld`).
 */
export function supersedeMessages(data: MemoryData, userId: string, kind: OutboxKind, at: Date): void {
  failPending(data, userId, at, (row) => row.kind === kind);
}

/**
 * The user's pending links that no worker holds fail as superseded: their tokens are gone. One a worker holds is
 * left to finish, but never tried again (see `giveUpHeld`).
 */
export function failPendingLinks(data: MemoryData, userId: string, at: Date): void {
  failPending(data, userId, at, (row) => row.sealedToken !== null);
}

function failPending(data: MemoryData, userId: string, at: Date, which: (row: OutboxRow) => boolean): void {
  for (const [id, row] of [...data.outbox.entries()]) {
    if (row.userId !== userId || row.status !== 'pending' || !which(row)) continue;
    if (row.claimId === null) {
      data.outbox.set(id, {
        ...row,
        status: 'failed',
        sealedToken: null,
        lastError: SUPERSEDED_ERROR,
        updatedAt: new Date(at),
      });
    } else giveUpHeld(data, row, at);
  }
}

/**
 * A dead link a worker is sending right now: the send under way cannot be called back, but a failed one is not tried
 * again, as its give-up time is now (the next claim fails it as expired).
 */
function giveUpHeld(data: MemoryData, row: OutboxRow, at: Date): void {
  if (row.giveUpAt.getTime() > at.getTime()) data.outbox.set(row.id, { ...row, giveUpAt: new Date(at) });
}
