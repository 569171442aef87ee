import { randomUUID } from 'node:crypto';
import { AccountError, usernameTakenError } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import { expectGranted, grantorOf } from '../access-change-results';
import { adminParties } from '../admin-authorisation';
import type { AdminActor } from '../admin-views';
import { unverifiedCreatedBefore } from '../expiry-rules';
import { canonicalEmail, canonicalUsername, checkRoleName } from '../identity';
import { serviceAccountAddress } from '../service-account-address';
import type { StoredServiceAccount } from './api-key-records';
import type { ServiceAccountView } from './api-key-views';

/**
 * Creates a service account: a user row under the username asked for (the username rules, `invalid_username` when
 * taken), its address `<id>@service-accounts.invalid`, verified (so the clean-up of unconfirmed registrations never
 * takes it), without a password credential (a login answers as a wrong password), marked a service account, and
 * granted `roles` under the store's rules for an administrator's grant (never a role the administrator holds, nothing
 * the administrator does not hold). One transaction, audited: the creation and each role granted.
 */
export async function createServiceAccount(
  core: AccountContext,
  actor: AdminActor,
  input: { username: string; roles?: readonly string[] },
): Promise<ServiceAccountView> {
  const name = canonicalUsername(typeof input?.username === 'string' ? input.username : '');
  const asked: unknown = input?.roles ?? [];
  if (!Array.isArray(asked)) throw new AccountError('invalid_role', 'roles must be a list of role names');
  const roles = [...new Set(asked.map((role: string) => checkRoleName(role)))].sort();
  const now = core.clock.now();
  const id = randomUUID();
  const address = canonicalEmail(serviceAccountAddress(id));
  // `UserRecords.create` stores a registration with its first link; the link is never sent, and marking the account
  // verified below deletes it in the same transaction.
  const verification = core.tokenRow(core.tokens.generate(), { id, createdAt: now }, 'verify_email', now);
  const parties = adminParties(actor, id);
  const account: StoredServiceAccount = {
    userId: id,
    createdAt: now,
    createdBy: actor.kind === 'admin' ? actor.user.id : null,
  };
  const events = [
    core.audit.event('service_account_created', 'success', parties, { roles: roles.join(' ') }),
    ...roles.map((role) => core.audit.event('admin.role_granted', 'success', parties, { role })),
  ];
  await core.store.transaction(async (tx) => {
    const expiredBefore = unverifiedCreatedBefore(now, core.options.unverifiedRegistrationTtlMs);
    const created = await tx.users.create(
      { id, ...name, ...address, passwordHash: null, createdAt: now },
      verification,
      expiredBefore,
    );
    if (!created.ok) throw usernameTakenError();
    await tx.users.markVerified(id, now);
    await tx.apiKeys.createServiceAccount(account);
    for (const role of roles) expectGranted(await tx.access.grantRole(id, role, { grantor: grantorOf(actor) }));
    for (const event of events) await tx.audit.add(event);
  });
  core.logger.info(
    {
      event: 'service_account_created',
      outcome: 'success',
      userId: id,
      actorType: parties.actorType,
      ...(parties.actorId ? { actorId: parties.actorId } : {}),
      roles: roles.length,
    },
    'service account created',
  );
  const creator = actor.kind === 'admin' ? await core.store.users.findById(actor.user.id) : null;
  return {
    id,
    username: name.username,
    roles,
    createdAt: now,
    createdBy: creator ? { id: creator.id, username: creator.username } : null,
    disabled: false,
  };
}

/** Every service account, oldest first (one whose user went meanwhile is left out). */
export async function listServiceAccounts(core: AccountContext): Promise<ServiceAccountView[]> {
  const views: ServiceAccountView[] = [];
  for (const account of await core.store.apiKeys.listServiceAccounts()) {
    const view = await serviceAccountView(core, account);
    if (view) views.push(view);
  }
  return views;
}

/** The account as administrators see it, or null when its user is gone. */
async function serviceAccountView(
  core: AccountContext,
  account: StoredServiceAccount,
): Promise<ServiceAccountView | null> {
  const user = await core.store.users.findById(account.userId);
  if (!user) return null;
  const creator = account.createdBy === null ? null : await core.store.users.findById(account.createdBy);
  return {
    id: user.id,
    username: user.username,
    roles: await core.store.access.listUserRoles(user.id),
    createdAt: account.createdAt,
    createdBy: creator ? { id: creator.id, username: creator.username } : null,
    disabled: user.disabledAt !== null,
  };
}
