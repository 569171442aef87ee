import type { AccountContext } from '../account-context';
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

  /** The role template; throws `organization_not_found` when organizations are off. */
  get template(): OrganizationTemplate {
    throw new Error('not implemented');
  }

  /** Creates an organization; the caller becomes its `owner`. */
  async create(sessionToken: string, input: { name: string }): Promise<OrganizationView> {
    throw new Error('not implemented');
  }

  /** The caller's organizations, oldest membership first, each with the caller's role and permissions. */
  async listMine(sessionToken: string): Promise<OrganizationView[]> {
    throw new Error('not implemented');
  }

  /** One organization of the caller's (any member). */
  async get(sessionToken: string, organizationId: string): Promise<OrganizationView> {
    throw new Error('not implemented');
  }

  /** `gatehouse.organization.update`. */
  async rename(sessionToken: string, organizationId: string, name: string): Promise<OrganizationView> {
    throw new Error('not implemented');
  }

  /** `gatehouse.organization.delete` and a recent session; members are told, then the host's `onDeleted` is called. */
  async delete(sessionToken: string, organizationId: string): Promise<void> {
    throw new Error('not implemented');
  }

  /** `gatehouse.members.read`; addresses only for holders of `gatehouse.members.manage`. */
  async listMembers(sessionToken: string, organizationId: string): Promise<MemberView[]> {
    throw new Error('not implemented');
  }

  /** `gatehouse.members.manage`, an assignable role, never the caller's own, `last_owner` kept. */
  async changeRole(sessionToken: string, organizationId: string, userId: string, role: string): Promise<MemberView> {
    throw new Error('not implemented');
  }

  /** `gatehouse.members.manage` (the caller's own id: leaving); owners only by owners; `last_owner` kept. */
  async removeMember(sessionToken: string, organizationId: string, userId: string): Promise<void> {
    throw new Error('not implemented');
  }

  /** Any member but the last owner. */
  async leave(sessionToken: string, organizationId: string): Promise<void> {
    throw new Error('not implemented');
  }

  /** By an owner with a recent session: the member becomes `owner`, the caller `admin`, in one transaction. */
  async transfer(sessionToken: string, organizationId: string, userId: string): Promise<void> {
    throw new Error('not implemented');
  }

  /** `gatehouse.members.invite` and an assignable role; replaces a pending invitation of the same address. */
  async invite(
    sessionToken: string,
    organizationId: string,
    input: { email: string; role: string },
  ): Promise<InvitationView> {
    throw new Error('not implemented');
  }

  /** `gatehouse.members.manage`: the pending invitations, with addresses. */
  async listInvitations(sessionToken: string, organizationId: string): Promise<InvitationView[]> {
    throw new Error('not implemented');
  }

  /** `gatehouse.members.manage`: a new token and expiry, mailed again; the old token stops working. */
  async resendInvitation(sessionToken: string, organizationId: string, invitationId: string): Promise<InvitationView> {
    throw new Error('not implemented');
  }

  /** `gatehouse.members.manage`. */
  async cancelInvitation(sessionToken: string, organizationId: string, invitationId: string): Promise<void> {
    throw new Error('not implemented');
  }

  /** What an invitation's holder sees before choosing: no session needed, nothing changes. */
  async previewInvitation(token: string): Promise<InvitationPreview> {
    throw new Error('not implemented');
  }

  /** Only the verified account owning the invited address; claim and membership in one transaction. */
  async acceptInvitation(sessionToken: string, token: string): Promise<OrganizationView> {
    throw new Error('not implemented');
  }

  /** As accepting, without joining. */
  async declineInvitation(sessionToken: string, token: string): Promise<void> {
    throw new Error('not implemented');
  }
}
