import type {
  ApiKeyCheck,
  ApiKeyListing,
  ApiKeyReads,
  ApiKeyRecords,
  RevokedApiKey,
  StoredApiKey,
  StoredServiceAccount,
} from '../../../services/api-keys/api-key-records';
import { accountView } from '../../../services/types';
import { isAtOrBefore, newestFirst } from '../copies';
import { permissionAnswer, rolesOf } from '../memory-access-records';
import { apiKeyNameKey, type MemoryData, type MemoryState } from '../memory-state';

/**
 * API keys and service accounts, read outside a transaction or written in one. The owner's lock is nothing to take
 * here: transactions run one after another (`MemoryState.exclusive`), so what one counts after `lockOwner` holds
 * until it ends; `lockOwner` only answers whether the user is there.
 */
export class MemoryApiKeyRecords implements ApiKeyReads, ApiKeyRecords {
  /**
   * `state` is given to the reads outside a transaction (on the committed tables), whose `touch` then changes the
   * committed row at once, as `MemorySessionReads.touch` does: no transaction writes a key's last use.
   */
  constructor(
    private readonly data: MemoryData,
    private readonly state?: MemoryState,
  ) {}

  check(keyHash: string, permission?: string): ApiKeyCheck | null | Promise<ApiKeyCheck | null> {
    // Not async: the tables are in memory, so the answer is the value itself (a failure still a rejected promise).
    try {
      const key = this.data.apiKeys.lookup('keyHash', keyHash);
      const user = key && this.data.users.get(key.userId);
      if (!key || !user) return null;
      const check: ApiKeyCheck = {
        keyId: key.id,
        user: accountView(user),
        disabled: user.disabledAt !== null,
        expiresAt: new Date(key.expiresAt),
        scopes: Object.freeze([...key.scopes]),
        lastUsedAt: key.lastUsedAt && new Date(key.lastUsedAt),
      };
      if (permission !== undefined) check.access = permissionAnswer(this.data, user.id, permission);
      return check;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async list(userId: string): Promise<ApiKeyListing[]> {
    return this.data.apiKeys
      .ownedBy(userId)
      .map(([, key]) => key)
      .sort(newestFirst)
      .map((key) => {
        const { keyHash: _hash, ...listing } = copyApiKey(key);
        const creator = key.createdBy === null ? undefined : this.data.users.get(key.createdBy);
        return { ...listing, createdByUsername: creator?.username ?? null };
      });
  }

  async touch(keyId: string, at: Date, ip: string | null): Promise<void> {
    const use = (key: StoredApiKey): StoredApiKey => ({ ...key, lastUsedAt: new Date(at), lastUsedIp: ip });
    if (this.state) {
      this.state.changeApiKey(keyId, use);
      return;
    }
    const key = this.data.apiKeys.get(keyId);
    if (key) this.data.apiKeys.set(keyId, use(key));
  }

  async serviceAccount(userId: string): Promise<StoredServiceAccount | null> {
    const account = this.data.serviceAccounts.get(userId);
    return account ? copyServiceAccount(account) : null;
  }

  async listServiceAccounts(): Promise<StoredServiceAccount[]> {
    // Oldest first: `createdAt`, then the user's id (as the SQL store orders them).
    return [...this.data.serviceAccounts.values()]
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.userId < b.userId ? -1 : 1))
      .map(copyServiceAccount);
  }

  async lockOwner(userId: string): Promise<boolean> {
    return this.data.users.has(userId);
  }

  async permissionsOf(userId: string): Promise<string[]> {
    const held = new Set<string>();
    for (const role of rolesOf(this.data, userId)) {
      for (const permission of this.data.roles.get(role) ?? []) held.add(permission);
    }
    return [...held].sort();
  }

  async countLive(userId: string, now: Date): Promise<number> {
    return this.data.apiKeys.ownedBy(userId).filter(([, key]) => !isAtOrBefore(key.expiresAt, now)).length;
  }

  async deleteExpiredOf(userId: string, now: Date): Promise<number> {
    let deleted = 0;
    for (const [id, key] of this.data.apiKeys.ownedBy(userId)) {
      if (isAtOrBefore(key.expiresAt, now) && this.data.apiKeys.delete(id)) deleted++;
    }
    return deleted;
  }

  async create(key: StoredApiKey): Promise<'created' | 'name_taken'> {
    const { data } = this;
    if (data.apiKeys.lookup('name', apiKeyNameKey(key.userId, key.name))) return 'name_taken';
    // As the foreign key and the primary key would: never a key of a user that is not there, never two of one id.
    if (!data.users.has(key.userId)) throw new Error('MemoryUserStore: API key of an unknown user');
    if (key.createdBy !== null && !data.users.has(key.createdBy)) throw new Error('MemoryUserStore: unknown creator');
    if (data.apiKeys.has(key.id)) throw new Error('MemoryUserStore: duplicate API key id');
    // The unique index `keyHash` throws for a hash already stored.
    data.apiKeys.set(key.id, copyApiKey(key));
    return 'created';
  }

  async delete(userId: string, keyId: string): Promise<RevokedApiKey | null> {
    const key = this.data.apiKeys.get(keyId);
    if (key?.userId !== userId) return null;
    this.data.apiKeys.delete(keyId);
    return revoked(key);
  }

  async deleteByHash(keyHash: string): Promise<RevokedApiKey | null> {
    const key = this.data.apiKeys.lookup('keyHash', keyHash);
    if (!key) return null;
    this.data.apiKeys.delete(key.id);
    return revoked(key);
  }

  async deleteAll(userId: string): Promise<RevokedApiKey[]> {
    const keys = this.data.apiKeys
      .ownedBy(userId)
      .map(([, key]) => key)
      .sort(newestFirst);
    for (const key of keys) this.data.apiKeys.delete(key.id);
    return keys.map(revoked);
  }

  async createServiceAccount(account: StoredServiceAccount): Promise<void> {
    const { data } = this;
    if (!data.users.has(account.userId)) throw new Error('MemoryUserStore: service account of an unknown user');
    if (account.createdBy !== null && !data.users.has(account.createdBy)) {
      throw new Error('MemoryUserStore: unknown creator');
    }
    if (data.serviceAccounts.has(account.userId)) throw new Error('MemoryUserStore: duplicate service account');
    data.serviceAccounts.set(account.userId, copyServiceAccount(account));
  }
}

/** A copy naming every field (a caller's extra properties are not kept, as a database would drop them). */
function copyApiKey(key: StoredApiKey): StoredApiKey {
  return {
    id: key.id,
    keyHash: key.keyHash,
    userId: key.userId,
    name: key.name,
    lastFour: key.lastFour,
    scopes: Object.freeze([...key.scopes]),
    createdAt: new Date(key.createdAt),
    expiresAt: new Date(key.expiresAt),
    lastUsedAt: key.lastUsedAt && new Date(key.lastUsedAt),
    lastUsedIp: key.lastUsedIp ?? null,
    createdBy: key.createdBy ?? null,
  };
}

function copyServiceAccount(account: StoredServiceAccount): StoredServiceAccount {
  return { userId: account.userId, createdAt: new Date(account.createdAt), createdBy: account.createdBy ?? null };
}

function revoked(key: StoredApiKey): RevokedApiKey {
  return { id: key.id, userId: key.userId, name: key.name, lastFour: key.lastFour };
}
