import type { Kysely } from 'kysely';
import { GLOBAL_SCOPE } from '../../../../services/store/access-records';
import type { AdminReads, UserDetails, UserListQuery } from '../../../../services/administration/admin-reads';
import type { StoredUser } from '../../../../services/types';
import { fromUserRow } from '../../rows';
import { type Database, USER_COLUMNS } from '../../schema';
import type { SqlCapabilities } from '../../sql-capabilities';
import { listUsers } from './user-list-query';
import { sortNames, userRoleNames } from '../sql-access-records';

/** The reads of the administration, on the store's Kysely. */
export class SqlAdminReads implements AdminReads {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: SqlCapabilities,
  ) {}

  async listUsers(query: UserListQuery): Promise<StoredUser[]> {
    return listUsers(this.db, query);
  }

  async userDetails(userId: string, now: Date, sessionIdleBefore: Date): Promise<UserDetails | null> {
    if (userId.includes('\u0000')) return null;
    // One transaction, the user row first and shared: a login, disable, deletion or password change of the user
    // (each locks that row) commits before it or after it, never halfway through what it reads.
    return this.capabilities.writeTransaction(this.db, async (trx) => {
      const row = await trx
        .selectFrom('users as u')
        .select(USER_COLUMNS.map((column) => `u.${column}` as const))
        .where('u.id', '=', userId)
        .$if(this.capabilities.rowLocks, (query) => query.forShare())
        .executeTakeFirst();
      if (!row) return null;
      // Global grants only: today's administration knows no other scope.
      const roles = await userRoleNames(trx, userId, GLOBAL_SCOPE);
      const permissions = await trx
        .selectFrom('role_permissions as rp')
        .innerJoin('user_roles as ur', 'ur.role', 'rp.role')
        .select('rp.permission')
        .distinct()
        .where('ur.user_id', '=', userId)
        .where('ur.scope', '=', GLOBAL_SCOPE)
        .execute();
      const factor = await trx
        .selectFrom('credentials')
        .select('enabled')
        .where('user_id', '=', userId)
        .where('kind', '=', 'totp')
        .executeTakeFirst();
      const live = await trx
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .where('expires_at', '>', now.getTime())
        .where('last_seen_at', '>', sessionIdleBefore.getTime())
        .executeTakeFirstOrThrow();
      return {
        user: fromUserRow(row),
        lastSignInAt: row.last_sign_in_at === null ? null : new Date(Number(row.last_sign_in_at)),
        roles,
        permissions: sortNames(permissions.map((grant) => grant.permission)),
        secondFactor: Boolean(factor?.enabled),
        liveSessions: Number(live.n),
      };
    });
  }
}
