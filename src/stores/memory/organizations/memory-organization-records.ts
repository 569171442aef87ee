import type {
  MemberRecord,
  OrganizationPage,
  OrganizationRecords,
  StoredInvitation,
  StoredMembership,
  StoredOrganization,
  UserOrganization,
} from '../../../services/organizations/organization-records';
import { isAtOrBefore } from '../copies';
import { invitationAddressKey, membershipKey, type MemoryData } from '../memory-state';

/**
 * Organizations, their memberships and invitations, read outside a transaction or written in one. The locks are
 * nothing to take here: transactions run one after another (`MemoryState.exclusive`), so what one reads after
 * `lock` holds until it ends; `lockUser` and `lock` only answer whether the row is there.
 */
export class MemoryOrganizationRecords implements OrganizationRecords {
  constructor(private readonly data: MemoryData) {}

  async find(id: string): Promise<StoredOrganization | null> {
    const organization = this.data.organizations.get(id);
    return organization ? copyOrganization(organization) : null;
  }

  async membership(organizationId: string, userId: string): Promise<StoredMembership | null> {
    const membership = this.data.memberships.get(membershipKey(organizationId, userId));
    return membership ? copyMembership(membership) : null;
  }

  async listForUser(userId: string): Promise<UserOrganization[]> {
    // Oldest membership first, as the SQL store orders them: its `createdAt`, then the organization's id.
    const { data } = this;
    return data.memberships
      .ownedBy(userId)
      .map(([, membership]) => membership)
      .sort((a, b) => byTime(a.createdAt, b.createdAt) || byText(a.organizationId, b.organizationId))
      .flatMap((membership) => {
        const organization = data.organizations.get(membership.organizationId);
        return organization
          ? [
              {
                organization: copyOrganization(organization),
                role: membership.role,
                joinedAt: new Date(membership.createdAt),
              },
            ]
          : [];
      });
  }

  async listMembers(organizationId: string): Promise<MemberRecord[]> {
    // Oldest first: `createdAt`, then the user's id.
    const { data } = this;
    return this.membersOf(organizationId)
      .sort((a, b) => byTime(a.createdAt, b.createdAt) || byText(a.userId, b.userId))
      .flatMap((membership) => {
        const user = data.users.get(membership.userId);
        return user ? [{ ...copyMembership(membership), username: user.username, email: user.email }] : [];
      });
  }

  async listInvitations(organizationId: string, now: Date): Promise<StoredInvitation[]> {
    return this.pendingOf(organizationId, now)
      .sort((a, b) => byTime(a.createdAt, b.createdAt) || byText(a.id, b.id))
      .map(copyInvitation);
  }

  async findInvitation(organizationId: string, id: string, now: Date): Promise<StoredInvitation | null> {
    const invitation = this.data.invitations.get(id);
    if (!invitation || invitation.organizationId !== organizationId || isAtOrBefore(invitation.expiresAt, now)) {
      return null;
    }
    return copyInvitation(invitation);
  }

  async findInvitationByToken(tokenHash: string, now: Date): Promise<StoredInvitation | null> {
    const invitation = this.data.invitations.lookup('tokenHash', tokenHash);
    return invitation && !isAtOrBefore(invitation.expiresAt, now) ? copyInvitation(invitation) : null;
  }

  async list(page: OrganizationPage): Promise<StoredOrganization[]> {
    const { after, limit } = page;
    return [...this.data.organizations.values()]
      .filter((organization) => after === undefined || organization.id > after)
      .sort((a, b) => byText(a.id, b.id))
      .slice(0, Math.max(0, limit))
      .map(copyOrganization);
  }

  async countMembers(organizationId: string): Promise<number> {
    return this.membersOf(organizationId).length;
  }

  async countMembersWithRole(organizationId: string, role: string): Promise<number> {
    return this.membersOf(organizationId).filter((membership) => membership.role === role).length;
  }

  async countPendingInvitations(organizationId: string, now: Date): Promise<number> {
    return this.pendingOf(organizationId, now).length;
  }

  async countForUser(userId: string): Promise<number> {
    return this.data.memberships.ownedBy(userId).length;
  }

  async lockUser(userId: string): Promise<boolean> {
    return this.data.users.has(userId);
  }

  async lock(id: string): Promise<StoredOrganization | null> {
    return this.find(id);
  }

  async create(organization: StoredOrganization): Promise<void> {
    const { data } = this;
    // As the database's primary key and foreign key would refuse them.
    if (data.organizations.has(organization.id)) throw new Error('MemoryUserStore: duplicate organization id');
    if (organization.createdBy !== null && !data.users.has(organization.createdBy)) {
      throw new Error('MemoryUserStore: no user with that id');
    }
    data.organizations.set(organization.id, copyOrganization(organization));
  }

  async rename(id: string, name: string, now: Date): Promise<boolean> {
    const organization = this.data.organizations.get(id);
    if (!organization) return false;
    this.data.organizations.set(id, { ...organization, name, updatedAt: new Date(now) });
    return true;
  }

  async delete(id: string): Promise<boolean> {
    const { data } = this;
    if (!data.organizations.has(id)) return false;
    for (const membership of this.membersOf(id)) {
      data.memberships.delete(membershipKey(membership.organizationId, membership.userId));
    }
    for (const [key, invitation] of [...data.invitations.entries()]) {
      if (invitation.organizationId === id) data.invitations.delete(key);
    }
    data.organizations.delete(id);
    return true;
  }

  async addMember(membership: StoredMembership): Promise<'added' | 'duplicate' | 'gone'> {
    const { data } = this;
    if (!data.users.has(membership.userId) || !data.organizations.has(membership.organizationId)) return 'gone';
    const key = membershipKey(membership.organizationId, membership.userId);
    if (data.memberships.has(key)) return 'duplicate';
    data.memberships.set(key, copyMembership(membership));
    return 'added';
  }

  async setRole(organizationId: string, userId: string, role: string, now: Date): Promise<boolean> {
    const key = membershipKey(organizationId, userId);
    const membership = this.data.memberships.get(key);
    if (!membership) return false;
    this.data.memberships.set(key, { ...membership, role, updatedAt: new Date(now) });
    return true;
  }

  async removeMember(organizationId: string, userId: string): Promise<boolean> {
    return this.data.memberships.delete(membershipKey(organizationId, userId));
  }

  async createInvitation(invitation: StoredInvitation): Promise<void> {
    const { data } = this;
    if (!data.organizations.has(invitation.organizationId))
      throw new Error('MemoryUserStore: no organization with that id');
    if (invitation.invitedBy !== null && !data.users.has(invitation.invitedBy)) {
      throw new Error('MemoryUserStore: no user with that id');
    }
    const replaced = data.invitations.lookup(
      'address',
      invitationAddressKey(invitation.organizationId, invitation.emailKey),
    );
    if (replaced) data.invitations.delete(replaced.id);
    if (data.invitations.has(invitation.id)) throw new Error('MemoryUserStore: duplicate invitation id');
    // The unique index `tokenHash` throws for a duplicate token hash.
    data.invitations.set(invitation.id, copyInvitation(invitation));
  }

  async consumeInvitation(tokenHash: string, now: Date): Promise<StoredInvitation | null> {
    const invitation = this.data.invitations.lookup('tokenHash', tokenHash);
    if (!invitation) return null;
    this.data.invitations.delete(invitation.id);
    return isAtOrBefore(invitation.expiresAt, now) ? null : copyInvitation(invitation);
  }

  async renewInvitation(
    organizationId: string,
    id: string,
    renewal: { tokenHash: string; createdAt: Date; expiresAt: Date },
    now: Date,
  ): Promise<StoredInvitation | null> {
    const invitation = this.data.invitations.get(id);
    if (!invitation || invitation.organizationId !== organizationId || isAtOrBefore(invitation.expiresAt, now)) {
      return null;
    }
    const renewed: StoredInvitation = {
      ...invitation,
      tokenHash: renewal.tokenHash,
      createdAt: new Date(renewal.createdAt),
      expiresAt: new Date(renewal.expiresAt),
    };
    this.data.invitations.set(id, renewed);
    return copyInvitation(renewed);
  }

  async deleteInvitation(organizationId: string, id: string): Promise<StoredInvitation | null> {
    const invitation = this.data.invitations.get(id);
    if (!invitation || invitation.organizationId !== organizationId) return null;
    this.data.invitations.delete(id);
    return copyInvitation(invitation);
  }

  private membersOf(organizationId: string): StoredMembership[] {
    return [...this.data.memberships.values()].filter((membership) => membership.organizationId === organizationId);
  }

  private pendingOf(organizationId: string, now: Date): StoredInvitation[] {
    return [...this.data.invitations.values()].filter(
      (invitation) => invitation.organizationId === organizationId && !isAtOrBefore(invitation.expiresAt, now),
    );
  }
}

function byTime(a: Date, b: Date): number {
  return a.getTime() - b.getTime();
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function copyOrganization(organization: StoredOrganization): StoredOrganization {
  return {
    id: organization.id,
    name: organization.name,
    createdBy: organization.createdBy ?? null,
    createdAt: new Date(organization.createdAt),
    updatedAt: new Date(organization.updatedAt),
  };
}

export function copyMembership(membership: StoredMembership): StoredMembership {
  return {
    organizationId: membership.organizationId,
    userId: membership.userId,
    role: membership.role,
    createdAt: new Date(membership.createdAt),
    updatedAt: new Date(membership.updatedAt),
  };
}

export function copyInvitation(invitation: StoredInvitation): StoredInvitation {
  return {
    id: invitation.id,
    organizationId: invitation.organizationId,
    email: invitation.email,
    emailKey: invitation.emailKey,
    role: invitation.role,
    tokenHash: invitation.tokenHash,
    invitedBy: invitation.invitedBy ?? null,
    createdAt: new Date(invitation.createdAt),
    expiresAt: new Date(invitation.expiresAt),
  };
}
