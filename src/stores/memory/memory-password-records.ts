import type { PasswordRecords, PasswordSignIn } from '../../services/store/password-records';
import type { StoredUser } from '../../services/types';
import { copyUser } from './copies';
import { dropEmailChange } from './memory-session-ends';
import { supersedeMessages } from './memory-outbox-records';
import { deleteSessionsOf } from './memory-session-ends';
import type { MemoryData } from './memory-state';
import { consumeToken, deleteTokensOf } from './memory-token-records';

/** The password credential of each account, read outside a transaction or written in one. */
export class MemoryPasswordRecords implements PasswordRecords {
  constructor(private readonly data: MemoryData) {}

  async findForSignIn(usernameKey: string): Promise<PasswordSignIn | null> {
    const user = this.data.users.lookup('usernameKey', usernameKey);
    return user ? { user: copyUser(user), passwordHash: this.data.passwords.get(user.id) ?? null } : null;
  }

  async hashOf(userId: string): Promise<string | null> {
    return this.data.passwords.get(userId) ?? null;
  }

  async reset(tokenHash: string, newPasswordHash: string, now: Date): Promise<StoredUser | null> {
    const user = consumeToken(this.data, tokenHash, 'reset_password', now);
    return user && this.replaceEndingSessions(user, newPasswordHash, now);
  }

  async change(
    userId: string,
    expectedHash: string,
    newPasswordHash: string,
    now: Date,
    sessionTokenHash?: string,
  ): Promise<StoredUser | null> {
    const user = this.data.users.get(userId);
    if (!user || this.data.passwords.get(userId) !== expectedHash) return null;
    if (sessionTokenHash !== undefined && this.data.sessions.get(sessionTokenHash)?.userId !== userId) return null;
    return this.replaceEndingSessions(user, newPasswordHash, now);
  }

  async rehash(userId: string, expectedHash: string, newPasswordHash: string, now: Date): Promise<boolean> {
    const user = this.data.users.get(userId);
    if (!user || this.data.passwords.get(userId) !== expectedHash) return false;
    this.data.passwords.set(userId, newPasswordHash);
    this.data.users.set(userId, { ...user, updatedAt: new Date(now) });
    return true;
  }

  private replaceEndingSessions(user: StoredUser, newPasswordHash: string, now: Date): StoredUser {
    const { data } = this;
    const changed: StoredUser = {
      ...user,
      updatedAt: new Date(now),
      credentialEpoch: user.credentialEpoch + 1,
    };
    data.users.set(user.id, changed);
    data.passwords.set(user.id, newPasswordHash);
    deleteSessionsOf(data, user.id);
    deleteTokensOf(data, user.id, 'reset_password');
    supersedeMessages(data, user.id, 'passwordReset', now);
    // A change of address asked for under the old password goes with it, and so do the login challenges. The second
    // factor and its recovery codes stay: a reset must not switch the second factor off.
    dropEmailChange(data, user.id, now);
    data.loginChallenges.deleteOwnedBy(user.id);
    return copyUser(changed);
  }
}
