import { AccountError } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import { adminParties, authoriseAdmin, authoriseAdminChange } from '../admin-authorisation';
import { ADMIN_PERMISSIONS } from '../admin-permissions';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type AdminActor, type Page } from '../admin-views';
import type { AuditDetails, AuditEventType } from '../audit-event';
import { PageCursors, type CursorScope } from '../page-cursor';
import { isRecordId } from '../record-id';
import { inviterNames, invitationViewOf } from './invitations';
import { memberView } from './membership-changes';
import { organizationNotFound } from './organization-errors';
import { OWNER_ROLE } from './organization-options';
import type { StoredOrganization } from './organization-records';
import type { AdminOrganizationSummary, AdminOrganizationView, AdminUserOrganization } from './organization-views';

const SCOPE: CursorScope = { list: 'organizations', filters: {} };

const userNotFound = () => new AccountError('user_not_found', 'No user has this id');

/**
 * The administrators' view of organizations (`AccountService.organizations.admin`): every action checked against its
 * global permission first (`gatehouse.organizations.read`, `.manage`), whatever the ids, and audited, reads too. The
 * operator (CLI) is not asked. Works whether organizations are on or off (the rows stay).
 */
export class OrganizationAdministration {
  private readonly cursors: PageCursors;

  constructor(private readonly core: AccountContext) {
    this.cursors = new PageCursors(core.tokens);
  }

  /** `gatehouse.organizations.read`: every organization by id, a page at a time. */
  async list(
    actor: AdminActor,
    query: { cursor?: string; limit?: number } = {},
  ): Promise<Page<AdminOrganizationSummary>> {
    await authoriseAdmin(this.core, actor, ADMIN_PERMISSIONS.readOrganizations);
    const limit = pageSize(query.limit);
    const after = query.cursor === undefined ? undefined : this.cursors.decode(SCOPE, query.cursor).id;
    const rows = await this.core.store.organizations.list({ after, limit: limit + 1 });
    const shown = rows.slice(0, limit);
    const items: AdminOrganizationSummary[] = [];
    for (const row of shown) items.push(await this.summaryOf(row));
    await this.record(actor, 'admin.organizations_listed', null, { shown: shown.length });
    const last = shown[shown.length - 1];
    return {
      items,
      nextCursor:
        rows.length > limit && last !== undefined
          ? this.cursors.encode(SCOPE, { at: last.createdAt, id: last.id })
          : null,
    };
  }

  /** `gatehouse.organizations.read`: the organization with every member (addresses too) and its pending invitations. */
  async get(actor: AdminActor, organizationId: string): Promise<AdminOrganizationView> {
    await authoriseAdmin(this.core, actor, ADMIN_PERMISSIONS.readOrganizations);
    const view = await this.view(organizationId);
    await this.record(actor, 'admin.organization_read', null, { organizationId });
    return view;
  }

  /** `gatehouse.organizations.read`: the user's organizations with the user's role in each. */
  async userOrganizations(actor: AdminActor, userId: string): Promise<AdminUserOrganization[]> {
    await authoriseAdmin(this.core, actor, ADMIN_PERMISSIONS.readOrganizations);
    if (!isRecordId(userId) || !(await this.core.store.users.findById(userId))) throw userNotFound();
    const rows = await this.core.store.organizations.listForUser(userId);
    await this.record(actor, 'admin.user_organizations_read', userId, { shown: rows.length });
    return rows.map((row) => ({
      id: row.organization.id,
      name: row.organization.name,
      role: row.role,
      joinedAt: row.joinedAt,
    }));
  }

  /**
   * `gatehouse.organizations.manage` (and a recent session): the user becomes an owner of the organization, made a
   * member when it was not one (no limit applies to an administrator's choice). Idempotent; audited with the role the
   * user had before (`none` when not a member).
   */
  async setOwner(actor: AdminActor, organizationId: string, userId: string): Promise<AdminOrganizationView> {
    await authoriseAdminChange(this.core, actor, ADMIN_PERMISSIONS.manageOrganizations);
    if (!isRecordId(organizationId)) throw organizationNotFound();
    if (!isRecordId(userId)) throw userNotFound();
    const audit = this.core.audit.event('admin.organization_owner_set', 'success', adminParties(actor, userId), {
      organizationId,
    });
    const before = await this.core.store.transaction(async (tx) => {
      if (!(await tx.organizations.lockUser(userId))) throw userNotFound();
      if (!(await tx.organizations.lock(organizationId))) throw organizationNotFound();
      const membership = await tx.organizations.membership(organizationId, userId);
      if (membership?.role === OWNER_ROLE) return OWNER_ROLE;
      if (membership) {
        await tx.organizations.setRole(organizationId, userId, OWNER_ROLE, audit.at);
      } else {
        const added = await tx.organizations.addMember({
          organizationId,
          userId,
          role: OWNER_ROLE,
          createdAt: audit.at,
          updatedAt: audit.at,
        });
        if (added === 'gone') throw userNotFound();
      }
      const previous = membership?.role ?? 'none';
      await tx.audit.add({ ...audit, details: { ...audit.details, previous_role: previous } });
      return previous;
    });
    if (before !== OWNER_ROLE) {
      this.core.logger.info(
        {
          event: audit.type,
          outcome: audit.outcome,
          userId,
          actorType: audit.actorType,
          ...(audit.actorId ? { actorId: audit.actorId } : {}),
          organizationId,
        },
        'organization owner set by an administrator',
      );
    }
    return this.view(organizationId);
  }

  private async view(organizationId: string): Promise<AdminOrganizationView> {
    if (!isRecordId(organizationId)) throw organizationNotFound();
    const organization = await this.core.store.organizations.find(organizationId);
    if (!organization) throw organizationNotFound();
    const members = await this.core.store.organizations.listMembers(organizationId);
    const invitations = await this.core.store.organizations.listInvitations(organizationId, this.core.clock.now());
    const names = await inviterNames(this.core, invitations);
    return {
      ...summary(organization, members.length),
      members: members.map((member) => memberView(member, true)),
      invitations: invitations.map((invitation) => invitationViewOf(invitation, names)),
    };
  }

  private async summaryOf(organization: StoredOrganization): Promise<AdminOrganizationSummary> {
    return summary(organization, await this.core.store.organizations.countMembers(organization.id));
  }

  private record(actor: AdminActor, type: AuditEventType, subjectId: string | null, details: AuditDetails) {
    return this.core.audit.write(this.core.audit.event(type, 'success', adminParties(actor, subjectId), details));
  }
}

function summary(organization: StoredOrganization, memberCount: number): AdminOrganizationSummary {
  return {
    id: organization.id,
    name: organization.name,
    createdBy: organization.createdBy,
    createdAt: organization.createdAt,
    updatedAt: organization.updatedAt,
    memberCount,
  };
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new AccountError('account_error', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  return limit;
}
