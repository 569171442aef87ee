import type { Kysely } from 'kysely';
import type {
  EmailChangeReads,
  EmailChangeRecords,
  EmailChangeRequestResult,
  EmailChangeResult,
} from '../../../../services/email-changes/email-change-records';
import type { StoredEmailChange, StoredUser } from '../../../../services/types';
import { fromEmailChangeRow, fromUserRow, toEmailChangeRow } from '../../rows';
import { type Database, USER_COLUMNS } from '../../schema';
import { deleteTokensOf } from '../credential-ends';
import { supersedeMessages } from '../pending-links';
import type { SqlUnit } from '../unit-of-work';
import { endRegistrations } from '../user-owned-tables';
import { sessionStillOpen, userRowOf, verifiedOwnerOf } from '../user-rows';

/** Pending changes of address, read on `db` (the store's, or a transaction's). */
export class SqlEmailChangeReads implements EmailChangeReads {
  constructor(private readonly db: Kysely<Database>) {}

  async find(tokenHash: string, now: Date): Promise<{ change: StoredEmailChange; user: StoredUser } | null> {
    const row = await this.db
      .selectFrom('email_changes as c')
      .innerJoin('users as u', 'u.id', 'c.user_id')
      .select(USER_COLUMNS.map((column) => `u.${column}` as const))
      .select([
        'c.new_email as change_new_email',
        'c.new_email_key as change_new_email_key',
        'c.created_at as change_created_at',
        'c.expires_at as change_expires_at',
        'c.end_other_sessions as change_end_other_sessions',
        'c.keep_session_id as change_keep_session_id',
      ])
      .where('c.token_hash', '=', tokenHash)
      .where('c.expires_at', '>', now.getTime())
      .executeTakeFirst();
    if (!row) return null;
    const change = fromEmailChangeRow({
      token_hash: tokenHash,
      user_id: row.id,
      new_email: row.change_new_email,
      new_email_key: row.change_new_email_key,
      created_at: row.change_created_at,
      expires_at: row.change_expires_at,
      end_other_sessions: row.change_end_other_sessions,
      keep_session_id: row.change_keep_session_id,
    });
    return { change, user: fromUserRow(row) };
  }
}

/** Pending changes of address, inside a transaction. */
export class SqlEmailChangeRecords implements EmailChangeRecords {
  constructor(private readonly unit: SqlUnit) {}

  async find(tokenHash: string, now: Date): Promise<{ change: StoredEmailChange; user: StoredUser } | null> {
    return new SqlEmailChangeReads(await this.unit.ready()).find(tokenHash, now);
  }

  async request(change: StoredEmailChange, sessionTokenHash: string): Promise<EmailChangeRequestResult> {
    const { rowLocks } = this.unit.capabilities;
    const trx = await this.unit.ready();
    // The user row first: concurrent requests of one user queue here (one pending change each), and a deletion,
    // reset or change that ends the asking session finishes first.
    const user = await trx
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('id', '=', change.userId)
      .$if(rowLocks, (query) => query.forNoKeyUpdate())
      .executeTakeFirst();
    if (!user) return { ok: false };
    if (!(await sessionStillOpen(trx, sessionTokenHash, user.id, rowLocks))) return { ok: false };

    await trx.deleteFrom('email_changes').where('user_id', '=', user.id).execute();
    await trx.insertInto('email_changes').values(toEmailChangeRow(change)).execute();
    // The earlier change's link died with its row, whichever path this request takes.
    await supersedeMessages(trx, user.id, 'emailChange', change.createdAt);
    const owner = await verifiedOwnerOf(trx, change.newEmailKey, user.id);
    return { ok: true, user: fromUserRow(user), owner: owner ? fromUserRow(owner) : null };
  }

  async confirm(tokenHash: string, now: Date): Promise<EmailChangeResult> {
    // A unique violation means another account became the verified owner of the address while we ran (PostgreSQL,
    // where that account's transaction locked other rows than ours); the next run finds that owner: `taken`.
    this.unit.retryOnUniqueViolation(3);
    const trx = await this.unit.ready();
    const pending = await trx
      .selectFrom('email_changes')
      .select(['user_id', 'new_email_key'])
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!pending) return { outcome: 'invalid' };
    const { user_id: userId, new_email_key: emailKey } = pending;
    if (this.unit.capabilities.rowLocks) {
      // The user and every registration of the new address, in one order (by id, as `confirmAddress` takes them),
      // before the change itself: a confirmation of the same token, another account's confirmation of the same
      // address and a verification of a registration of it queue here instead of deadlocking, and the later one then
      // finds the change gone, or the owner.
      await trx
        .selectFrom('users')
        .select('id')
        .where((eb) => eb.or([eb('id', '=', userId), eb('email_key', '=', emailKey)]))
        .orderBy('id')
        .forUpdate()
        .execute();
    }
    const consumed = await trx
      .deleteFrom('email_changes')
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now.getTime())
      .returningAll()
      .executeTakeFirst();
    if (!consumed) return { outcome: 'invalid' };
    const change = fromEmailChangeRow(consumed);
    if (await verifiedOwnerOf(trx, change.newEmailKey, change.userId)) return { outcome: 'taken' };

    const previous = await userRowOf(trx, change.userId);
    // The change went with its user, so a consumed change always has one; this only narrows the type.
    if (!previous) return { outcome: 'invalid' };
    const row = await trx
      .updateTable('users')
      .set({ email: change.newEmail, email_key: change.newEmailKey, updated_at: now.getTime() })
      .where('id', '=', change.userId)
      .returningAll()
      .executeTakeFirstOrThrow();
    const others = await trx
      .selectFrom('users')
      .select('id')
      .where('email_key', '=', change.newEmailKey)
      .where('verified', '=', 0)
      .where('id', '<>', change.userId)
      .execute();
    await endRegistrations(
      trx,
      others.map((other) => other.id),
      now,
    );
    // Reset links went to the old address: those not sent yet are not sent at all.
    await deleteTokensOf(trx, change.userId, 'reset_password');
    await supersedeMessages(trx, change.userId, 'passwordReset', now);
    let endedSessions = 0;
    if (change.endOtherSessions) {
      const ended = await trx
        .deleteFrom('sessions')
        .where('user_id', '=', change.userId)
        .$if(change.keepSessionId !== null, (query) => query.where('id', '<>', change.keepSessionId!))
        .executeTakeFirst();
      endedSessions = Number(ended.numDeletedRows);
    }
    return { outcome: 'changed', user: fromUserRow(row), previousEmail: previous.email, endedSessions };
  }
}
