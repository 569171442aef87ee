import type { Kysely } from 'kysely';
import type { OutboxKind } from '../../../services/outbox-message';
import type { TokenReads, TokenRecords } from '../../../services/store/password-records';
import type { StoredToken, StoredUser, TokenPurpose } from '../../../services/types';
import { fromUserRow, toTokenRow } from '../rows';
import type { Database } from '../schema';
import { deleteTokensOf } from './credential-ends';
import { supersedeMessages } from './pending-links';
import type { SqlUnit } from './unit-of-work';
import { lockedUser } from './user-rows';

/** The emailed single-use tokens, read on `db` (the store's, or a transaction's). */
export class SqlTokenReads implements TokenReads {
  constructor(private readonly db: Kysely<Database>) {}

  async findUser(tokenHash: string, purpose: TokenPurpose, now: Date): Promise<StoredUser | null> {
    const row = await this.db
      .selectFrom('tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .selectAll('u')
      .where('t.token_hash', '=', tokenHash)
      .where('t.purpose', '=', purpose)
      .where('t.expires_at', '>', now.getTime())
      .executeTakeFirst();
    return row ? fromUserRow(row) : null;
  }
}

/** The emailed single-use tokens inside a transaction. */
export class SqlTokenRecords implements TokenRecords {
  constructor(private readonly unit: SqlUnit) {}

  async findUser(tokenHash: string, purpose: TokenPurpose, now: Date): Promise<StoredUser | null> {
    return new SqlTokenReads(await this.unit.ready()).findUser(tokenHash, purpose, now);
  }

  async replace(token: StoredToken, supersede: { kind: OutboxKind; at: Date }): Promise<StoredUser | null> {
    const trx = await this.unit.ready();
    // The user row first (the lock order, see `lockUser`), read whole: the new link is addressed from it.
    const user = await lockedUser(trx, token.userId, this.unit.capabilities.rowLocks);
    // A disabled account gets no new token (a disable committed first; one committing later deletes this one).
    if (!user || user.disabled_at !== null) return null;
    await deleteTokensOf(trx, token.userId, token.purpose);
    await supersedeMessages(trx, token.userId, supersede.kind, supersede.at);
    // Waits to go with the new link's message and the audit event (`SqlUnit`): one statement on PostgreSQL.
    this.unit.queue((db) => db.insertInto('tokens').values(toTokenRow(token)));
    return fromUserRow(user);
  }
}

/**
 * Claims a token: exactly one of several concurrent callers gets the user id, the others get null. With `rowLocks`,
 * the token's user is locked first (see `lockUser`).
 */
export async function consumeToken(
  trx: Kysely<Database>,
  tokenHash: string,
  purpose: TokenPurpose,
  now: Date,
  rowLocks: boolean,
): Promise<string | null> {
  if (rowLocks) {
    const owner = await trx
      .selectFrom('tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select('u.id')
      .where('t.token_hash', '=', tokenHash)
      .forNoKeyUpdate('u')
      .executeTakeFirst();
    if (!owner) return null;
  }
  const claimed = await trx
    .deleteFrom('tokens')
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('expires_at', '>', now.getTime())
    .returning('user_id')
    .executeTakeFirst();
  return claimed?.user_id ?? null;
}
