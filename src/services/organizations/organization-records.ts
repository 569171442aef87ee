/** An organization: its opaque id (a uuid) and its name. */
export interface StoredOrganization {
  id: string;
  /** 1 to 100 characters, trimmed, NFC; not unique. */
  name: string;
  /** Who created it (null once that account is gone, or when an administrator's tool made it). */
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A user's membership: one role of the template (`OrganizationTemplate`) per (organization, user). */
export interface StoredMembership {
  organizationId: string;
  userId: string;
  role: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A membership with what the roster shows of its user. */
export interface MemberRecord extends StoredMembership {
  username: string;
  email: string;
}

/** A user's membership with its organization. */
export interface UserOrganization {
  organization: StoredOrganization;
  role: string;
  joinedAt: Date;
}

/**
 * A pending invitation, bound to one canonical address (`emailKey`, as `emailKeyOf` makes it) and one organization.
 * Its token is kept only as a keyed hash; accepting, declining, cancelling or replacing it deletes the row, so a
 * stored invitation is pending until `expiresAt`.
 */
export interface StoredInvitation {
  /** A uuid: how managers name it. */
  id: string;
  organizationId: string;
  /** The address as the inviter typed it (canonical form), shown to managers only. */
  email: string;
  emailKey: string;
  role: string;
  /** `TokenHasher` of the 32-byte token; unique. */
  tokenHash: string;
  /** The inviting user; null once that account is gone (or an operator invited). */
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** One page of organizations for the administrators, by id. */
export interface OrganizationPage {
  /** Exclusive: organizations whose id sorts after it. */
  after?: string;
  limit: number;
}

/** Organizations, memberships and invitations, read outside a transaction or in one. */
export interface OrganizationReads {
  find(id: string): Promise<StoredOrganization | null>;
  /** The user's membership of the organization; null when none (or either is unknown). */
  membership(organizationId: string, userId: string): Promise<StoredMembership | null>;
  /** The user's organizations, oldest membership first. */
  listForUser(userId: string): Promise<UserOrganization[]>;
  /** The organization's members, oldest first, each with its user's username and address. */
  listMembers(organizationId: string): Promise<MemberRecord[]>;
  /** Its invitations pending at `now` (expired ones are not listed), oldest first. */
  listInvitations(organizationId: string, now: Date): Promise<StoredInvitation[]>;
  /** Its invitation `id` when pending at `now`; null otherwise (another organization's id too). */
  findInvitation(organizationId: string, id: string, now: Date): Promise<StoredInvitation | null>;
  /** The invitation of this token hash when pending at `now`; null otherwise. */
  findInvitationByToken(tokenHash: string, now: Date): Promise<StoredInvitation | null>;
  /** Every organization, by id, a page at a time. */
  list(page: OrganizationPage): Promise<StoredOrganization[]>;
  countMembers(organizationId: string): Promise<number>;
  /** Members holding `role` (the last-owner rule counts owners). */
  countMembersWithRole(organizationId: string, role: string): Promise<number>;
  countPendingInvitations(organizationId: string, now: Date): Promise<number>;
  /** The user's memberships. */
  countForUser(userId: string): Promise<number>;
}

/**
 * Organizations inside a transaction (`UserStoreTransaction.organizations`).
 *
 * Decisions a race could change are the core's, made under locks the store gives: `lockUser` (the user's row lock,
 * the one every write of a user's rows takes first) and then `lock` (the organization's row). Every change of an
 * organization's memberships or invitations is made after `lock` in the same transaction, so counts and roles read
 * after it hold until commit (PostgreSQL: `FOR UPDATE` on the organization's row; SQLite: one writer at a time;
 * memory: transactions one after another). The lock order is user, then organization; never two organizations.
 */
export interface OrganizationRecords extends OrganizationReads {
  /** Takes the user's lock; false when the user is gone. */
  lockUser(userId: string): Promise<boolean>;
  /** Takes the organization's lock and reads it; null when it is gone (and nothing is locked). */
  lock(id: string): Promise<StoredOrganization | null>;
  /** Stores a new organization (its first member is `addMember`'s, in the same transaction). */
  create(organization: StoredOrganization): Promise<void>;
  /** False when gone. */
  rename(id: string, name: string, now: Date): Promise<boolean>;
  /** Deletes it with its memberships and invitations; false when gone. */
  delete(id: string): Promise<boolean>;
  /** `duplicate` when the user is a member already, `gone` when the user or organization no longer exists. */
  addMember(membership: StoredMembership): Promise<'added' | 'duplicate' | 'gone'>;
  /** False when not a member. */
  setRole(organizationId: string, userId: string, role: string, now: Date): Promise<boolean>;
  /** False when not a member. */
  removeMember(organizationId: string, userId: string): Promise<boolean>;
  /**
   * Stores an invitation, deleting any other of the same organization and address first (expired or not): a
   * re-invitation replaces the old one, whose token stops working.
   */
  createInvitation(invitation: StoredInvitation): Promise<void>;
  /**
   * Deletes the invitation of this token hash and returns it, when it was pending at `now`: of concurrent callers
   * exactly one gets it. Null when unknown, used or expired (an expired one is deleted too).
   */
  consumeInvitation(tokenHash: string, now: Date): Promise<StoredInvitation | null>;
  /** Gives the pending invitation a new token and expiry (a resend); null when it is not pending (or not this one's). */
  renewInvitation(
    organizationId: string,
    id: string,
    renewal: { tokenHash: string; createdAt: Date; expiresAt: Date },
    now: Date,
  ): Promise<StoredInvitation | null>;
  /** Deletes the organization's invitation `id` (cancelled); the deleted row, or null when it was not there. */
  deleteInvitation(organizationId: string, id: string): Promise<StoredInvitation | null>;
}
