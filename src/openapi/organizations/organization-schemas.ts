import { ref, type JsonObject } from '../schema-ref';

const ISO_INSTANT = { type: 'string', format: 'date-time' };
const ID = { type: 'string', format: 'uuid' };
const ROLE = { type: 'string', description: 'A role of the organization role template (`owner` holds every permission).' };
const NEXT_CURSOR = {
  type: ['string', 'null'],
  description: 'Pass as `cursor` for the next page; null on the last page.',
};

/**
 * The answers of organizations: an organization as a member sees it (with the caller's role and permissions), the
 * roster (addresses only for managers), invitations as managers see them and as their holder previews them (never a
 * token, and the preview never the address), and the administrators' views.
 */
export function organizationSchemas(): Record<string, JsonObject> {
  const summaryProperties = {
    id: ID,
    name: { type: 'string' },
    created_by: { type: ['string', 'null'], description: 'The creator’s account id; null once that account is gone.' },
    created_at: ISO_INSTANT,
    updated_at: ISO_INSTANT,
    member_count: { type: 'integer', minimum: 0 },
  };
  const summaryRequired = ['id', 'name', 'created_by', 'created_at', 'updated_at', 'member_count'];
  const summary = { type: 'object', required: summaryRequired, properties: summaryProperties };
  return {
    Organization: {
      type: 'object',
      required: ['id', 'name', 'created_at', 'role', 'permissions'],
      properties: {
        id: { ...ID, description: 'What the routes name it by: `/organizations/{id}`.' },
        name: { type: 'string' },
        created_at: ISO_INSTANT,
        role: { ...ROLE, description: 'The caller’s role there.' },
        permissions: {
          type: 'array',
          items: { type: 'string' },
          description: 'What the caller’s role allows there, from the role template, sorted.',
        },
        member_count: { type: 'integer', minimum: 0, description: 'How many members it has (when read by id).' },
      },
    },
    OrganizationList: {
      type: 'object',
      required: ['organizations'],
      properties: {
        organizations: {
          type: 'array',
          description: 'The caller’s organizations, oldest membership first.',
          items: ref('Organization'),
        },
      },
    },
    Member: {
      type: 'object',
      required: ['user_id', 'username', 'role', 'joined_at'],
      properties: {
        user_id: { ...ID, description: 'The account’s id: what `/organizations/{orgId}/members/{userId}` names.' },
        username: { type: 'string' },
        email: {
          type: 'string',
          description: 'Only for holders of `gatehouse.members.manage` (and administrators).',
        },
        role: ROLE,
        joined_at: ISO_INSTANT,
      },
    },
    MemberList: {
      type: 'object',
      required: ['members'],
      properties: { members: { type: 'array', description: 'Oldest member first.', items: ref('Member') } },
    },
    Invitation: {
      type: 'object',
      required: ['id', 'email', 'role', 'invited_by', 'created_at', 'expires_at'],
      properties: {
        id: { ...ID, description: 'What `/organizations/{orgId}/invitations/{invitationId}` names.' },
        email: { type: 'string', description: 'The invited address.' },
        role: ROLE,
        invited_by: { type: ['string', 'null'], description: 'The inviter’s username; null once that account is gone.' },
        created_at: ISO_INSTANT,
        expires_at: ISO_INSTANT,
      },
    },
    InvitationList: {
      type: 'object',
      required: ['invitations'],
      properties: {
        invitations: { type: 'array', description: 'Pending ones, oldest first.', items: ref('Invitation') },
      },
    },
    InvitationPreview: {
      type: 'object',
      required: ['organization', 'role', 'invited_by', 'expires_at'],
      properties: {
        organization: {
          type: 'object',
          required: ['id', 'name'],
          properties: { id: ID, name: { type: 'string' } },
        },
        role: { ...ROLE, description: 'The role accepting gives.' },
        invited_by: { type: ['string', 'null'], description: 'The inviter’s username; null once that account is gone.' },
        expires_at: ISO_INSTANT,
      },
    },
    AdminOrganizationSummary: summary,
    AdminOrganizationPage: {
      type: 'object',
      required: ['organizations', 'next_cursor'],
      properties: {
        organizations: { type: 'array', items: ref('AdminOrganizationSummary') },
        next_cursor: NEXT_CURSOR,
      },
    },
    AdminOrganization: {
      type: 'object',
      required: [...summaryRequired, 'members', 'invitations'],
      properties: {
        ...summaryProperties,
        members: { type: 'array', description: 'With their addresses.', items: ref('Member') },
        invitations: { type: 'array', description: 'The pending ones.', items: ref('Invitation') },
      },
    },
    UserOrganizationList: {
      type: 'object',
      required: ['organizations'],
      properties: {
        organizations: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'name', 'role', 'joined_at'],
            properties: { id: ID, name: { type: 'string' }, role: ROLE, joined_at: ISO_INSTANT },
          },
        },
      },
    },
  };
}
