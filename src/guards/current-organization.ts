import type { IncomingMessage } from 'node:http';
import { type Action, createParamDecorator } from 'routing-controllers';
import { resolveAccountService } from '../di/resolve';
import { AccountHttpError } from '../http/http-errors';
import { apiKeyNotAllowed } from '../http/api-key-refusals';
import { nodeMessagesOf } from '../http/node-message';
import { checkedPathValue, PATH_VALUES } from '../http/path-values';
import { isRecordId as isOrganizationId } from '../services/record-id';
import { authError, authenticateRequest } from '../http/request-auth';
import { organizationNotFound } from '../services/organizations/organization-errors';
import { sortedPermissionsOf } from '../services/organizations/organization-options';
import type { MembershipQuery } from '../services/types';
import { organizationIdOf, type OrganizationRouting } from './organization-routes';

/** The organization a request's route names, as the caller is a member of it (`@CurrentOrganization()`). */
export interface CurrentOrganization {
  /** The organization's id, from the route. */
  id: string;
  /** The caller's role there, read with this request's session (never cached). */
  role: string;
  /** The role's permissions in the template (`owner`: all of them), sorted. */
  permissions: readonly string[];
}

// On Node's request, which both drivers share, under a symbol no other module holds; gone with the request.
const RECORDED = Symbol('gatehouse.organization');

type WithOrganization = IncomingMessage & { [RECORDED]?: CurrentOrganization };

/** Records what an organization guard found, for `@CurrentOrganization()` of the same request. */
export function recordOrganization(req: IncomingMessage, organization: CurrentOrganization): void {
  (req as WithOrganization)[RECORDED] = organization;
}

/** What an organization guard of this request found, if one ran and the caller is a member. */
export function recordedOrganization(req: IncomingMessage): CurrentOrganization | undefined {
  return (req as WithOrganization)[RECORDED];
}

/** The caller's membership, from the role the guard read: null when it is no membership. */
export function currentOrganization(organizationId: string, role: string | null): CurrentOrganization | null {
  const settings = resolveAccountService().organizations.settings;
  if (!settings || role === null) return null;
  return { id: organizationId, role, permissions: sortedPermissionsOf(settings.template, role) };
}

/**
 * Injects the organization the route names, `{ id, role, permissions }`, as the caller is a member of it: what the
 * route's organization guard (`@Authorized('org')`, `'org:role:x'`, `'org:perm:x'`) read with the session. On a route
 * without one it authenticates the request and reads the membership itself: no session is a 401; an unknown or
 * malformed id, or one of an organization the caller is not a member of, is 404 `organization_not_found`.
 *
 * `routing` says where the id is when no guard ran (default: the `orgId` route parameter); give it the options you
 * gave `accountGuards()` if they move it.
 *
 * @example
 * @Authorized('org:perm:projects.write')
 * @Post('/orgs/:orgId/projects')
 * create(@CurrentOrganization() organization: CurrentOrganization) { ... }
 */
export function CurrentOrganization(
  routing: OrganizationRouting = {},
): (object: object, method: string, index: number) => void {
  return createParamDecorator({
    required: false,
    // A rejection, not a throw: routing-controllers then answers it as any failed parameter, after the guard.
    value: (action) => {
      try {
        const recorded = recordedOrganization(nodeMessagesOf(action).req);
        return recorded ?? readOrganization(action, routing);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  });
}

async function readOrganization(action: Action, routing: OrganizationRouting): Promise<CurrentOrganization> {
  const { req, res } = nodeMessagesOf(action);
  const organizationId = organizationIdOf(action, routing);
  const query: MembershipQuery | undefined = isOrganizationId(organizationId)
    ? { kind: 'membership', organizationId }
    : undefined;
  const outcome = await authenticateRequest(req, query);
  if (outcome.kind !== 'authenticated') {
    const error = authError(outcome)!;
    if (error.challenge) res.setHeader('WWW-Authenticate', 'Bearer');
    throw error;
  }
  // A key is global, never an organization's member (as `@Authorized('org')` refuses it).
  if (outcome.credential.kind === 'api_key') throw new AccountHttpError(apiKeyNotAllowed());
  if (!query) checkedPathValue(PATH_VALUES.organizationId, organizationId);
  if (!query || !resolveAccountService().organizations.settings) throw new AccountHttpError(organizationNotFound());
  // The lookup answered the membership when it was this request's first (and asked for this organization).
  const role =
    outcome.membership?.query.organizationId === query.organizationId
      ? outcome.membership.role
      : await resolveAccountService().organizationRole(query.organizationId, outcome.user.id);
  const organization = currentOrganization(query.organizationId, role);
  if (!organization) throw new AccountHttpError(organizationNotFound());
  recordOrganization(req, organization);
  return organization;
}
