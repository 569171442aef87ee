import type { AdminReads, UserDetails, UserListQuery } from '../../../services/administration/admin-reads';
import type { StoredUser } from '../../../services/types';
import { copyUser, isAtOrBefore, newestFirst } from '../copies';
import { rolesOf } from '../memory-access-records';
import type { MemoryData } from '../memory-state';

/** The reads of the administration, outside a transaction: each one synchronous, so one consistent read. */
export class MemoryAdminReads implements AdminReads {
  constructor(private readonly data: MemoryData) {}

  async listUsers(query: UserListQuery): Promise<StoredUser[]> {
    const { prefix, verified, disabled, role, createdFrom, createdBefore, after } = query;
    return [...this.data.users.values()]
      .filter(
        (user) =>
          (!prefix || user.usernameKey.startsWith(prefix) || user.emailKey.startsWith(prefix)) &&
          (verified === undefined || user.verified === verified) &&
          (disabled === undefined || (user.disabledAt !== null) === disabled) &&
          (role === undefined || rolesOf(this.data, user.id).has(role)) &&
          (createdFrom === undefined || user.createdAt.getTime() >= createdFrom.getTime()) &&
          (createdBefore === undefined || user.createdAt.getTime() < createdBefore.getTime()) &&
          (after === undefined || newestFirst(user, after) > 0),
      )
      .sort(newestFirst)
      .slice(0, Math.max(0, query.limit))
      .map(copyUser);
  }

  async userDetails(userId: string, now: Date, sessionIdleBefore: Date): Promise<UserDetails | null> {
    const { data } = this;
    const user = data.users.get(userId);
    if (!user) return null;
    const roles = [...rolesOf(data, userId)].sort();
    const permissions = new Set(roles.flatMap((role) => [...(data.roles.get(role) ?? [])]));
    const liveSessions = data.sessions
      .ownedBy(userId)
      .filter(
        ([, session]) => !isAtOrBefore(session.expiresAt, now) && !isAtOrBefore(session.lastSeenAt, sessionIdleBefore),
      ).length;
    const lastSignIn = data.lastSignIns.get(userId);
    return {
      user: copyUser(user),
      lastSignInAt: lastSignIn ? new Date(lastSignIn) : null,
      roles,
      permissions: [...permissions].sort(),
      secondFactor: data.secondFactors.get(userId)?.enabled === true,
      liveSessions,
    };
  }
}
