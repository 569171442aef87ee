import type { AccountContext } from '../account-context';
import type { AdminActor } from '../admin-views';
import type { ApiKeyInput, ApiKeyView, CreatedApiKey, ServiceAccountView } from './api-key-views';

// SKELETON: the service helper implements every method (see /work/briefs/api-keys-design.md).
const todo = (): never => {
  throw new Error('ApiKeys: not implemented yet');
};

/**
 * API keys (`AccountService.apiKeys`): a person's keys, created with a recently re-authenticated session (never with
 * a key), scoped to permissions the owner holds, expiring; revoked by the owner, an administrator or whoever holds one.
 * Every creation and revocation is audited in its transaction with the actor and the reason; the owner's notice is
 * queued there too. The keys of a service account are the administrators' (`admin`).
 */
export class ApiKeys {
  constructor(private readonly core: AccountContext) {}

  /** What every key of this deployment starts with, before `_`. */
  get prefix(): string {
    return this.core.options.apiKeyPrefix;
  }

  /** The caller's keys, expired ones included, newest first. */
  async list(sessionToken: string): Promise<ApiKeyView[]> {
    void sessionToken;
    void this.core;
    return todo();
  }

  /** The permissions the caller could give a key now: those they hold, without `gatehouse.*`, sorted. */
  async availableScopes(sessionToken: string): Promise<string[]> {
    void sessionToken;
    return todo();
  }

  /**
   * Creates a key for the caller: a recent session (`reauthentication_required`), a free name
   * (`api_key_name_taken`), scopes the caller holds now (`invalid_scope`), an allowed expiry
   * (`invalid_api_key_expiry`), fewer than `apiKeyMaxPerUser` live keys (`api_key_limit_reached`).
   */
  async create(sessionToken: string, input: ApiKeyInput): Promise<CreatedApiKey> {
    void sessionToken;
    void input;
    return todo();
  }

  /** Revokes one of the caller's keys (`api_key_not_found` for an unknown id and another's key alike). */
  async revoke(sessionToken: string, keyId: string): Promise<void> {
    void sessionToken;
    void keyId;
    return todo();
  }

  /** Revokes every key of the caller; how many went. */
  async revokeAll(sessionToken: string): Promise<number> {
    void sessionToken;
    return todo();
  }

  /**
   * Revokes the key itself, whoever presents it (a leaked key's finder): resolves alike whether or not it was a live
   * key, so nothing is learnt; the owner is mailed when one went.
   */
  async revokeByPossession(key: string): Promise<void> {
    void key;
    return todo();
  }

  /** The administrators' part: any account's keys, service accounts and their keys. */
  get admin(): ApiKeyAdministration {
    return new ApiKeyAdministration(this.core);
  }
}

/**
 * The administrators' part (`AccountService.apiKeys.admin`), each action checked against
 * `gatehouse.api_keys.manage` (changes with a recent session) and audited; the operator (CLI) is not asked.
 */
export class ApiKeyAdministration {
  constructor(private readonly core: AccountContext) {}

  /** Any account's keys (`user_not_found` for an unknown id). */
  async list(actor: AdminActor, userId: string): Promise<ApiKeyView[]> {
    void actor;
    void userId;
    void this.core;
    return todo();
  }

  /** Revokes one key of the account (`api_key_not_found`). */
  async revoke(actor: AdminActor, userId: string, keyId: string): Promise<void> {
    void actor;
    void userId;
    void keyId;
    return todo();
  }

  /** Revokes every key of the account; how many went. */
  async revokeAll(actor: AdminActor, userId: string): Promise<number> {
    void actor;
    void userId;
    return todo();
  }

  /** Creates a service account with these global roles (granting them needs `gatehouse.roles.manage` too). */
  async createServiceAccount(
    actor: AdminActor,
    input: { username: string; roles?: readonly string[] },
  ): Promise<ServiceAccountView> {
    void actor;
    void input;
    return todo();
  }

  /** Every service account, oldest first. */
  async listServiceAccounts(actor: AdminActor): Promise<ServiceAccountView[]> {
    void actor;
    return todo();
  }

  /** Creates a key for a service account (`not_a_service_account` for a person), under the owner's rules. */
  async createKey(actor: AdminActor, userId: string, input: ApiKeyInput): Promise<CreatedApiKey> {
    void actor;
    void userId;
    void input;
    return todo();
  }
}
