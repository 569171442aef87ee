import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Action } from 'routing-controllers';
import { resolveAccountService } from '../di/resolve';
import { requireAccess } from '../services/administration/access-control';
import { AccountError, isAccountError } from '../errors/account-error';
import { AccountHttpError } from '../http/http-errors';
import type { AccessQuery, AccountUser, SessionQuery } from '../services/types';
import { type Awaitable, isPromiseLike, whenReady } from '../services/awaitable';
import {
  type AccessRequirement,
  isOrganizationRequirement,
  type OrganizationRequirement,
  parseRequirement,
} from './access-requirements';
import { authError, type AuthOutcome, requestAuthentication } from '../http/request-auth';
import { nodeMessagesOf } from '../http/node-message';
import { checkedPathValue, isOrganizationId, PATH_VALUES } from '../http/path-values';
import { currentOrganization, type CurrentOrganization, recordOrganization } from './current-organization';
import { organizationNotFound, organizationPermissionDenied } from '../services/organizations/organization-errors';
import { checkOrganizationRoutes, organizationIdOf, type OrganizationRouting } from './organization-routes';

/** The two checkers routing-controllers needs; spread them into `useKoaServer` or `useExpressServer` options. */
export interface AccountGuards {
  /** True, or a promise of it, when every requirement holds; else it throws or rejects with the HTTP error. */
  authorizationChecker: (action: Action, requirements: unknown[]) => Awaitable<boolean>;
  /** The user, or a promise of it; undefined without a valid session. */
  currentUserChecker: (action: Action) => Awaitable<AccountUser | undefined>;
}

/** `accountGuards(options)`: where the organization guards find the route's organization, and what to check at start. */
export interface AccountGuardOptions extends OrganizationRouting {
  /**
   * The controllers whose organization guards are checked now (default: every controller routing-controllers knows
   * of). Pass the list you give `useKoaServer` / `useExpressServer`.
   */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  controllers?: readonly Function[];
}

/**
 * Guards for routing-controllers actions, backed by the account core:
 *
 * - `@Authorized()`: a valid bearer session is required.
 * - `@Authorized('role:editor')`: the user must hold the role (`'editor'` alone means the same).
 * - `@Authorized('perm:posts.write')`: the user must hold the permission through one of their roles.
 * - `@Authorized('mfa')`: the session must have been made with a second factor (a code after the password, or the
 *   enrolment that switched it on); a password-only session is 403 `second_factor_required`.
 * - `@Authorized(['role:editor', 'perm:posts.publish'])`: ALL of the names must hold; they are checked in order
 *   and the first failure answers.
 * - `@Authorized('org')`: the user must be a member of the organization the route names (its `:orgId`
 *   parameter, or `organizationParam` / `organizationResolver`); `'org:role:admin'`: with exactly that role of the
 *   template; `'org:perm:projects.write'`: with a role whose template permissions include it. The id never comes
 *   from the session or the body. `@CurrentOrganization()` gives `{ id, role, permissions }`.
 * - `@CurrentUser()` gives the `AccountUser` (id, username, email, verified, created and updated: never the password
 *   hash or the normalised keys). routing-controllers makes it optional unless it says
 *   `{ required: true }` or the action is `@Authorized()`: then no valid session is a 401. Optional
 *   (`@CurrentUser()` alone, `@CurrentUser({ required: false })`) gives `undefined` instead of failing when the
 *   header is absent or the token is rejected.
 *
 * Answers: no bearer header 401 `{"detail": "Not authenticated"}`; rejected token 401 `invalid_session_token`
 * (both with `WWW-Authenticate: Bearer`); a session without a second factor on an `'mfa'` route 403
 * `second_factor_required`; role or permission not held 403 `permission_denied`; a role or permission
 * that does not exist 404 `unknown_role` / `unknown_permission`. On an organization's route, after authentication:
 * an unknown or malformed id, or an organization the user is not a member of, 404 `organization_not_found` (one
 * answer for all); a member without the role or permission 403 `permission_denied`. Each request authenticates once,
 * and roles and memberships are read from the store on every request (with the session, in one read, for the first
 * requirement), so a demotion or a removal applies to the user's next request.
 *
 * Called at start: every `@Authorized` naming an organization's requirement among `options.controllers` (default:
 * every controller routing-controllers knows of) is checked against the organizations' template, and must have the
 * organization's parameter in its route; else this throws a ConfigurationError naming the controller's method.
 *
 * The same guards work on both of routing-controllers' drivers (Koa and Express).
 *
 * @example
 * useKoaServer(app, { controllers: [PostsController], ...accountGuards() });
 * useExpressServer(app, { controllers: [PostsController], ...accountGuards() });
 */
export function accountGuards(options: AccountGuardOptions = {}): AccountGuards {
  const routing: OrganizationRouting = {
    organizationParam: options.organizationParam,
    organizationResolver: options.organizationResolver,
  };
  checkOrganizationRoutes(routing, options.controllers);
  return {
    // Neither checker is async: on SQLite a request's whole check (the HMAC, one read, the verdict) finishes in the
    // call, and routing-controllers then goes on without waiting for a promise.
    authorizationChecker: (action, requirements) => {
      try {
        const plan = guardPlan(requirements);
        const { req, res } = nodeMessagesOf(action);
        const request: GuardRequest = { req, plan };
        if (plan.organization) request.organizationId = organizationIdOf(action, routing);
        const verdict = whenReady(requestAuthentication(req, sessionQueryOf(request)), (outcome) =>
          judge(outcome, request, res),
        );
        return isPromiseLike(verdict) ? verdict.catch(rethrowForHttp) : verdict;
      } catch (error) {
        return rethrowForHttp(error);
      }
    },
    currentUserChecker: (action) => {
      try {
        return whenReady(requestAuthentication(nodeMessagesOf(action).req), userOf);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

/** Core failures leave as HttpErrors, which routing-controllers' default handler renders with our body. */
function rethrowForHttp(error: unknown): never {
  throw isAccountError(error) ? new AccountHttpError(error) : error;
}

function userOf(outcome: AuthOutcome): AccountUser | undefined {
  return outcome.kind === 'authenticated' ? outcome.user : undefined;
}

/** What a guard's requirements ask, read once per list (routing-controllers passes each action the same array). */
interface GuardPlan {
  /** The first role or permission, for the session lookup to answer in the same read. */
  access?: AccessQuery;
  /** Whether some step is inside the route's organization. */
  organization: boolean;
  /** Whether the first step naming anything is the organization's: the session lookup then reads the membership. */
  membershipFirst: boolean;
  steps: GuardStep[];
}

/** One request's check: the plan, the organization id its route names, and the membership once read. */
interface GuardRequest {
  req: IncomingMessage;
  plan: GuardPlan;
  /** The id the route names, unchecked (only for a plan with an organization's step). */
  organizationId?: unknown;
  /** The caller's membership of it, once judged: null for none (or a malformed id). */
  membership?: CurrentOrganization | null;
}

/** A requirement, or why it cannot be one: that fails when its turn comes, after authentication, as it always did. */
type GuardStep = AccessRequirement | { kind: 'misconfigured'; error: unknown };

const plans = new WeakMap<unknown[], GuardPlan>();

function guardPlan(requirements: unknown[]): GuardPlan {
  let plan = plans.get(requirements);
  if (!plan) {
    plan = planOf(requirements);
    plans.set(requirements, plan);
  }
  return plan;
}

function planOf(requirements: unknown[]): GuardPlan {
  const steps = requirements.map((requirement): GuardStep => {
    try {
      return parseRequirement(requirement);
    } catch (error) {
      return { kind: 'misconfigured', error };
    }
  });
  // The first step naming a role, permission or organization, unless a misconfigured one comes before it.
  const first = steps.find((step) => step.kind !== 'mfa');
  const organization = steps.some((step) => step.kind !== 'misconfigured' && isOrganizationRequirement(step));
  if (!first || first.kind === 'misconfigured') return { organization, membershipFirst: false, steps };
  if (isOrganizationRequirement(first)) return { organization, membershipFirst: true, steps };
  return { access: first as AccessQuery, organization, membershipFirst: false, steps };
}

/**
 * What the session lookup answers in its read: the plan's first role or permission, or the membership of the route's
 * organization when that comes first and the id is well-formed (a malformed one reads no membership at all).
 */
function sessionQueryOf(request: GuardRequest): SessionQuery | undefined {
  const { plan, organizationId } = request;
  if (!plan.membershipFirst) return plan.access;
  return isOrganizationId(organizationId) ? { kind: 'membership', organizationId } : undefined;
}

/** True once every step holds, or the first failure; a promise only when a step must read the store again. */
function judge(outcome: AuthOutcome, request: GuardRequest, res: ServerResponse): true | Promise<true> {
  if (outcome.kind !== 'authenticated') {
    // Set here, not only by our error renderers, so a host keeping routing-controllers' handler sends it too.
    res.setHeader('WWW-Authenticate', 'Bearer');
    throw authError(outcome);
  }
  return checkSteps(request.plan.steps, 0, outcome, request);
}

function checkSteps(
  steps: GuardStep[],
  from: number,
  session: Authenticated,
  request: GuardRequest,
): true | Promise<true> {
  for (let index = from; index < steps.length; index++) {
    const step = steps[index];
    if (step.kind === 'misconfigured') throw step.error;
    if (isOrganizationRequirement(step)) {
      if (request.membership === undefined) {
        const read = membershipOf(session, request);
        if (isPromiseLike(read)) {
          return read.then((membership) => {
            request.membership = membership;
            return checkSteps(steps, index, session, request);
          });
        }
        request.membership = read;
      }
      requireOrganization(step, request.membership);
      recordOrganization(request.req, request.membership!);
    } else if (step.kind === 'mfa') {
      if (!session.methods.includes('mfa')) throw secondFactorRequired();
    } else if (session.access && sameAccess(session.access.query, step)) {
      requireAccess(step, session.access.answer);
    } else {
      const accounts = resolveAccountService();
      const held =
        step.kind === 'role'
          ? accounts.access.requireRole(session.user, step.name)
          : accounts.access.requirePermission(session.user, step.name);
      return held.then(() => checkSteps(steps, index + 1, session, request));
    }
  }
  return true;
}

type Authenticated = Extract<AuthOutcome, { kind: 'authenticated' }>;

/**
 * The caller's membership of the route's organization: from the session's read when it answered it, else read on
 * its own (a route whose first requirement was a global role or permission). Null for none, for a malformed id (read
 * from nowhere) and when organizations are off.
 */
function membershipOf(session: Authenticated, request: GuardRequest): Awaitable<CurrentOrganization | null> {
  const organizationId = request.organizationId;
  // Never a member of a malformed id: 404 as for any other (400 for a segment that is not UTF-8, as Express answers).
  if (!isOrganizationId(organizationId)) return malformedOrganizationId(organizationId);
  const accounts = resolveAccountService();
  if (!accounts.organizations.settings) return null;
  if (session.membership?.query.organizationId === organizationId) {
    return currentOrganization(organizationId, session.membership.role);
  }
  return accounts
    .organizationRole(organizationId, session.user.id)
    .then((role) => currentOrganization(organizationId, role));
}

/** Throws the answer to an id that cannot be one: `organization_not_found`, or 400 for text that does not decode. */
export function malformedOrganizationId(organizationId: unknown): never {
  checkedPathValue(PATH_VALUES.organizationId, organizationId);
  throw organizationNotFound();
}

/** 404 for no membership (one answer whatever the reason), 403 for a member without the role or permission. */
function requireOrganization(step: OrganizationRequirement, membership: CurrentOrganization | null): void {
  if (!membership) throw organizationNotFound();
  if (step.kind === 'org-role' && membership.role !== step.name) throw organizationPermissionDenied();
  if (step.kind === 'org-permission' && !membership.permissions.includes(step.name)) {
    throw organizationPermissionDenied();
  }
}

function secondFactorRequired(): AccountError {
  return new AccountError('second_factor_required', 'This action needs a session signed in with a second factor');
}

function sameAccess(a: AccessQuery, b: AccessQuery): boolean {
  return a.kind === b.kind && a.name === b.name;
}
