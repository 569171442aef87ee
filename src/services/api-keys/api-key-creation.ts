import { AccountError } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import type { AuditParties } from '../audit-trail';
import { orderedId } from '../ordered-id';
import { canSend } from '../sender-operations';
import { notAServiceAccount } from './api-key-errors';
import { lastFourOf, mintApiKey } from './api-key-format';
import { apiKeyView } from './api-key-listing';
import type { StoredApiKey } from './api-key-records';
import { apiKeyExpiry, apiKeyName, requestedScopes, requireHeld } from './api-key-rules';
import type { ApiKeyInput, CreatedApiKey } from './api-key-views';

/** Who a key is made for and by whom: the owner themselves, or an administrator for a service account. */
export interface KeyCreation {
  ownerId: string;
  /** The actor, for the audit event (`self(owner)`, or the administrator's parties). */
  parties: AuditParties;
  /** Who the listing names as creator (null: the operator). */
  creator: { id: string; username: string } | null;
  /**
   * An administrator making a key for a service account: the scopes must be theirs too, read in the same transaction,
   * so that nobody mints a key stronger than they are.
   */
  alsoHeldBy?: string;
  /** Only a service account may own it (`not_a_service_account` for a person). */
  serviceAccountOnly: boolean;
  /**
   * The error for an owner that is gone, or `disabled` (a person's own key: `invalid_session_token` either way, the
   * session ended with it).
   */
  ownerGone: (disabled: boolean) => AccountError;
}

/**
 * Creates a key: the input's shape first (name, scopes, expiry: nothing read), then every rule that a concurrent
 * change could move decided in one transaction under the owner's row lock: the owner still enabled, its expired keys
 * removed (their names become free), the scopes held now, the live-key limit, the name free, then the key inserted
 * with the owner's notice (never a service account's) and the audit event. A refusal anywhere undoes it all: no key,
 * no mail, no event. The key is returned this once and kept only as its keyed hash.
 */
export async function createApiKey(
  core: AccountContext,
  creation: KeyCreation,
  input: ApiKeyInput,
): Promise<CreatedApiKey> {
  const name = apiKeyName(input?.name);
  const scopes = requestedScopes(input?.scopes);
  const now = core.clock.now();
  const expiresAt = apiKeyExpiry(input?.expiresInDays, now, core.options);
  const key = mintApiKey(core.options.apiKeyPrefix);
  const stored: StoredApiKey = {
    id: orderedId(now.getTime()),
    keyHash: core.tokens.hash(key),
    userId: creation.ownerId,
    name,
    lastFour: lastFourOf(key),
    scopes,
    createdAt: now,
    expiresAt,
    lastUsedAt: null,
    lastUsedIp: null,
    createdBy: creation.creator?.id ?? null,
  };
  // Ids, names, times: never the key or its hash. The name is the owner's own words and stays in the listing.
  const audit = core.audit.event(
    'api_key_created',
    'success',
    { ...creation.parties, subjectId: creation.ownerId },
    { keyId: stored.id, scopes: scopes.join(' '), expiresAt: expiresAt.toISOString() },
  );
  const notice = canSend(core.sender, 'apiKeyCreated') ? core.messages.notice('apiKeyCreated', now) : undefined;
  const mailed = await core.store.transaction(async (tx) => {
    const owner = (await tx.apiKeys.lockOwner(creation.ownerId)) ? await tx.users.findById(creation.ownerId) : null;
    if (!owner) throw creation.ownerGone(false);
    // A disabled owner's keys were revoked with the disabling; none is made after it.
    if (owner.disabledAt !== null) throw creation.ownerGone(true);
    const serviceAccount = await tx.apiKeys.serviceAccount(owner.id);
    if (creation.serviceAccountOnly && !serviceAccount) throw notAServiceAccount();
    await tx.apiKeys.deleteExpiredOf(owner.id, now);
    const held = [await tx.apiKeys.permissionsOf(owner.id)];
    if (creation.alsoHeldBy !== undefined) held.push(await tx.apiKeys.permissionsOf(creation.alsoHeldBy));
    requireHeld(scopes, ...held);
    if ((await tx.apiKeys.countLive(owner.id, now)) >= core.options.apiKeyMaxPerUser) {
      throw new AccountError(
        'api_key_limit_reached',
        `An account holds at most ${core.options.apiKeyMaxPerUser} unexpired API keys; revoke one first`,
      );
    }
    if ((await tx.apiKeys.create(stored)) === 'name_taken') {
      throw new AccountError('api_key_name_taken', 'Another API key of this account has this name');
    }
    const mail = notice !== undefined && serviceAccount === null;
    if (mail) await tx.outbox.add(notice, owner);
    await tx.audit.add(audit);
    return mail;
  });
  core.logger.info(
    {
      event: 'api_key_created',
      outcome: 'success',
      userId: creation.ownerId,
      actorType: audit.actorType,
      ...(audit.actorId ? { actorId: audit.actorId } : {}),
      keyId: stored.id,
    },
    'API key created',
  );
  if (mailed) core.delivery?.nudge();
  const listing = { ...stored, createdByUsername: creation.creator?.username ?? null };
  return { key, apiKey: apiKeyView(listing, now) };
}
