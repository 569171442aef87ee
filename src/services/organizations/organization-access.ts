import type { AccountContext, LiveSession } from '../account-context';
import type { AuditDetails, AuditEvent, AuditEventType } from '../audit-event';
import { isRecordId } from '../record-id';
import type { StoredUser } from '../types';
import type { UserStoreTransaction } from '../user-store';
import { organizationNotFound, organizationPermissionDenied } from './organization-errors';
import { permissionsOf, sortedPermissionsOf, type OrganizationSettings } from './organization-options';
import type { OrganizationRecords, StoredMembership, StoredOrganization } from './organization-records';
import type { OrganizationView } from './organization-views';

/** The caller in one organization: the session's user, its membership and the permissions its role holds. */
export interface MemberAccess {
  settings: OrganizationSettings;
  live: LiveSession;
  user: StoredUser;
  membership: StoredMembership;
  permissions: ReadonlySet<string>;
}

/** The settings, or `organization_not_found` when organizations are off (every route answers as for an unknown id). */
export function requireSettings(core: AccountContext): OrganizationSettings {
  const settings = core.options.organizations;
  if (!settings) throw organizationNotFound();
  return settings;
}

/**
 * The caller's membership of the organization, checked in this order: the session (`invalid_session_token`), then the
 * id (malformed, unknown, or not the caller's: `organization_not_found` alike, a malformed one without a read), then
 * `permission` when given (`permission_denied`). A read outside any transaction: a change checks again under the
 * organization's lock (`lockedAccess`).
 */
export async function memberAccess(
  core: AccountContext,
  sessionToken: string,
  organizationId: string,
  permission?: string,
): Promise<MemberAccess> {
  const settings = requireSettings(core);
  const live = await core.requireLiveSession(sessionToken);
  if (!isRecordId(organizationId)) throw organizationNotFound();
  const membership = await core.store.organizations.membership(organizationId, live.user.id);
  if (!membership) throw organizationNotFound();
  const permissions = permissionsOf(settings.template, membership.role);
  if (permission !== undefined && !permissions.has(permission)) {
    refused(core, live.user.id, organizationId, permission);
  }
  return { settings, live, user: live.user, membership, permissions };
}

/** The organization locked, and the caller's membership read again under the lock, in the change's transaction. */
export interface LockedAccess {
  organization: StoredOrganization;
  membership: StoredMembership;
  permissions: ReadonlySet<string>;
}

/**
 * Locks the organization in `tx` and checks the caller again under the lock: a removal or demotion that committed
 * since the first read wins (`organization_not_found`, `permission_denied`).
 */
export async function lockedAccess(
  core: AccountContext,
  tx: UserStoreTransaction,
  access: MemberAccess,
  permission?: string,
): Promise<LockedAccess> {
  const organizationId = access.membership.organizationId;
  const organization = await tx.organizations.lock(organizationId);
  if (!organization) throw organizationNotFound();
  const membership = await tx.organizations.membership(organizationId, access.user.id);
  if (!membership) throw organizationNotFound();
  const permissions = permissionsOf(access.settings.template, membership.role);
  if (permission !== undefined && !permissions.has(permission)) {
    refused(core, access.user.id, organizationId, permission);
  }
  return { organization, membership, permissions };
}

/** Logs and throws the refusal of a member without `permission`. */
export function refused(core: AccountContext, userId: string, organizationId: string, permission: string): never {
  core.logger.info(
    { event: 'organization_action', outcome: 'permission_denied', userId, organizationId, permission },
    'organization action refused',
  );
  throw organizationPermissionDenied();
}

/** The organization as its member sees it. */
export function organizationView(
  settings: OrganizationSettings,
  organization: StoredOrganization,
  role: string,
): OrganizationView {
  return {
    id: organization.id,
    name: organization.name,
    createdAt: organization.createdAt,
    role,
    permissions: [...sortedPermissionsOf(settings.template, role)],
  };
}

/** The organization, read again (it may have gone since the membership was read). */
export async function requireOrganization(
  reads: Pick<OrganizationRecords, 'find'>,
  organizationId: string,
): Promise<StoredOrganization> {
  const organization = await reads.find(organizationId);
  if (!organization) throw organizationNotFound();
  return organization;
}

/** An event of a member's act in an organization: the organization's id always among its details. */
export function memberEvent(
  core: AccountContext,
  type: AuditEventType,
  actorId: string,
  subjectId: string | null,
  organizationId: string,
  details: AuditDetails = {},
  outcome = 'success',
): AuditEvent {
  return core.audit.event(type, outcome, { actorType: 'user', actorId, subjectId }, { organizationId, ...details });
}

/** Logs a change that committed, as the rest of the core does (ids and names only). */
export function logChange(core: AccountContext, event: AuditEvent, message: string): void {
  core.logger.info(
    {
      event: event.type,
      outcome: event.outcome,
      ...(event.actorId ? { userId: event.actorId } : {}),
      ...(event.subjectId && event.subjectId !== event.actorId ? { subjectId: event.subjectId } : {}),
      ...event.details,
    },
    message,
  );
}
