import { randomUUID } from 'node:crypto';
import { AccountError, invalidSession } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import { self } from '../audit-trail';
import { canSend } from '../sender-operations';
import {
  logChange,
  lockedAccess,
  memberAccess,
  memberEvent,
  organizationView,
  requireOrganization,
  requireSettings,
} from './organization-access';
import { organizationLimitReached, organizationPermissionDenied } from './organization-errors';
import { organizationName } from './organization-names';
import { OWNER_ROLE, type OrganizationSettings } from './organization-options';
import type { StoredOrganization } from './organization-records';
import type { OrganizationView } from './organization-views';

/** The global permission that lets a user create organizations when `creation` is 'administrators'. */
export const MANAGE_ORGANIZATIONS = 'gatehouse.organizations.manage';

/** Creates an organization; the caller (a verified account) becomes its owner, in one transaction. */
export async function createOrganization(
  core: AccountContext,
  sessionToken: string,
  input: { name: string },
): Promise<OrganizationView> {
  const settings = requireSettings(core);
  const user = await core.requireSessionUser(sessionToken);
  if (!user.verified)
    throw new AccountError('permission_denied', 'Verify your address before creating an organization');
  if (
    settings.creation === 'administrators' &&
    (await core.store.access.checkPermission(user.id, MANAGE_ORGANIZATIONS)) !== 'granted'
  ) {
    core.logger.info(
      { event: 'organization_created', outcome: 'permission_denied', userId: user.id },
      'organization creation refused',
    );
    throw organizationPermissionDenied();
  }
  const name = organizationName(input?.name);
  const now = core.clock.now();
  const organization: StoredOrganization = {
    id: randomUUID(),
    name,
    createdBy: user.id,
    createdAt: now,
    updatedAt: now,
  };
  const audit = core.audit.event('organization_created', 'success', self(user.id), { organizationId: organization.id });
  await core.store.transaction(async (tx) => {
    if (!(await tx.organizations.lockUser(user.id))) throw invalidSession();
    if ((await tx.organizations.countForUser(user.id)) >= settings.maxOrganizationsPerUser) {
      throw organizationLimitReached();
    }
    await tx.organizations.create(organization);
    const added = await tx.organizations.addMember({
      organizationId: organization.id,
      userId: user.id,
      role: OWNER_ROLE,
      createdAt: now,
      updatedAt: now,
    });
    if (added !== 'added') throw invalidSession();
    await tx.audit.add(audit);
  });
  logChange(core, audit, 'organization created');
  return organizationView(settings, organization, OWNER_ROLE);
}

export async function listMyOrganizations(core: AccountContext, sessionToken: string): Promise<OrganizationView[]> {
  const settings = requireSettings(core);
  const user = await core.requireSessionUser(sessionToken);
  const rows = await core.store.organizations.listForUser(user.id);
  return rows.map((row) => organizationView(settings, row.organization, row.role));
}

export async function getOrganization(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
): Promise<OrganizationView> {
  const access = await memberAccess(core, sessionToken, organizationId);
  const organization = await requireOrganization(core.store.organizations, organizationId);
  const memberCount = await core.store.organizations.countMembers(organizationId);
  return { ...organizationView(access.settings, organization, access.membership.role), memberCount };
}

export async function renameOrganization(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
  rawName: string,
): Promise<OrganizationView> {
  const access = await memberAccess(core, sessionToken, organizationId, 'gatehouse.organization.update');
  const name = organizationName(rawName);
  const now = core.clock.now();
  const audit = memberEvent(core, 'organization_updated', access.user.id, access.user.id, organizationId);
  const result = await core.store.transaction(async (tx) => {
    const locked = await lockedAccess(core, tx, access, 'gatehouse.organization.update');
    await tx.organizations.rename(organizationId, name, now);
    await tx.audit.add(audit);
    return { organization: { ...locked.organization, name, updatedAt: now }, role: locked.membership.role };
  });
  logChange(core, audit, 'organization renamed');
  return organizationView(access.settings, result.organization, result.role);
}

/**
 * `gatehouse.organization.delete` and a recent session: the organization goes with its memberships and invitations,
 * every other member is told (queued in the same transaction), and the host's `onDeleted` is called after commit.
 */
export async function deleteOrganization(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
): Promise<void> {
  const access = await memberAccess(core, sessionToken, organizationId, 'gatehouse.organization.delete');
  core.requireRecent(access.live);
  const now = core.clock.now();
  const notify = canSend(core.sender, 'organizationDeleted');
  const audit = memberEvent(core, 'organization_deleted', access.user.id, access.user.id, organizationId);
  const deleted = await core.store.transaction(async (tx) => {
    const locked = await lockedAccess(core, tx, access, 'gatehouse.organization.delete');
    const members = await tx.organizations.listMembers(organizationId);
    await tx.organizations.delete(organizationId);
    for (const member of members) {
      if (member.userId === access.user.id || !notify) continue;
      await tx.outbox.add(core.messages.notice('organizationDeleted', now), {
        id: member.userId,
        username: member.username,
        email: member.email,
      });
    }
    await tx.audit.add({ ...audit, details: { ...audit.details, members: members.length } });
    return locked.organization;
  });
  logChange(core, audit, 'organization deleted');
  core.delivery?.nudge();
  await afterDeletion(core, access.settings, [deleted]);
}

/** The host's `onDeleted` for each organization deleted (after commit); a failure is logged, never thrown. */
export async function afterDeletion(
  core: AccountContext,
  settings: OrganizationSettings | null,
  organizations: readonly Pick<StoredOrganization, 'id' | 'name'>[],
): Promise<void> {
  const hook = settings?.onDeleted;
  if (!hook) return;
  for (const { id, name } of organizations) {
    try {
      await hook({ id, name });
    } catch (error) {
      core.logger.error(
        { event: 'organization_deleted_hook', outcome: 'failed', organizationId: id, error: describeError(error) },
        'the host hook onDeleted failed',
      );
    }
  }
}

function describeError(error: unknown): { name: string; message?: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: typeof error };
}
