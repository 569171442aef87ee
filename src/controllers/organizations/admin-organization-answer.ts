import type { Page } from '../../services/admin-views';
import type {
  AdminOrganizationSummary,
  AdminOrganizationView,
  AdminUserOrganization,
} from '../../services/organizations/organization-views';
import { invitationAnswer, memberAnswer, type InvitationAnswer, type MemberAnswer } from './organization-answer';

// What the administrators' routes answer: snake_case, instants as ISO strings; members with their addresses,
// invitations without their tokens.

const iso = (value: Date | string): string => (value instanceof Date ? value.toISOString() : value);

export interface AdminOrganizationSummaryAnswer {
  id: string;
  name: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  member_count: number;
}

export function adminOrganizationSummaryAnswer(view: AdminOrganizationSummary): AdminOrganizationSummaryAnswer {
  return {
    id: view.id,
    name: view.name,
    created_by: view.createdBy,
    created_at: iso(view.createdAt),
    updated_at: iso(view.updatedAt),
    member_count: view.memberCount,
  };
}

export function adminOrganizationPageAnswer(page: Page<AdminOrganizationSummary>): {
  organizations: AdminOrganizationSummaryAnswer[];
  next_cursor: string | null;
} {
  return { organizations: page.items.map(adminOrganizationSummaryAnswer), next_cursor: page.nextCursor };
}

export function adminOrganizationAnswer(view: AdminOrganizationView): AdminOrganizationSummaryAnswer & {
  members: MemberAnswer[];
  invitations: InvitationAnswer[];
} {
  return {
    ...adminOrganizationSummaryAnswer(view),
    members: view.members.map(memberAnswer),
    invitations: view.invitations.map(invitationAnswer),
  };
}

export function userOrganizationListAnswer(views: readonly AdminUserOrganization[]): {
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
