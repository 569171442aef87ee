import type { AccountContext } from './account-context';
import type { AuditParties } from './audit-trail';
import type { UserStoreTransaction } from './user-store';
import { afterDeletion } from './organizations/organization-lifecycle';
import { lastOwner } from './organizations/organization-errors';
import { OWNER_ROLE } from './organizations/organization-options';
import type { StoredOrganization } from './organizations/organization-records';

// What an account's deletion (its own, an administrator's, the operator's) does to its organizations: refused
// (`last_owner`) while the account is the last owner of one with other members; the organizations it is alone in go
// with it, in the same transaction, and the host's `onDeleted` hears of them after commit. Shared code beside the
// other shared rules, not in a feature's folder: the account's own deletion and the administration's both use it.

/**
 * Inside the deletion's transaction, before the user goes: takes the user's lock, then each organization's (in id
 * order), and throws `last_owner` (undoing the transaction) when the user is the only owner of an organization with
 * other members. Returns the organizations the user is the only member of, for `deleteAloneOrganizations`.
 */
export async function organizationsEndingWith(tx: UserStoreTransaction, userId: string): Promise<StoredOrganization[]> {
  if (!(await tx.organizations.lockUser(userId))) return [];
  const memberships = await tx.organizations.listForUser(userId);
  const ids = memberships.map((row) => row.organization.id).sort();
  const alone: StoredOrganization[] = [];
  for (const id of ids) {
    const organization = await tx.organizations.lock(id);
    if (!organization) continue;
    const membership = await tx.organizations.membership(id, userId);
    if (!membership) continue;
    if ((await tx.organizations.countMembers(id)) <= 1) {
      alone.push(organization);
    } else if (membership.role === OWNER_ROLE && (await tx.organizations.countMembersWithRole(id, OWNER_ROLE)) <= 1) {
      throw lastOwner();
    }
  }
  return alone;
}

/** After the user's deletion, in its transaction: the organizations it was alone in go too, each audited. */
export async function deleteAloneOrganizations(
  core: AccountContext,
  tx: UserStoreTransaction,
  organizations: readonly StoredOrganization[],
  parties: AuditParties,
): Promise<void> {
  for (const organization of organizations) {
    await tx.organizations.delete(organization.id);
    await tx.audit.add(
      core.audit.event('organization_deleted', 'success', parties, {
        organizationId: organization.id,
        reason: 'account_deleted',
      }),
    );
  }
}

/** After commit: the host's hook for each organization that went with the account (failures logged). */
export function afterAccountDeletion(
  core: AccountContext,
  organizations: readonly StoredOrganization[],
): Promise<void> {
  return afterDeletion(core, core.options.organizations, organizations);
}
