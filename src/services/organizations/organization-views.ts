/** An organization as a member sees it: with the member's role and what it may do there. */
export interface OrganizationView {
  id: string;
  name: string;
  createdAt: Date;
  /** The caller's role. */
  role: string;
  /** The caller's permissions there, sorted. */
  permissions: string[];
  /** How many members it has: only when one organization is read (`Organizations.get`). */
  memberCount?: number;
}

/** A member on the roster; `email` only for holders of `gatehouse.members.manage` (and administrators). */
export interface MemberView {
  userId: string;
  username: string;
  email?: string;
  role: string;
  joinedAt: Date;
}

/** A pending invitation as managers see it. Never its token. */
export interface InvitationView {
  id: string;
  email: string;
  role: string;
  /** The inviter's username; null once that account is gone. */
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** What the holder of an invitation's token sees: never the invited address, so a forwarded link tells nothing more. */
export interface InvitationPreview {
  organization: { id: string; name: string };
  role: string;
  invitedBy: string | null;
  expiresAt: Date;
}

/** What a guard found for `@CurrentOrganization()`: the organization of the route and the caller's role there. */
export interface CurrentOrganization {
  id: string;
  role: string;
  permissions: string[];
}

/** An organization in the administrators' list. */
export interface AdminOrganizationSummary {
  id: string;
  name: string;
  /** The creator's id; null once that account is gone. */
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  memberCount: number;
}

/** One organization as an administrator reads it: every member with its address, and the pending invitations. */
export interface AdminOrganizationView extends AdminOrganizationSummary {
  members: MemberView[];
  invitations: InvitationView[];
}

/** One of a user's organizations, as an administrator reads them. */
export interface AdminUserOrganization {
  id: string;
  name: string;
  role: string;
  joinedAt: Date;
}
