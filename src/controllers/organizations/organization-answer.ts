import type {
  InvitationPreview,
  InvitationView,
  MemberView,
  OrganizationView,
} from '../../services/organizations/organization-views';

// The organizations' answers in the API: snake_case, instants as ISO strings; never an invitation's token.

export interface OrganizationAnswer {
  id: string;
  name: string;
  created_at: string;
  role: string;
  permissions: string[];
  member_count?: number;
}

const iso = (value: Date | string): string => (value instanceof Date ? value.toISOString() : value);

export function organizationAnswer(view: OrganizationView & { memberCount?: number }): OrganizationAnswer {
  return {
    id: view.id,
    name: view.name,
    created_at: iso(view.createdAt),
    role: view.role,
    permissions: [...view.permissions],
    ...(view.memberCount === undefined ? {} : { member_count: view.memberCount }),
  };
}

export function organizationListAnswer(views: readonly OrganizationView[]): { organizations: OrganizationAnswer[] } {
  return { organizations: views.map(organizationAnswer) };
}

export interface MemberAnswer {
  user_id: string;
  username: string;
  email?: string;
  role: string;
  joined_at: string;
}

export function memberAnswer(view: MemberView): MemberAnswer {
  return {
    user_id: view.userId,
    username: view.username,
    // Only for holders of `gatehouse.members.manage` (and administrators): the core leaves it out otherwise.
    ...(view.email === undefined ? {} : { email: view.email }),
    role: view.role,
    joined_at: iso(view.joinedAt),
  };
}

export function memberListAnswer(views: readonly MemberView[]): { members: MemberAnswer[] } {
  return { members: views.map(memberAnswer) };
}

export interface InvitationAnswer {
  id: string;
  email: string;
  role: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

export function invitationAnswer(view: InvitationView): InvitationAnswer {
  return {
    id: view.id,
    email: view.email,
    role: view.role,
    invited_by: view.invitedBy,
    created_at: iso(view.createdAt),
    expires_at: iso(view.expiresAt),
  };
}

export function invitationListAnswer(views: readonly InvitationView[]): { invitations: InvitationAnswer[] } {
  return { invitations: views.map(invitationAnswer) };
}

export function invitationPreviewAnswer(preview: InvitationPreview) {
  return {
    organization: { id: preview.organization.id, name: preview.organization.name },
    role: preview.role,
    invited_by: preview.invitedBy,
    expires_at: iso(preview.expiresAt),
  };
}
