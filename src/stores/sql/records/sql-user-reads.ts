import type { Kysely } from 'kysely';
import type { UserReads } from '../../../services/store/user-records';
import type { StoredUser } from '../../../services/types';
import type { PrecompiledQuery } from '../precompiled-query';
import type { RequestPathQueries } from '../request-path-queries';
import { fromUserRow } from '../rows';
import { type Database, USER_COLUMNS } from '../schema';

/**
 * The lookups of users on `db` (the store's, outside a transaction, or a transaction's). By id, username key and
 * verified address they are request-path reads (`requestPathQueries`: login's lookup among them), compiled once.
 */
export class SqlUserReads implements UserReads {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly queries: RequestPathQueries,
  ) {}

  async findById(id: string): Promise<StoredUser | null> {
    return this.findUserWith(this.queries.userById, id);
  }

  async findByUsernameKey(usernameKey: string): Promise<StoredUser | null> {
    return this.findUserWith(this.queries.userByUsernameKey, usernameKey);
  }

  async findVerifiedByEmailKey(emailKey: string): Promise<StoredUser | null> {
    return this.findUserWith(this.queries.verifiedUserByEmailKey, emailKey);
  }

  async findUnverifiedByEmailKey(emailKey: string, createdAfter: Date, limit: number): Promise<StoredUser[]> {
    if (emailKey.includes('\u0000') || limit < 1) return [];
    const rows = await this.db
      .selectFrom('users as u')
      .select(USER_COLUMNS.map((column) => `u.${column}` as const))
      .where('u.email_key', '=', emailKey)
      .where('u.verified', '=', 0)
      .where('u.created_at', '>', createdAfter.getTime())
      .orderBy('u.created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map(fromUserRow);
  }

  private async findUserWith(query: RequestPathQueries['userById'], value: string): Promise<StoredUser | null> {
    const row = await firstRowBy(this.db, query, value);
    return row ? fromUserRow(row) : null;
  }
}

/** The first row of a request-path read by one text value. */
export async function firstRowBy<Row>(
  db: Kysely<Database>,
  query: PrecompiledQuery<[string], Row>,
  value: string,
): Promise<Row | undefined> {
  // Some are looked up with text as typed (a username at login). PostgreSQL text cannot hold NUL, so no stored key
  // has one, and asking would be an error there rather than the absence it is everywhere.
  if (value.includes('\u0000')) return undefined;
  const [row] = await query.execute(db, value);
  return row;
}
