import type { Kysely } from 'kysely';
import type { PasswordReads, PasswordRecords, PasswordSignIn } from '../../../services/store/password-records';
import type { StoredUser } from '../../../services/types';
import type { RequestPathQueries } from '../request-path-queries';
import { fromUserRow, toCredentialRow } from '../rows';
import { type Database, USER_COLUMNS } from '../schema';
import { endSessionsAndResets } from './credential-ends';
import { firstRowBy } from './sql-user-reads';
import { consumeToken } from './sql-token-records';
import type { SqlUnit } from './unit-of-work';
import { lockUser, NEXT_CREDENTIAL_EPOCH, sessionStillOpen, type UserRow } from './user-rows';

/** The password credential of each account, read on `db` (the store's, or a transaction's). */
export class SqlPasswordReads implements PasswordReads {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly queries: RequestPathQueries,
  ) {}

  async findForSignIn(usernameKey: string): Promise<PasswordSignIn | null> {
    const row = await firstRowBy(this.db, this.queries.signInByUsernameKey, usernameKey);
    if (!row) return null;
    const { password_hash: passwordHash, ...user } = row;
    return { user: fromUserRow(user), passwordHash: passwordHash ?? null };
  }

  async hashOf(userId: string): Promise<string | null> {
    return (await firstRowBy(this.db, this.queries.passwordOf, userId))?.secret ?? null;
  }
}

/** The password credential of each account, inside a transaction. */
export class SqlPasswordRecords implements PasswordRecords {
  constructor(private readonly unit: SqlUnit) {}

  async findForSignIn(usernameKey: string): Promise<PasswordSignIn | null> {
    return (await this.reads()).findForSignIn(usernameKey);
  }

  async hashOf(userId: string): Promise<string | null> {
    return (await this.reads()).hashOf(userId);
  }

  async reset(tokenHash: string, newPasswordHash: string, now: Date): Promise<StoredUser | null> {
    const trx = await this.unit.ready();
    const userId = await consumeToken(trx, tokenHash, 'reset_password', now, this.unit.capabilities.rowLocks);
    if (userId === null) return null;
    const row = await touchUser(trx, userId, now, true);
    if (!row) return null;
    // A reset proves the mailbox: it gives an account without a password one.
    const replaced = await trx
      .updateTable('credentials')
      .set({ secret: newPasswordHash })
      .where('user_id', '=', userId)
      .where('kind', '=', 'password')
      .executeTakeFirst();
    if (replaced.numUpdatedRows === 0n) {
      await trx
        .insertInto('credentials')
        .values(toCredentialRow(userId, 'password', newPasswordHash, now))
        .execute();
    }
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
    // The user row first (the lock order, see `lockUser`): a reset, deletion or other change of the user queues here.
    if (rowLocks) await lockUser(trx, userId);
    if (sessionTokenHash !== undefined && !(await sessionStillOpen(trx, sessionTokenHash, userId, rowLocks))) {
      return null;
    }
    if (!(await replacePasswordHash(trx, userId, expectedHash, newPasswordHash))) return null;
    const row = await touchUser(trx, userId, now, true);
    if (!row) return null;
    await endSessionsAndResets(trx, userId, now);
    return fromUserRow(row);
  }

  async rehash(userId: string, expectedHash: string, newPasswordHash: string, now: Date): Promise<boolean> {
    const trx = await this.unit.ready();
    if (this.unit.capabilities.rowLocks) await lockUser(trx, userId);
    if (!(await replacePasswordHash(trx, userId, expectedHash, newPasswordHash))) return false;
    // The same password: the credential state, and every session under it, stays.
    return (await touchUser(trx, userId, now, false)) !== null;
  }

  private async reads(): Promise<SqlPasswordReads> {
    return new SqlPasswordReads(await this.unit.ready(), this.unit.queries);
  }
}

/**
 * Conditional on the hash the caller verified against, so a password changed meanwhile is never overwritten. Whether
 * it was replaced.
 */
async function replacePasswordHash(
  trx: Kysely<Database>,
  userId: string,
  expectedHash: string,
  newPasswordHash: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('credentials')
    .set({ secret: newPasswordHash })
    .where('user_id', '=', userId)
    .where('kind', '=', 'password')
    .where('secret', '=', expectedHash)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The user's `updatedAt` becomes `now`; a new password (`endsSessions`) moves the credential state on. */
async function touchUser(
  trx: Kysely<Database>,
  userId: string,
  now: Date,
  endsSessions: boolean,
): Promise<UserRow | null> {
  const row = await trx
    .updateTable('users')
    .set({ updated_at: now.getTime() })
    .$if(endsSessions, (query) => query.set({ credential_epoch: NEXT_CREDENTIAL_EPOCH }))
    .where('id', '=', userId)
    .returning(USER_COLUMNS)
    .executeTakeFirst();
  return row ?? null;
}
