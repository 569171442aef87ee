import { type Action, createParamDecorator } from 'routing-controllers';
import { checkedPathValue, PATH_VALUES, type PathValueRule, recordPathValue } from '../http/path-values';

/**
 * A path parameter, checked against its kind's rule (`PATH_VALUES`) before the action runs: the one way the account
 * routes read their path, in place of routing-controllers' `@Param`, so no route hands a store an unchecked value.
 * It resolves after the route's guard, so a request without a session is still a 401 whatever its path holds. The
 * API document reads the same rule for the parameter's schema and the route's answers.
 */
export function PathValue(name: string, rule: PathValueRule): (object: object, method: string, index: number) => void {
  const read = createParamDecorator({
    required: false,
    // A rejection, not a throw: routing-controllers then answers it as any failed parameter, after the guard.
    value: (action) => {
      try {
        return checkedPathValue(rule, paramsOf(action)[name]);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  });
  return (object, method, index) => {
    recordPathValue(object.constructor, method, name, rule);
    read(object, method, index);
  };
}

/** `:id` of the admin routes: an account's id. */
export const UserIdParam = (name = 'id') => PathValue(name, PATH_VALUES.userId);
/** `:id` of `DELETE /sessions/:id`: a session's public id. */
export const SessionIdParam = (name = 'id') => PathValue(name, PATH_VALUES.sessionId);
/** `:id` of `/passkeys/:id`, `:passkeyId` of the admin routes: a passkey's public id (its credential row's id). */
export const PasskeyIdParam = (name = 'id') => PathValue(name, PATH_VALUES.passkeyId);
/** `:keyId` of `/api-keys/:keyId` and the admin routes: an API key's public id. */
export const ApiKeyIdParam = (name = 'keyId') => PathValue(name, PATH_VALUES.apiKeyId);
/** `:provider` of the `/oidc/:provider/...` routes: a configured provider's id. */
export const ProviderParam = (name = 'provider') => PathValue(name, PATH_VALUES.providerId);
/** `:id` of `DELETE /oidc/identities/:id`: a linked identity's public id (its credential row's id). */
export const IdentityIdParam = (name = 'id') => PathValue(name, PATH_VALUES.identityId);
/** `:orgId` of the organization routes: an organization's id; malformed is answered as unknown (404). */
export const OrganizationIdParam = (name = 'orgId') => PathValue(name, PATH_VALUES.organizationId);
/** `:userId` of `/organizations/:orgId/members/:userId`: a member, by user id. */
export const MemberIdParam = (name = 'userId') => PathValue(name, PATH_VALUES.memberId);
/** `:invitationId` of `/organizations/:orgId/invitations/:invitationId`. */
export const InvitationIdParam = (name = 'invitationId') => PathValue(name, PATH_VALUES.invitationId);
/** `:role`: a role name. */
export const RoleParam = (name = 'role') => PathValue(name, PATH_VALUES.role);
/** `:permission`: a permission name. */
export const PermissionParam = (name = 'permission') => PathValue(name, PATH_VALUES.permission);

/** The route's decoded path parameters: Koa keeps them on the context, Express on the request. */
export function paramsOf(action: Action): Record<string, unknown> {
  const context = action.context as { params?: Record<string, unknown> } | undefined;
  const request = action.request as { params?: Record<string, unknown> } | undefined;
  return context?.params ?? request?.params ?? {};
}
