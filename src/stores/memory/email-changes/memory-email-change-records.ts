import type {
  EmailChangeRecords,
  EmailChangeRequestResult,
  EmailChangeResult,
} from '../../../services/email-changes/email-change-records';
import type { StoredEmailChange, StoredUser } from '../../../services/types';
import { copyEmailChange, copyUser, isAtOrBefore } from '../copies';
import { supersedeMessages } from '../memory-outbox-records';
import { deleteSessionsOf } from '../memory-session-ends';
import type { MemoryData } from '../memory-state';
import { deleteTokensOf } from '../memory-token-records';
import { endRegistration, verifiedOwnerOf } from '../memory-user-records';

/** Pending changes of address (at most one per user), read outside a transaction or written in one. */
export class MemoryEmailChangeRecords implements EmailChangeRecords {
  constructor(private readonly data: MemoryData) {}

  async find(tokenHash: string, now: Date): Promise<{ change: StoredEmailChange; user: StoredUser } | null> {
    const change = this.liveChange(tokenHash, now);
    const user = change && this.data.users.get(change.userId);
    if (!change || !user) return null;
    return { change: copyEmailChange(change), user: copyUser(user) };
  }

  async request(change: StoredEmailChange, sessionTokenHash: string): Promise<EmailChangeRequestResult> {
    const { data } = this;
    const user = data.users.get(change.userId);
    if (!user || data.sessions.get(sessionTokenHash)?.userId !== user.id) return { ok: false };
    const existing = data.emailChanges.get(change.tokenHash);
    if (existing && existing.userId !== user.id) throw new Error('MemoryUserStore: duplicate email change token hash');

    data.emailChanges.deleteOwnedBy(user.id);
    data.emailChanges.set(change.tokenHash, copyEmailChange(change));
    // The earlier change's link died with it, whichever path this request takes.
    supersedeMessages(data, user.id, 'emailChange', change.createdAt);
    const owner = verifiedOwnerOf(data, change.newEmailKey, user.id);
    return { ok: true, user: copyUser(user), owner: owner ? copyUser(owner) : null };
  }

  async confirm(tokenHash: string, now: Date): Promise<EmailChangeResult> {
    const { data } = this;
    const change = this.liveChange(tokenHash, now);
    const user = change && data.users.get(change.userId);
    if (!change || !user) return { outcome: 'invalid' };
    data.emailChanges.delete(tokenHash);
    if (verifiedOwnerOf(data, change.newEmailKey, user.id)) return { outcome: 'taken' };

    // The verified-address index follows the row: the new address is the user's once it is verified.
    const changed: StoredUser = {
      ...user,
      email: change.newEmail,
      emailKey: change.newEmailKey,
      updatedAt: new Date(now),
    };
    data.users.set(user.id, changed);
    for (const other of [...data.users.values()]) {
      if (other.id !== user.id && !other.verified && other.emailKey === changed.emailKey) {
        endRegistration(data, other, now);
      }
    }
    // Reset links went to the old address: those not sent yet are not sent at all.
    deleteTokensOf(data, user.id, 'reset_password');
    supersedeMessages(data, user.id, 'passwordReset', now);
    const endedSessions = change.endOtherSessions
      ? deleteSessionsOf(data, user.id, (session) => session.id !== change.keepSessionId)
      : 0;
    return { outcome: 'changed', user: copyUser(changed), previousEmail: user.email, endedSessions };
  }

  private liveChange(tokenHash: string, now: Date): StoredEmailChange | null {
    const change = this.data.emailChanges.get(tokenHash);
    return change && !isAtOrBefore(change.expiresAt, now) ? change : null;
  }
}
