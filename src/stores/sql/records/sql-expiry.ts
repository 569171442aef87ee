import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { ExpiryCutoffs } from '../../../services/user-store';
import type { Database } from '../schema';
import type { SqlCapabilities } from '../sql-capabilities';
import { deleteUsersWithDependents } from './user-owned-tables';

/** Rows removed per transaction by `deleteExpired`. */
const CLEANUP_BATCH_SIZE = 1000;

/**
 * `UserStore.deleteExpired`. In batches, each its own short transaction, so that a large backlog never holds a lock
 * (SQLite: the whole database) for long (`deleteInBatches`, `batch`). The expiry columns are indexed, so each batch
 * is found without a scan.
 */
export async function deleteExpired(
  db: Kysely<Database>,
  capabilities: SqlCapabilities,
  cutoffs: ExpiryCutoffs,
): Promise<number> {
  const { now, sessionIdleBefore, unverifiedCreatedBefore, outboxChangedBefore, auditBefore } = cutoffs;
  /**
   * Runs `deleteBatch` (which deletes at most `CLEANUP_BATCH_SIZE` rows and says how many) in a transaction of its
   * own, again and again, until a batch comes back short; returns how many rows went in all.
   */
  const deleteInBatches = async (deleteBatch: (trx: Kysely<Database>) => Promise<number>): Promise<number> => {
    let deleted = 0;
    for (;;) {
      const batch = await capabilities.writeTransaction(db, deleteBatch);
      deleted += batch;
      if (batch < CLEANUP_BATCH_SIZE) return deleted;
    }
  };
  /**
   * One clean-up batch of a select: at most `CLEANUP_BATCH_SIZE` rows and, where rows are locked, only those no other
   * instance's clean-up holds (SKIP LOCKED), so instances take disjoint batches instead of waiting on each other.
   */
  const batch = <TB extends keyof Database, O>(query: SelectQueryBuilder<Database, TB, O>) =>
    query.limit(CLEANUP_BATCH_SIZE).$if(capabilities.rowLocks, (locked) => locked.forUpdate().skipLocked());

  let deleted = 0;
  if (unverifiedCreatedBefore) {
    // Registrations never confirmed go with everything of theirs (the registry of user-owned tables).
    deleted += await deleteInBatches(async (trx) => {
      const expired = await trx
        .selectFrom('users')
        .select('id')
        .where('verified', '=', 0)
        .where('created_at', '<=', unverifiedCreatedBefore.getTime())
        .$call(batch)
        .execute();
      return deleteUsersWithDependents(
        trx,
        expired.map((user) => user.id),
      );
    });
  }
  for (const table of ['sessions', 'tokens'] as const) {
    deleted += await deleteInBatches(async (trx) => {
      const result = await trx
        .deleteFrom(table)
        .where('token_hash', 'in', (eb) =>
          eb
            .selectFrom(table)
            .select('token_hash')
            .where((eb) =>
              table === 'sessions'
                ? eb.or([eb('expires_at', '<=', now.getTime()), eb('last_seen_at', '<=', sessionIdleBefore.getTime())])
                : eb('expires_at', '<=', now.getTime()),
            )
            .$call(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }
  for (const table of ['email_changes', 'login_challenges'] as const) {
    deleted += await deleteInBatches(async (trx) => {
      const result = await trx
        .deleteFrom(table)
        .where('token_hash', 'in', (eb) =>
          eb.selectFrom(table).select('token_hash').where('expires_at', '<=', now.getTime()).$call(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }
  // A ceremony's challenge, a started OpenID flow and a callback's handoff are keyed by their own hashes, not a
  // token's: the same sweep under other keys.
  deleted += await deleteInBatches(async (trx) => {
    const result = await trx
      .deleteFrom('passkey_challenges')
      .where('challenge_hash', 'in', (eb) =>
        eb
          .selectFrom('passkey_challenges')
          .select('challenge_hash')
          .where('expires_at', '<=', now.getTime())
          .$call(batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
  deleted += await deleteInBatches(async (trx) => {
    const result = await trx
      .deleteFrom('oidc_flows')
      .where('state_hash', 'in', (eb) =>
        eb.selectFrom('oidc_flows').select('state_hash').where('expires_at', '<=', now.getTime()).$call(batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
  deleted += await deleteInBatches(async (trx) => {
    const result = await trx
      .deleteFrom('oidc_handoffs')
      .where('code_hash', 'in', (eb) =>
        eb.selectFrom('oidc_handoffs').select('code_hash').where('expires_at', '<=', now.getTime()).$call(batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
  // Invitations past their expiry (accepted, declined, cancelled and replaced ones are deleted at once).
  deleted += await deleteInBatches(async (trx) => {
    const result = await trx
      .deleteFrom('organization_invitations')
      .where('id', 'in', (eb) =>
        eb.selectFrom('organization_invitations').select('id').where('expires_at', '<=', now.getTime()).$call(batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
  // API keys past their expiry (revoked ones are deleted at once); `api_keys_expires_at_index` finds each batch.
  deleted += await deleteInBatches(async (trx) => {
    const result = await trx
      .deleteFrom('api_keys')
      .where('id', 'in', (eb) =>
        eb.selectFrom('api_keys').select('id').where('expires_at', '<=', now.getTime()).$call(batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
  if (outboxChangedBefore) {
    deleted += await deleteInBatches(async (trx) => {
      const result = await trx
        .deleteFrom('outbox')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('outbox')
            .select('id')
            .where('status', 'in', ['sent', 'failed'])
            .where('updated_at', '<=', outboxChangedBefore.getTime())
            .$call(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }
  if (auditBefore) {
    // The trail past its retention; `audit_events (at, id)` finds each batch.
    deleted += await deleteInBatches(async (trx) => {
      const result = await trx
        .deleteFrom('audit_events')
        .where('id', 'in', (eb) =>
          eb.selectFrom('audit_events').select('id').where('at', '<=', auditBefore.getTime()).$call(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }
  return deleted;
}
