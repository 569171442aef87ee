import { type Action, getMetadataArgsStorage } from 'routing-controllers';
import { resolveAccountService } from '../di/resolve';
import { ConfigurationError } from '../errors/configuration-error';
import type { OrganizationSettings } from '../services/organizations/organization-options';
import { isOrganizationRequirement, type OrganizationRequirement, parseRequirement } from './access-requirements';
import { paramsOf } from './path-params';

/** Where the organization guards find the route's organization (`accountGuards(options)`). */
export interface OrganizationRouting {
  /** The route parameter holding the organization's id. Default `orgId` (`/orgs/:orgId/projects`). */
  organizationParam?: string;
  /**
   * Where the id is when it is not a route parameter of that name: the id, or undefined for none (then 404
   * `organization_not_found`). Never take it from the session or the body: a host resolves it from the request's path.
   * With a resolver the routes are not checked for the parameter at start.
   */
  organizationResolver?: (action: Action) => string | undefined;
}

/** The id the request's route names, unchecked: the resolver's, or the route parameter's. */
export function organizationIdOf(action: Action, routing: OrganizationRouting): unknown {
  if (routing.organizationResolver) return routing.organizationResolver(action);
  return paramsOf(action)[routing.organizationParam ?? DEFAULT_ORGANIZATION_PARAM];
}

export const DEFAULT_ORGANIZATION_PARAM = 'orgId';

/** A controller class as routing-controllers' metadata names it. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type ControllerClass = Function;

interface GuardedAction {
  controller: ControllerClass;
  method: string;
  /** The action's path below the routing prefix: the controller's route and the action's. */
  route: string | RegExp;
  requirements: unknown[];
}

/**
 * The boot-time check of every `@Authorized` naming an organization's requirement among `controllers` (default:
 * every controller in routing-controllers' metadata): organizations must be on, each role and permission must be the
 * template's, and (without a resolver) the route must have the organization's parameter. The first fault throws a
 * ConfigurationError naming the controller's method. Reads the template only when some route needs it.
 */
export function checkOrganizationRoutes(routing: OrganizationRouting, controllers?: readonly ControllerClass[]): void {
  let settings: OrganizationSettings | null | undefined;
  const param = routing.organizationParam ?? DEFAULT_ORGANIZATION_PARAM;
  if (typeof param !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(param)) {
    throw new ConfigurationError('Gatehouse: accountGuards({ organizationParam }) must be a route parameter name');
  }
  if (routing.organizationResolver !== undefined && typeof routing.organizationResolver !== 'function') {
    throw new ConfigurationError('Gatehouse: accountGuards({ organizationResolver }) must be a function');
  }
  for (const action of guardedActions(controllers)) {
    const requirements = organizationRequirements(action.requirements);
    if (requirements.length === 0) continue;
    const where = `${action.controller.name}.${action.method}`;
    settings ??= resolveAccountService().organizations.settings;
    if (!settings) {
      throw new ConfigurationError(
        `Gatehouse: ${where} has an organization guard (@Authorized('org...')), but organizations are off ` +
          '(ACCOUNT_OPTIONS.organizations is false)',
      );
    }
    for (const requirement of requirements) {
      if (requirement.kind === 'org-role' && !settings.template.roles.has(requirement.name)) {
        throw new ConfigurationError(
          `Gatehouse: ${where}: @Authorized('org:role:${requirement.name}') names no role of the organizations' ` +
            `template (${[...settings.template.roles.keys()].join(', ')})`,
        );
      }
      if (requirement.kind === 'org-permission' && !settings.template.permissions.has(requirement.name)) {
        throw new ConfigurationError(
          `Gatehouse: ${where}: @Authorized('org:perm:${requirement.name}') names no permission of the ` +
            "organizations' template (ACCOUNT_OPTIONS.organizations.roles)",
        );
      }
    }
    if (!routing.organizationResolver && !hasParam(action.route, param)) {
      throw new ConfigurationError(
        `Gatehouse: ${where} has an organization guard, but its route (${String(action.route)}) has no :${param} ` +
          'parameter (name it with accountGuards({ organizationParam }), or give an organizationResolver)',
      );
    }
  }
}

/** The organization requirements among an action's, in order; names that do not parse fail at request time. */
function organizationRequirements(requirements: unknown[]): OrganizationRequirement[] {
  const found: OrganizationRequirement[] = [];
  for (const requirement of requirements) {
    if (typeof requirement !== 'string') continue;
    const parsed = parseRequirement(requirement);
    if (isOrganizationRequirement(parsed)) found.push(parsed);
  }
  return found;
}

function hasParam(route: string | RegExp, param: string): boolean {
  if (typeof route !== 'string') return false;
  return new RegExp(`:${param}(?![A-Za-z0-9_])`).test(route);
}

/**
 * Each action of the controllers with its requirements, as routing-controllers builds them (`MetadataBuilder`): the
 * controller's `@Authorized` names then the action's, the actions of the class and of the classes it extends, and
 * the controller's route before the action's.
 */
function guardedActions(controllers?: readonly ControllerClass[]): GuardedAction[] {
  const storage = getMetadataArgsStorage();
  const wanted = controllers && new Set(controllers);
  const found: GuardedAction[] = [];
  for (const controller of storage.controllers) {
    if (wanted && !wanted.has(controller.target)) continue;
    const target = controller.target;
    const authorized = storage.responseHandlers.filter((handler) => handler.type === 'authorized');
    const onController = authorized.find((handler) => handler.target === target && !handler.method);
    const seen = new Set<string>();
    for (let owner: unknown = target; owner; owner = Object.getPrototypeOf(owner)) {
      for (const action of storage.filterActionsWithTarget(owner as ControllerClass)) {
        if (seen.has(action.method)) continue;
        seen.add(action.method);
        const onAction = authorized.find((handler) => handler.target === target && handler.method === action.method);
        const route = action.route instanceof RegExp ? action.route : `${controller.route ?? ''}${action.route ?? ''}`;
        found.push({
          controller: target,
          method: action.method,
          route,
          requirements: [...toList(onController?.value), ...toList(onAction?.value)],
        });
      }
    }
  }
  return found;
}

function toList(value: unknown): unknown[] {
  return value === undefined || value === null ? [] : ([] as unknown[]).concat(value);
}
