import type { Kysely } from 'kysely';
import type { PasswordRecords } from '../../../services/store/password-records';
import type { StoredUser } from '../../../services/types';
import { fromUserRow } from '../rows';
import { type Database, USER_COLUMNS } from '../schema';
import { endSessionsAndResets } from './credential-ends';
import { consumeToken } from './sql-token-records';
import type { SqlUnit } from './unit-of-work';
import { lockUser, NEXT_CREDENTIAL_EPOCH, sessionStillOpen, type UserRow } from './user-rows';

/** The password of each account, inside a transaction. */
export class SqlPasswordRecords implements PasswordRecords {
  constructor(private readonly unit: SqlUnit) {}

  async reset(tokenHash: string, newPasswordHash: string, now: Date): Promise<StoredUser | null> {
    const trx = await this.unit.ready();
    const userId = await consumeToken(trx, tokenHash, 'reset_password', now, this.unit.capabilities.rowLocks);
    if (userId === null) return null;
    const row = await trx
      .updateTable('users')
      .set({ password_hash: newPasswordHash, updated_at: now.getTime(), credential_epoch: NEXT_CREDENTIAL_EPOCH })
      .where('id', '=', userId)
      .returningAll()
      .executeTakeFirst();
    if (!row) return null;
    await endSessionsAndResets(trx, userId, now);
    return fromUserRow(row);
  }

  async change(
    userId: string,
    expectedHash: string,
    newPasswordHash: string,
    now: Date,
    sessionTokenHash?: string,
  ): Promise<StoredUser | null> {
    const { rowLocks } = this.unit.capabilities;
    const trx = await this.unit.ready();
    if (sessionTokenHash !== undefined) {
      if (rowLocks) await lockUser(trx, userId);
      if (!(await sessionStillOpen(trx, sessionTokenHash, userId, rowLocks))) return null;
    }
    const row = await replacePasswordHash(trx, userId, expectedHash, newPasswordHash, now, true);
    if (!row) return null;
    await endSessionsAndResets(trx, userId, now);
    return fromUserRow(row);
  }

  async rehash(userId: string, expectedHash: string, newPasswordHash: string, now: Date): Promise<boolean> {
    const trx = await this.unit.ready();
    // The same password: the credential state, and every session under it, stays.
    return (await replacePasswordHash(trx, userId, expectedHash, newPasswordHash, now, false)) !== null;
  }
}

/**
 * Conditional on the hash the caller verified against, so a password changed meanwhile is never overwritten; a new
 * password (`endsSessions`) moves the credential state on. Returns the user as it is now, or null when nothing was
 * replaced.
 */
async function replacePasswordHash(
  trx: Kysely<Database>,
  userId: string,
  expectedHash: string,
  newPasswordHash: string,
  now: Date,
  endsSessions: boolean,
): Promise<UserRow | null> {
  const row = await trx
    .updateTable('users')
    .set({ password_hash: newPasswordHash, updated_at: now.getTime() })
    .$if(endsSessions, (query) => query.set({ credential_epoch: NEXT_CREDENTIAL_EPOCH }))
    .where('id', '=', userId)
    .where('password_hash', '=', expectedHash)
    .returning(USER_COLUMNS)
    .executeTakeFirst();
  return row ?? null;
}
