import { AccountError } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import { userNotFound } from '../access-change-results';
import { adminParties, authoriseAdmin, authoriseAdminChange } from '../admin-authorisation';
import { ADMIN_PERMISSIONS } from '../admin-permissions';
import type { AdminActor } from '../admin-views';
import {
  apiKeyRevokedEvent,
  logApiKeysRevoked,
  queueApiKeyRevokedNotice,
  revokeAllApiKeys,
} from '../api-key-revocations';
import { isRecordId } from '../record-id';
import type { UserStoreTransaction } from '../user-store';
import type { RevokedApiKey } from './api-key-records';
import { createApiKey } from './api-key-creation';
import { apiKeyNotFound } from './api-key-errors';
import { apiKeyView } from './api-key-listing';
import type { ApiKeyInput, ApiKeyView, CreatedApiKey, ServiceAccountView } from './api-key-views';
import { createServiceAccount, listServiceAccounts } from './service-accounts';

/**
 * The administrators' part (`AccountService.apiKeys.admin`), each action checked against
 * `gatehouse.api_keys.manage` before anything is read (changes with a recent session) and audited; the operator (CLI)
 * is not asked. An administrator revokes any account's keys (the owner is told, once per action) and makes keys only
 * for service accounts, never stronger than the administrator.
 */
export class ApiKeyAdministration {
  constructor(private readonly core: AccountContext) {}

  /** Any account's keys (`user_not_found` for an unknown id). */
  async list(actor: AdminActor, userId: string): Promise<ApiKeyView[]> {
    await authoriseAdmin(this.core, actor, ADMIN_PERMISSIONS.manageApiKeys);
    if (!isRecordId(userId) || !(await this.core.store.users.findById(userId))) throw userNotFound();
    const now = this.core.clock.now();
    const views = (await this.core.store.apiKeys.list(userId)).map((listing) => apiKeyView(listing, now));
    // Who looked at whose keys is recorded, as every administrator's read.
    await this.core.audit.write(
      this.core.audit.event('admin.api_keys_listed', 'success', adminParties(actor, userId), { shown: views.length }),
    );
    return views;
  }

  /** Revokes one key of the account (`api_key_not_found`). */
  async revoke(actor: AdminActor, userId: string, keyId: string): Promise<void> {
    await authoriseAdminChange(this.core, actor, ADMIN_PERMISSIONS.manageApiKeys);
    if (!isRecordId(userId)) throw userNotFound();
    if (!isRecordId(keyId)) throw apiKeyNotFound();
    await this.revokeWith(actor, userId, async (tx) => {
      const key = await tx.apiKeys.delete(userId, keyId);
      if (!key) throw apiKeyNotFound();
      await tx.audit.add(apiKeyRevokedEvent(this.core, key, adminParties(actor, userId), 'administrator'));
      return [key];
    });
  }

  /** Revokes every key of the account; how many went. */
  async revokeAll(actor: AdminActor, userId: string): Promise<number> {
    await authoriseAdminChange(this.core, actor, ADMIN_PERMISSIONS.manageApiKeys);
    if (!isRecordId(userId)) throw userNotFound();
    const revoked = await this.revokeWith(actor, userId, (tx) =>
      revokeAllApiKeys(this.core, tx, userId, adminParties(actor, userId), 'administrator'),
    );
    return revoked.length;
  }

  /** Creates a service account with these global roles (granting them needs `gatehouse.roles.manage` too). */
  async createServiceAccount(
    actor: AdminActor,
    input: { username: string; roles?: readonly string[] },
  ): Promise<ServiceAccountView> {
    await authoriseAdminChange(this.core, actor, ADMIN_PERMISSIONS.manageApiKeys);
    if ((input?.roles?.length ?? 0) > 0) await authoriseAdmin(this.core, actor, ADMIN_PERMISSIONS.manageRoles);
    return createServiceAccount(this.core, actor, input);
  }

  /** Every service account, oldest first. */
  async listServiceAccounts(actor: AdminActor): Promise<ServiceAccountView[]> {
    await authoriseAdmin(this.core, actor, ADMIN_PERMISSIONS.manageApiKeys);
    return listServiceAccounts(this.core);
  }

  /** Creates a key for a service account (`not_a_service_account` for a person), under the owner's rules. */
  async createKey(actor: AdminActor, userId: string, input: ApiKeyInput): Promise<CreatedApiKey> {
    await authoriseAdminChange(this.core, actor, ADMIN_PERMISSIONS.manageApiKeys);
    if (!isRecordId(userId)) throw userNotFound();
    const admin = actor.kind === 'admin' ? await this.core.store.users.findById(actor.user.id) : null;
    return createApiKey(
      this.core,
      {
        ownerId: userId,
        parties: adminParties(actor, userId),
        creator: admin && { id: admin.id, username: admin.username },
        alsoHeldBy: actor.kind === 'admin' ? actor.user.id : undefined,
        serviceAccountOnly: true,
        ownerGone: (disabled) =>
          disabled ? new AccountError('account_disabled', 'This account has been disabled') : userNotFound(),
      },
      input,
    );
  }

  /**
   * A revocation by an administrator, in one transaction under the owner's lock (`user_not_found` when there is no
   * such account): `work` deletes and audits, the owner is told once when any key went, and it is logged.
   */
  private async revokeWith(
    actor: AdminActor,
    userId: string,
    work: (tx: UserStoreTransaction) => Promise<RevokedApiKey[]>,
  ): Promise<RevokedApiKey[]> {
    const { revoked, mailed } = await this.core.store.transaction(async (tx) => {
      if (!(await tx.apiKeys.lockOwner(userId))) throw userNotFound();
      const revoked = await work(tx);
      const mailed = revoked.length > 0 && (await queueApiKeyRevokedNotice(this.core, tx, userId));
      return { revoked, mailed };
    });
    logApiKeysRevoked(this.core, userId, adminParties(actor, userId), 'administrator', revoked);
    if (mailed) this.core.delivery?.nudge();
    return revoked;
  }
}
