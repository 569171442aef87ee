import type { OutboxKind } from '../../services/outbox-message';
import type { TokenRecords } from '../../services/store/password-records';
import type { StoredToken, StoredUser, TokenPurpose } from '../../services/types';
import { copyToken, copyUser, isAtOrBefore } from './copies';
import { supersedeMessages } from './memory-outbox-records';
import type { MemoryData } from './memory-state';

/** The emailed single-use tokens (verification, reset), read outside a transaction or written in one. */
export class MemoryTokenRecords implements TokenRecords {
  constructor(private readonly data: MemoryData) {}

  async findUser(tokenHash: string, purpose: TokenPurpose, now: Date): Promise<StoredUser | null> {
    const token = liveToken(this.data, tokenHash, purpose, now);
    const user = token && this.data.users.get(token.userId);
    return user ? copyUser(user) : null;
  }

  async replace(token: StoredToken, supersede: { kind: OutboxKind; at: Date }): Promise<StoredUser | null> {
    const { data } = this;
    const user = data.users.get(token.userId);
    // A disabled account gets no new token.
    if (!user || user.disabledAt) return null;
    const existing = data.tokens.get(token.tokenHash);
    const existingIsSuperseded = existing?.userId === token.userId && existing.purpose === token.purpose;
    if (existing && !existingIsSuperseded) throw new Error('MemoryUserStore: duplicate token hash');

    deleteTokensOf(data, token.userId, token.purpose);
    data.tokens.set(token.tokenHash, copyToken(token));
    supersedeMessages(data, user.id, supersede.kind, supersede.at);
    return copyUser(user);
  }
}

export function liveToken(data: MemoryData, tokenHash: string, purpose: TokenPurpose, now: Date): StoredToken | null {
  const token = data.tokens.get(tokenHash);
  if (!token || token.purpose !== purpose || isAtOrBefore(token.expiresAt, now)) return null;
  return token;
}

/** Deletes the token if it is unexpired and of `purpose`; returns its user. */
export function consumeToken(data: MemoryData, tokenHash: string, purpose: TokenPurpose, now: Date): StoredUser | null {
  const token = liveToken(data, tokenHash, purpose, now);
  if (!token) return null;
  data.tokens.delete(tokenHash);
  return data.users.get(token.userId) ?? null;
}

/** Deletes the user's tokens, of one purpose or of all. */
export function deleteTokensOf(data: MemoryData, userId: string, purpose?: TokenPurpose): void {
  for (const [tokenHash, token] of data.tokens.ownedBy(userId)) {
    if (purpose === undefined || token.purpose === purpose) data.tokens.delete(tokenHash);
  }
}
