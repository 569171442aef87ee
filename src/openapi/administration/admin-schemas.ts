import { ADMIN_ROLE } from '../../services/admin-permissions';
import { AUDIT_EVENT_TYPES } from '../../services/audit-event';
import { ACCESS_NAME_MAX_LENGTH, ACCESS_NAME_PATTERN } from '../../services/identity';
import { ref, type JsonObject } from '../schema-ref';

const ISO_INSTANT = { type: 'string', format: 'date-time' };
const NEXT_CURSOR = {
  type: ['string', 'null'],
  description: 'Pass as `cursor` for the next page (with the same filters); null on the last page.',
};
/** A role or permission name, as the core's one rule (`checkRoleName`, `checkPermissionName`) takes them. */
export const ACCESS_NAME_SCHEMA = {
  type: 'string' as const,
  pattern: ACCESS_NAME_PATTERN.source,
  minLength: 1,
  maxLength: ACCESS_NAME_MAX_LENGTH,
};
const NAMES = { type: 'array', items: ACCESS_NAME_SCHEMA };

/** The answers of the admin routes (`http/admin-answer.ts` writes them). */
export function adminSchemas(): Record<string, JsonObject> {
  const summary = userSummaryProperties();
  return {
    UserSummary: { type: 'object', required: Object.keys(summary), properties: summary },
    UserPage: {
      type: 'object',
      required: ['users', 'next_cursor'],
      properties: {
        users: {
          type: 'array',
          description: 'Newest account first; a page never shifts when accounts are registered meanwhile.',
          items: ref('UserSummary'),
        },
        next_cursor: NEXT_CURSOR,
      },
    },
    AdminUser: adminUserSchema(summary),
    SessionsEnded: {
      type: 'object',
      required: ['detail', 'ended'],
      properties: {
        detail: { type: 'string', description: 'A short confirmation in words.' },
        ended: { type: 'integer', minimum: 0, description: 'How many sessions ended.' },
      },
    },
    UserRoles: {
      type: 'object',
      required: ['roles'],
      properties: { roles: { ...NAMES, description: 'The account’s roles after the change, sorted.' } },
    },
    Role: {
      type: 'object',
      required: ['name', 'permissions'],
      properties: { name: ACCESS_NAME_SCHEMA, permissions: { ...NAMES, description: 'Sorted.' } },
    },
    RoleList: {
      type: 'object',
      required: ['roles'],
      properties: { roles: { type: 'array', items: ref('Role') } },
    },
    PermissionList: {
      type: 'object',
      required: ['permissions'],
      properties: { permissions: { ...NAMES, description: 'Every permission, sorted.' } },
    },
    NameCreated: {
      type: 'object',
      required: ['name', 'created'],
      properties: {
        name: ACCESS_NAME_SCHEMA,
        created: { type: 'boolean', description: 'True when it was created now (201), false when it existed (200).' },
      },
    },
    AuditEvent: auditEventSchema(),
    AuditEventPage: {
      type: 'object',
      required: ['events', 'next_cursor'],
      properties: {
        events: { type: 'array', description: 'Newest first.', items: ref('AuditEvent') },
        next_cursor: NEXT_CURSOR,
      },
    },
  };
}

function userSummaryProperties(): Record<string, JsonObject> {
  return {
    id: { type: 'string', description: 'The account’s id, as the admin routes name it.' },
    username: { type: 'string' },
    email: { type: 'string', description: 'The whole address: finding an account by its address is the point.' },
    verified: { type: 'boolean', description: 'True once the email address is verified.' },
    disabled: { type: 'boolean', description: 'True while an administrator has the account disabled.' },
    created_at: ISO_INSTANT,
    updated_at: ISO_INSTANT,
  };
}

function adminUserSchema(summary: Record<string, JsonObject>): JsonObject {
  const properties: Record<string, JsonObject> = {
    ...summary,
    disabled_at: { type: ['string', 'null'], format: 'date-time', description: 'When it was disabled; null if not.' },
    last_sign_in_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When a session was last made for it; null if never.',
    },
    roles: { ...NAMES, description: 'Sorted.' },
    permissions: { ...NAMES, description: 'Every permission its roles give, sorted.' },
    second_factor: { type: 'boolean', description: 'Two-factor sign-in is on.' },
    session_count: { type: 'integer', minimum: 0, description: 'Its live sessions now.' },
  };
  return {
    type: 'object',
    description: `One account as an administrator reads it (\`${ADMIN_ROLE}\` holders and whoever has the permission).`,
    required: Object.keys(properties),
    properties,
  };
}

function auditEventSchema(): JsonObject {
  return {
    type: 'object',
    description:
      'One security event, written in the transaction of the change it records. Never a token, password, hash or ' +
      'email address: who and what are account ids, role and permission names, and counts.',
    required: ['id', 'at', 'type', 'outcome', 'actor', 'subject_id', 'ip', 'request_id', 'details'],
    properties: {
      id: { type: 'string' },
      at: ISO_INSTANT,
      type: { type: 'string', enum: [...AUDIT_EVENT_TYPES] },
      outcome: { type: 'string', description: 'How it ended, e.g. `success`, `wrong_password`, `refused`.' },
      actor: {
        type: 'object',
        required: ['type', 'id'],
        properties: {
          type: {
            enum: ['user', 'admin', 'operator', 'anonymous'],
            description:
              'The person on their own account, an administrator, the operator at the CLI, or nobody signed in.',
          },
          id: { type: ['string', 'null'], description: 'The acting account; null for `operator` and `anonymous`.' },
        },
      },
      subject_id: { type: ['string', 'null'], description: 'The account it is about; null when none is known.' },
      ip: { type: ['string', 'null'], description: 'The client address of the request that caused it.' },
      request_id: { type: ['string', 'null'], description: 'The `X-Request-Id` of that request.' },
      details: {
        type: ['object', 'null'],
        description: 'Names and counts only (a role, a permission, how many sessions ended).',
        additionalProperties: { type: ['string', 'number', 'boolean'] },
      },
    },
  };
}
