import type { Page } from '../../services/admin-views';
import type { InvitationView, MemberView } from '../../services/organizations/organization-views';
import { invitationAnswer, memberAnswer, type InvitationAnswer, type MemberAnswer } from './organization-answer';

// What the administrators' routes answer: snake_case, instants as ISO strings; members with their addresses,
// invitations without their tokens.

const iso = (value: Date | string): string => (value instanceof Date ? value.toISOString() : value);

/** An organization as the administrators' list shows it. */
export interface AdminOrganizationSummaryView {
  id: string;
  name: string;
  createdAt: Date;
  memberCount: number;
}

export interface AdminOrganizationSummaryAnswer {
  id: string;
  name: string;
  created_at: string;
  member_count: number;
}

export function adminOrganizationSummaryAnswer(view: AdminOrganizationSummaryView): AdminOrganizationSummaryAnswer {
  return { id: view.id, name: view.name, created_at: iso(view.createdAt), member_count: view.memberCount };
}

export function adminOrganizationPageAnswer(page: Page<AdminOrganizationSummaryView>): {
  organizations: AdminOrganizationSummaryAnswer[];
  next_cursor: string | null;
} {
  return { organizations: page.items.map(adminOrganizationSummaryAnswer), next_cursor: page.nextCursor };
}

/** One organization as an administrator reads it. */
export interface AdminOrganizationView {
  organization: AdminOrganizationSummaryView;
  members: MemberView[];
  invitations: InvitationView[];
}

export function adminOrganizationAnswer(view: AdminOrganizationView): {
  organization: AdminOrganizationSummaryAnswer;
  members: MemberAnswer[];
  invitations: InvitationAnswer[];
} {
  return {
    organization: adminOrganizationSummaryAnswer(view.organization),
    members: view.members.map(memberAnswer),
    invitations: view.invitations.map(invitationAnswer),
  };
}

/** One of a user's organizations, with the user's role there. */
export interface UserOrganizationView {
  id: string;
  name: string;
  role: string;
  joinedAt: Date;
}

export function userOrganizationListAnswer(views: readonly UserOrganizationView[]): {
  organizations: { id: string; name: string; role: string; joined_at: string }[];
} {
  return {
    organizations: views.map((view) => ({
      id: view.id,
      name: view.name,
      role: view.role,
      joined_at: iso(view.joinedAt),
    })),
  };
}
