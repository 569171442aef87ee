import type { Kysely } from 'kysely';
import { GLOBAL_SCOPE } from '../../../../services/store/access-records';
import type { UserListQuery } from '../../../../services/administration/admin-reads';
import type { StoredUser } from '../../../../services/types';
import { fromUserRow } from '../../rows';
import { USER_COLUMNS, type Database } from '../../schema';

/**
 * A page of the administrator's user list: newest first (`created_at`, then `id`, descending), continuing strictly
 * after `query.after`. A keyset, not an offset: a registration committing between two pages lands before the cursor
 * or after it, and so neither shifts nor repeats a row of the pages still to come. `users (created_at, id)` is
 * indexed for it.
 */
export async function listUsers(db: Kysely<Database>, query: UserListQuery): Promise<StoredUser[]> {
  if (query.limit < 1) return [];
  const { prefix, verified, disabled, role, createdFrom, createdBefore, after } = query;
  // Values from a URL: PostgreSQL text cannot hold NUL, so nothing stored matches one.
  if ([prefix, role, after?.id].some((value) => value?.includes('\u0000'))) return [];
  const rows = await db
    .selectFrom('users as u')
    .select(USER_COLUMNS.map((column) => `u.${column}` as const))
    // A prefix compared with substr, not LIKE: no wildcard of the prefix to escape, and no case folding of SQLite's
    // LIKE (the keys are already canonical).
    .$if(prefix !== undefined && prefix !== '', (q) =>
      q.where((eb) =>
        eb.or([
          eb(eb.fn('substr', ['u.username_key', eb.lit(1), eb.lit(prefix!.length)]), '=', prefix!),
          eb(eb.fn('substr', ['u.email_key', eb.lit(1), eb.lit(prefix!.length)]), '=', prefix!),
        ]),
      ),
    )
    .$if(verified !== undefined, (q) => q.where('u.verified', '=', verified ? 1 : 0))
    .$if(disabled !== undefined, (q) => q.where('u.disabled_at', disabled ? 'is not' : 'is', null))
    .$if(role !== undefined, (q) =>
      q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('user_roles as ur')
            .select('ur.user_id')
            .whereRef('ur.user_id', '=', 'u.id')
            .where('ur.scope', '=', GLOBAL_SCOPE)
            .where('ur.role', '=', role!),
        ),
      ),
    )
    .$if(createdFrom !== undefined, (q) => q.where('u.created_at', '>=', createdFrom!.getTime()))
    .$if(createdBefore !== undefined, (q) => q.where('u.created_at', '<', createdBefore!.getTime()))
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('u.created_at', '<', after!.createdAt.getTime()),
          eb.and([eb('u.created_at', '=', after!.createdAt.getTime()), eb('u.id', '<', after!.id)]),
        ]),
      ),
    )
    .orderBy('u.created_at', 'desc')
    .orderBy('u.id', 'desc')
    .limit(query.limit)
    .execute();
  return rows.map(fromUserRow);
}
