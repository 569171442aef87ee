import type {
  ApiKeyCheck,
  ApiKeyListing,
  ApiKeyReads,
  ApiKeyRecords,
  RevokedApiKey,
  StoredApiKey,
  StoredServiceAccount,
} from '../../../../services/api-keys/api-key-records';

// SKELETON: the stores helper replaces every method below.
const todo = (): never => {
  throw new Error('SqlApiKeyRecords: not implemented yet');
};

/** API keys and service accounts, read outside a transaction or written in one. */
export class SqlApiKeyRecords implements ApiKeyReads, ApiKeyRecords {
  constructor(private readonly source: unknown) {}
  check(keyHash: string, permission?: string): ApiKeyCheck | null | Promise<ApiKeyCheck | null> {
    void keyHash;
    void permission;
    void this.source;
    return todo();
  }
  list(userId: string): Promise<ApiKeyListing[]> {
    return todo();
  }
  touch(keyId: string, at: Date, ip: string | null): Promise<void> {
    return todo();
  }
  serviceAccount(userId: string): Promise<StoredServiceAccount | null> {
    return todo();
  }
  listServiceAccounts(): Promise<StoredServiceAccount[]> {
    return todo();
  }
  lockOwner(userId: string): Promise<boolean> {
    return todo();
  }
  permissionsOf(userId: string): Promise<string[]> {
    return todo();
  }
  countLive(userId: string, now: Date): Promise<number> {
    return todo();
  }
  deleteExpiredOf(userId: string, now: Date): Promise<number> {
    return todo();
  }
  create(key: StoredApiKey): Promise<'created' | 'name_taken'> {
    return todo();
  }
  delete(userId: string, keyId: string): Promise<RevokedApiKey | null> {
    return todo();
  }
  deleteByHash(keyHash: string): Promise<RevokedApiKey | null> {
    return todo();
  }
  deleteAll(userId: string): Promise<RevokedApiKey[]> {
    return todo();
  }
  createServiceAccount(account: StoredServiceAccount): Promise<void> {
    return todo();
  }
}
