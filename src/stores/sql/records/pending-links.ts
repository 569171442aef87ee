import type { Kysely } from 'kysely';
import { SUPERSEDED_ERROR, type OutboxKind } from '../../../services/outbox-message';
import type { Database } from '../schema';

// The outbox's pending messages whose links died with the tokens or the change they carried: a change that deletes
// those fails the messages in the same transaction, so a dead link is never sent.

/**
 * A new link supersedes the pending messages of the same kind to the user: their tokens were just deleted, so their
 * links are dead. Messages a worker holds right now are left to finish, but never tried again (`giveUpHeld`).
 */
export async function supersedeMessages(
  trx: Kysely<Database>,
  userId: string,
  kind: OutboxKind,
  at: Date,
): Promise<void> {
  await trx
    .updateTable('outbox')
    .set({
      status: 'failed',
      sealed_token: null,
      last_error: SUPERSEDED_ERROR,
      updated_at: at.getTime(),
    })
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('status', '=', 'pending')
    .where('claim_id', 'is', null)
    .execute();
  await giveUpHeld(trx, [userId], at, kind);
}

/**
 * The users' pending links that no worker holds fail as superseded: their tokens are going. Those a worker holds are
 * left to finish, but never tried again (`giveUpHeld`).
 */
export async function failPendingLinks(trx: Kysely<Database>, userIds: string[], now: Date): Promise<void> {
  await trx
    .updateTable('outbox')
    .set({ status: 'failed', sealed_token: null, last_error: SUPERSEDED_ERROR, updated_at: now.getTime() })
    .where('user_id', 'in', userIds)
    .where('status', '=', 'pending')
    .where('claim_id', 'is', null)
    .where('sealed_token', 'is not', null)
    .execute();
  await giveUpHeld(trx, userIds, now);
}

/**
 * Dead links a worker is sending right now: the send under way cannot be called back, but a failed one is not tried
 * again, as its give-up time becomes `at` (the next claim fails it as expired). Of one kind, or every link.
 */
async function giveUpHeld(trx: Kysely<Database>, userIds: string[], at: Date, kind?: OutboxKind): Promise<void> {
  await trx
    .updateTable('outbox')
    .set({ give_up_at: at.getTime() })
    .where('user_id', 'in', userIds)
    .where('status', '=', 'pending')
    .where('claim_id', 'is not', null)
    .where('give_up_at', '>', at.getTime())
    .$if(kind !== undefined, (query) => query.where('kind', '=', kind!))
    .$if(kind === undefined, (query) => query.where('sealed_token', 'is not', null))
    .execute();
}
