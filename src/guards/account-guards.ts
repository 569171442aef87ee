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
  refusesApiKeys,
} from './access-requirements';
import { apiKeyNotAllowed } from '../http/api-key-refusals';
import { type ApiKeyCredential, authError, type AuthOutcome, requestAuthentication } from '../http/request-auth';
import { nodeMessagesOf } from '../http/node-message';
import { checkedPathValue, PATH_VALUES } from '../http/path-values';
import { isRecordId as isOrganizationId } from '../services/record-id';
import { currentOrganization, type CurrentOrganization, recordOrganization } from './current-organization';
import { organizationNotFound, organizationPermissionDenied } from '../services/organizations/organization-errors';
import { checkOrganizationRoutes, organizationIdOf, type OrganizationRouting } from './organization-routes';

/** The two checkers routing-controllers needs; spread them into `useKoaServer` or `useExpressServer` options. */
export interface AccountGuards {
  /** True, or a promise of it, when every requirement holds; else it throws or rejects with the HTTP error. */
  authorizationChecker: (action: Action, requirements: unknown[]) => Awaitable<boolean>;
  /** The user (a key's owner), or a promise of it; undefined without a valid session or key. */
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
 * - `@Authorized()`: a valid bearer session or API key is required.
 * - `@Authorized('session')`: a session, not an API key (403 `api_key_not_allowed` for a key).
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
 * - API keys (`Authorization: Bearer {prefix}_...`, told from a session token by their shape; docs/api-keys.md):
 *   only `@Authorized()` and `'perm:x'` accept one, and `'perm:x'` only when x is among the key's scopes AND its owner
 *   holds x now (read with the key, so a role taken away counts at the key's next request). `'role:'`, `'mfa'`,
 *   `'session'` and every organization requirement refuse keys (a key is global, never an organization's member):
 *   403 `api_key_not_allowed`, before the key is read. A bad checksum, an unknown, revoked or expired key, or one of a
 *   disabled owner: one 401 `invalid_api_key`. Each key has a budget (`api-key.key`, 600 a minute) and each address
 *   one of invalid keys (`api-key-invalid.ip`): over either, 429 `rate_limited` with `Retry-After`. A key's last use
 *   is recorded at most once per `sessionRefreshIntervalMs`. `@CurrentCredential()` tells a key
 *   (`{ kind: 'api_key', keyId, scopes }`) from a session (`{ kind: 'session' }`).
 * - `@CurrentUser()` gives the `AccountUser`, a key's owner for a key (id, username, email, verified, created and
 *   updated: never the password hash or the normalised keys). routing-controllers makes it optional unless it says
 *   `{ required: true }` or the action is `@Authorized()`: then no valid session is a 401. Optional
 *   (`@CurrentUser()` alone, `@CurrentUser({ required: false })`) gives `undefined` instead of failing when the
 *   header is absent or the token is rejected.
 *
 * Answers: no bearer header 401 `{"detail": "Not authenticated"}`; rejected token 401 `invalid_session_token`
 * (`invalid_api_key` for a key; all with `WWW-Authenticate: Bearer`); a session without a second factor on an `'mfa'` route 403
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
        const outcome = requestAuthentication(req, sessionQueryOf(request), plan.refusesKeys);
        const verdict = whenReady(outcome, (outcome) => judge(outcome, request, res));
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
  /** Whether some step refuses API keys (all but `'perm:'`): a key is then refused before it is read. */
  refusesKeys: boolean;
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
  const first = steps.find((step) => step.kind !== 'mfa' && step.kind !== 'session');
  const organization = steps.some((step) => step.kind !== 'misconfigured' && isOrganizationRequirement(step));
  const refusesKeys = steps.some((step) => step.kind !== 'misconfigured' && refusesApiKeys(step));
  if (!first || first.kind === 'misconfigured') return { organization, membershipFirst: false, refusesKeys, steps };
  if (isOrganizationRequirement(first)) return { organization, membershipFirst: true, refusesKeys, steps };
  return { access: first as AccessQuery, organization, membershipFirst: false, refusesKeys, steps };
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
    const error = authError(outcome)!;
    // Set here, not only by our error renderers, so a host keeping routing-controllers' handler sends it too (on the
    // 401s only: a key refused with 403 or 429 was read, and no other credential would be more welcome).
    if (error.challenge) res.setHeader('WWW-Authenticate', 'Bearer');
    throw error;
  }
  if (outcome.credential.kind === 'api_key') return checkKeySteps(request.plan.steps, 0, outcome);
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
    } else if (step.kind === 'session') {
      // A session's request: `'session'` asks nothing more.
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
 * The steps for an API key's request: only `'perm:x'` can pass, when x is among the key's scopes (else 403
 * `permission_denied`, nothing read) and the owner holds it now (the key's read answered the first permission; a
 * later one is read on its own), so a role taken from the owner shrinks every key at its next request. Any other step
 * is 403 `api_key_not_allowed` (the lookup refused those before reading, unless another check authenticated first).
 */
function checkKeySteps(steps: GuardStep[], from: number, key: Authenticated): true | Promise<true> {
  const scopes = (key.credential as ApiKeyCredential).scopes;
  for (let index = from; index < steps.length; index++) {
    const step = steps[index];
    if (step.kind === 'misconfigured') throw step.error;
    if (step.kind !== 'permission') throw apiKeyNotAllowed();
    if (!scopes.includes(step.name)) throw permissionDenied();
    if (key.access && sameAccess(key.access.query, step)) {
      requireAccess(step, key.access.answer);
    } else {
      const held = resolveAccountService().access.requirePermission(key.user, step.name);
      return held.then(() => checkKeySteps(steps, index + 1, key));
    }
  }
  return true;
}

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

function permissionDenied(): AccountError {
  return new AccountError('permission_denied', 'Permission denied');
}

function secondFactorRequired(): AccountError {
  return new AccountError('second_factor_required', 'This action needs a session signed in with a second factor');
}

function sameAccess(a: AccessQuery, b: AccessQuery): boolean {
  return a.kind === b.kind && a.name === b.name;
}
