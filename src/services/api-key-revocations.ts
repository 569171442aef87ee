import type { AccountContext } from './account-context';
import type { RevokedApiKey } from './api-keys/api-key-records';
import type { ApiKeyRevocationReason } from './api-keys/api-key-views';
import type { AuditParties } from './audit-trail';
import { canSend } from './sender-operations';
import type { UserStoreTransaction } from './user-store';

// The revocation every part of the account shares: the owner's "revoke all", an administrator's, and the changes of
// the account that end its keys with them (disabling it; a password reset or change when asked). At the services'
// root, beside the other shared rules, because the administration and the account's own code call it too, and a
// feature's slice is imported by no other.

/**
 * Inside the caller's transaction: deletes every key of the user, under the user's lock, and writes one
 * `api_key_revoked` event per key (its id and `reason`, never the key or its hash). Returns what went (empty when
 * the user had none, or is gone).
 */
export async function revokeAllApiKeys(
  core: Pick<AccountContext, 'audit'>,
  tx: UserStoreTransaction,
  userId: string,
  parties: AuditParties,
  reason: ApiKeyRevocationReason,
): Promise<RevokedApiKey[]> {
  if (!(await tx.apiKeys.lockOwner(userId))) return [];
  const revoked = await tx.apiKeys.deleteAll(userId);
  for (const key of revoked) await tx.audit.add(apiKeyRevokedEvent(core, key, parties, reason));
  return revoked;
}

/** The audit event of one key's revocation: which key, why, and who (the parties). */
export function apiKeyRevokedEvent(
  core: Pick<AccountContext, 'audit'>,
  key: Pick<RevokedApiKey, 'id' | 'userId'>,
  parties: AuditParties,
  reason: ApiKeyRevocationReason,
) {
  return core.audit.event(
    'api_key_revoked',
    'success',
    { ...parties, subjectId: key.userId },
    { keyId: key.id, reason },
  );
}

/**
 * Inside the revocation's transaction: tells the owner their keys were revoked by someone else (whoever held one, an
 * administrator), once for the action, however many keys went. A service account has no mailbox and is never mailed.
 * True when a message was queued (the caller nudges the delivery after commit).
 */
export async function queueApiKeyRevokedNotice(
  core: Pick<AccountContext, 'sender' | 'messages' | 'clock'>,
  tx: UserStoreTransaction,
  userId: string,
): Promise<boolean> {
  if (!canSend(core.sender, 'apiKeyRevoked')) return false;
  if (await tx.apiKeys.serviceAccount(userId)) return false;
  const owner = await tx.users.findById(userId);
  if (!owner) return false;
  await tx.outbox.add(core.messages.notice('apiKeyRevoked', core.clock.now()), owner);
  return true;
}

/** The log line of a revocation: the owner, the actor, the reason and how many keys went, never a key. */
export function logApiKeysRevoked(
  core: Pick<AccountContext, 'logger'>,
  userId: string,
  parties: AuditParties,
  reason: ApiKeyRevocationReason,
  revoked: readonly Pick<RevokedApiKey, 'id'>[],
): void {
  if (revoked.length === 0) return;
  core.logger.info(
    {
      event: 'api_key_revoked',
      outcome: 'success',
      userId,
      actorType: parties.actorType,
      ...(parties.actorId ? { actorId: parties.actorId } : {}),
      reason,
      keys: revoked.length,
      ...(revoked.length === 1 ? { keyId: revoked[0].id } : {}),
    },
    revoked.length === 1 ? 'API key revoked' : 'API keys revoked',
  );
}

/** What a password reset or change may also do (`AccountService.confirmPasswordReset`, `changePassword`). */
export interface PasswordChangeOptions {
  /** Also revoke every API key of the account, in the change's transaction (default false: the keys are kept). */
  revokeApiKeys?: boolean;
}

/**
 * `change` (a change of one user returning the user it changed, null when it changed nothing), followed in its
 * transaction, when `options` ask, by the revocation of every key of that user; `logged` logs what went, after commit.
 */
export function revokingApiKeysWith<User extends { id: string }>(
  core: Pick<AccountContext, 'audit' | 'logger'>,
  options: PasswordChangeOptions | undefined,
  parties: (userId: string) => AuditParties,
  reason: ApiKeyRevocationReason,
  change: (tx: UserStoreTransaction) => Promise<User | null>,
): { work: (tx: UserStoreTransaction) => Promise<User | null>; logged: (userId: string) => void } {
  if (options?.revokeApiKeys !== true) return { work: change, logged: () => undefined };
  let revoked: RevokedApiKey[] = [];
  return {
    async work(tx) {
      const user = await change(tx);
      // Reassigned, not appended: a transaction the database retries runs this again from the start.
      revoked = user ? await revokeAllApiKeys(core, tx, user.id, parties(user.id), reason) : [];
      return user;
    },
    logged: (userId) => logApiKeysRevoked(core, userId, parties(userId), reason, revoked),
  };
}
