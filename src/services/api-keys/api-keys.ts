import { invalidSession } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import {
  apiKeyRevokedEvent,
  logApiKeysRevoked,
  queueApiKeyRevokedNotice,
  revokeAllApiKeys,
} from '../api-key-revocations';
import { anonymous, self } from '../audit-trail';
import { isRecordId } from '../record-id';
import { ApiKeyAdministration } from './api-key-administration';
import { createApiKey } from './api-key-creation';
import { apiKeyNotFound } from './api-key-errors';
import { isWellFormedApiKey } from './api-key-format';
import { apiKeyView } from './api-key-listing';
import { grantableScopes } from './api-key-rules';
import type { ApiKeyInput, ApiKeyView, CreatedApiKey } from './api-key-views';

export { ApiKeyAdministration } from './api-key-administration';

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
    const user = await this.core.requireSessionUser(sessionToken);
    const now = this.core.clock.now();
    return (await this.core.store.apiKeys.list(user.id)).map((listing) => apiKeyView(listing, now));
  }

  /** The permissions the caller could give a key now: those they hold, without `gatehouse.*`, sorted. */
  async availableScopes(sessionToken: string): Promise<string[]> {
    const user = await this.core.requireSessionUser(sessionToken);
    // Two committed reads, no transaction: an answer for a form, judged again when the key is created.
    const roles = new Set(await this.core.store.access.listUserRoles(user.id));
    const all = await this.core.store.access.listRoles();
    return grantableScopes(all.filter((role) => roles.has(role.name)).flatMap((role) => role.permissions));
  }

  /**
   * Creates a key for the caller: a recent session (`reauthentication_required`), a free name
   * (`api_key_name_taken`), scopes the caller holds now (`invalid_scope`), an allowed expiry
   * (`invalid_api_key_expiry`), fewer than `apiKeyMaxPerUser` live keys (`api_key_limit_reached`).
   */
  async create(sessionToken: string, input: ApiKeyInput): Promise<CreatedApiKey> {
    const { user } = await this.core.requireRecentSession(sessionToken);
    return createApiKey(
      this.core,
      {
        ownerId: user.id,
        parties: self(user.id),
        creator: { id: user.id, username: user.username },
        serviceAccountOnly: false,
        ownerGone: () => invalidSession(),
      },
      input,
    );
  }

  /** Revokes one of the caller's keys (`api_key_not_found` for an unknown id and another's key alike). */
  async revoke(sessionToken: string, keyId: string): Promise<void> {
    const user = await this.core.requireSessionUser(sessionToken);
    if (!isRecordId(keyId)) throw apiKeyNotFound();
    const parties = self(user.id);
    const revoked = await this.core.store.transaction(async (tx) => {
      if (!(await tx.apiKeys.lockOwner(user.id))) throw invalidSession();
      const key = await tx.apiKeys.delete(user.id, keyId);
      if (!key) throw apiKeyNotFound();
      await tx.audit.add(apiKeyRevokedEvent(this.core, key, parties, 'owner'));
      return key;
    });
    logApiKeysRevoked(this.core, user.id, parties, 'owner', [revoked]);
  }

  /** Revokes every key of the caller; how many went. */
  async revokeAll(sessionToken: string): Promise<number> {
    const user = await this.core.requireSessionUser(sessionToken);
    const parties = self(user.id);
    const revoked = await this.core.store.transaction((tx) =>
      revokeAllApiKeys(this.core, tx, user.id, parties, 'owner_all'),
    );
    logApiKeysRevoked(this.core, user.id, parties, 'owner_all', revoked);
    return revoked.length;
  }

  /**
   * Revokes the key itself, whoever presents it (a leaked key's finder): resolves alike whether or not it was a live
   * key, so nothing is learnt; the owner is mailed when one went.
   */
  async revokeByPossession(key: string): Promise<void> {
    // A string that cannot be one of our keys names nothing: no read (anyone can tell its shape offline anyway).
    if (!isWellFormedApiKey(key, this.prefix)) return;
    const keyHash = this.core.tokens.hash(key);
    const outcome = await this.core.store.transaction(async (tx) => {
      const revoked = await tx.apiKeys.deleteByHash(keyHash);
      if (!revoked) return null;
      const parties = anonymous(revoked.userId);
      await tx.audit.add(apiKeyRevokedEvent(this.core, revoked, parties, 'possession'));
      const mailed = await queueApiKeyRevokedNotice(this.core, tx, revoked.userId);
      return { revoked, parties, mailed };
    });
    if (!outcome) return;
    logApiKeysRevoked(this.core, outcome.revoked.userId, outcome.parties, 'possession', [outcome.revoked]);
    if (outcome.mailed) this.core.delivery?.nudge();
  }

  /** The administrators' part: any account's keys, service accounts and their keys. */
  get admin(): ApiKeyAdministration {
    return new ApiKeyAdministration(this.core);
  }
}
