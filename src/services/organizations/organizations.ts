import type { AccountContext } from '../account-context';
import {
  cancelInvitation,
  declineInvitation,
  invite,
  listInvitations,
  previewInvitation,
  resendInvitation,
} from './invitations';
import { acceptInvitation } from './invitations';
import { changeRole, leaveOrganization, listMembers, removeMember, transferOwnership } from './membership-changes';
import { requireSettings } from './organization-access';
import { OrganizationAdministration } from './organization-administration';
import {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listMyOrganizations,
  renameOrganization,
} from './organization-lifecycle';
import type { OrganizationSettings, OrganizationTemplate } from './organization-options';
import type { InvitationPreview, InvitationView, MemberView, OrganizationView } from './organization-views';

/**
 * Organizations (`AccountService.organizations`): making one, its members and their roles from the one template,
 * invitations bound to an address, ownership, leaving and deleting. Every method that names an organization takes the
 * caller's session token and checks, in the core, that the caller is a member (else `organization_not_found`, the
 * same for unknown ids) and holds the permission (else `permission_denied`): the routes, the hosted pages and a host's
 * own code are held to the same rules. Each change is decided under the organization's lock, audited in its
 * transaction, and its mail queued there too. Off (`organization_not_found` everywhere) when
 * `AccountOptions.organizations` is `false`.
 */
export class Organizations {
  constructor(private readonly core: AccountContext) {}

  /** The settings, or null when organizations are off. */
  get settings(): OrganizationSettings | null {
    return this.core.options.organizations;
  }

  /**
   * The administrators' part: listing organizations, reading one with its members and invitations, a user's
   * organizations, naming an owner; each checked against `gatehouse.organizations.read` / `.manage` and audited.
   * A getter, so that a request's view of this part (`AccountService.forRequest`) audits with the request's origin.
   */
  get admin(): OrganizationAdministration {
    return new OrganizationAdministration(this.core);
  }

  /** The role template; throws `organization_not_found` when organizations are off. */
  get template(): OrganizationTemplate {
    return requireSettings(this.core).template;
  }

  /** Creates an organization; the caller becomes its `owner`. */
  async create(sessionToken: string, input: { name: string }): Promise<OrganizationView> {
    return createOrganization(this.core, sessionToken, input);
  }

  /** The caller's organizations, oldest membership first, each with the caller's role and permissions. */
  async listMine(sessionToken: string): Promise<OrganizationView[]> {
    return listMyOrganizations(this.core, sessionToken);
  }

  /** One organization of the caller's (any member), with its member count. */
  async get(sessionToken: string, organizationId: string): Promise<OrganizationView> {
    return getOrganization(this.core, sessionToken, organizationId);
  }

  /** `gatehouse.organization.update`. */
  async rename(sessionToken: string, organizationId: string, name: string): Promise<OrganizationView> {
    return renameOrganization(this.core, sessionToken, organizationId, name);
  }

  /** `gatehouse.organization.delete` and a recent session; members are told, then the host's `onDeleted` is called. */
  async delete(sessionToken: string, organizationId: string): Promise<void> {
    return deleteOrganization(this.core, sessionToken, organizationId);
  }

  /** `gatehouse.members.read`; addresses only for holders of `gatehouse.members.manage`. */
  async listMembers(sessionToken: string, organizationId: string): Promise<MemberView[]> {
    return listMembers(this.core, sessionToken, organizationId);
  }

  /** `gatehouse.members.manage`, an assignable role, never the caller's own, `last_owner` kept. */
  async changeRole(sessionToken: string, organizationId: string, userId: string, role: string): Promise<MemberView> {
    return changeRole(this.core, sessionToken, organizationId, userId, role);
  }

  /** `gatehouse.members.manage` (the caller's own id: leaving); owners only by owners; `last_owner` kept. */
  async removeMember(sessionToken: string, organizationId: string, userId: string): Promise<void> {
    return removeMember(this.core, sessionToken, organizationId, userId);
  }

  /** Any member but the last owner. */
  async leave(sessionToken: string, organizationId: string): Promise<void> {
    return leaveOrganization(this.core, sessionToken, organizationId);
  }

  /** By an owner with a recent session: the member becomes `owner`, the caller `admin`, in one transaction. */
  async transfer(sessionToken: string, organizationId: string, userId: string): Promise<void> {
    return transferOwnership(this.core, sessionToken, organizationId, userId);
  }

  /** `gatehouse.members.invite` and an assignable role; replaces a pending invitation of the same address. */
  async invite(
    sessionToken: string,
    organizationId: string,
    input: { email: string; role: string },
  ): Promise<InvitationView> {
    return invite(this.core, sessionToken, organizationId, input);
  }

  /** `gatehouse.members.manage`: the pending invitations, with addresses. */
  async listInvitations(sessionToken: string, organizationId: string): Promise<InvitationView[]> {
    return listInvitations(this.core, sessionToken, organizationId);
  }

  /** `gatehouse.members.manage`: a new token and expiry, mailed again; the old token stops working. */
  async resendInvitation(sessionToken: string, organizationId: string, invitationId: string): Promise<InvitationView> {
    return resendInvitation(this.core, sessionToken, organizationId, invitationId);
  }

  /** `gatehouse.members.manage`. */
  async cancelInvitation(sessionToken: string, organizationId: string, invitationId: string): Promise<void> {
    return cancelInvitation(this.core, sessionToken, organizationId, invitationId);
  }

  /** What an invitation's holder sees before choosing: no session needed, nothing changes. */
  async previewInvitation(token: string): Promise<InvitationPreview> {
    return previewInvitation(this.core, token);
  }

  /** Only the verified account owning the invited address; claim and membership in one transaction. */
  async acceptInvitation(sessionToken: string, token: string): Promise<OrganizationView> {
    return acceptInvitation(this.core, sessionToken, token);
  }

  /** As accepting, without joining. */
  async declineInvitation(sessionToken: string, token: string): Promise<void> {
    return declineInvitation(this.core, sessionToken, token);
  }
}
