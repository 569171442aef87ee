import type { ServerResponse } from 'node:http';
import type { Action } from 'routing-controllers';
import { resolveAccountService } from '../di/resolve';
import { requireAccess } from '../services/administration/access-control';
import { AccountError, isAccountError } from '../errors/account-error';
import { AccountHttpError } from '../http/http-errors';
import type { AccessQuery, AccountUser } from '../services/types';
import { type Awaitable, isPromiseLike, whenReady } from '../services/awaitable';
import { type AccessRequirement, parseRequirement } from './access-requirements';
import { authError, type AuthOutcome, requestAuthentication } from '../http/request-auth';
import { nodeMessagesOf } from '../http/node-message';

/** The two checkers routing-controllers needs; spread them into `useKoaServer` or `useExpressServer` options. */
export interface AccountGuards {
  /** True, or a promise of it, when every requirement holds; else it throws or rejects with the HTTP error. */
  authorizationChecker: (action: Action, requirements: unknown[]) => Awaitable<boolean>;
  /** The user, or a promise of it; undefined without a valid session. */
  currentUserChecker: (action: Action) => Awaitable<AccountUser | undefined>;
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
 * - `@CurrentUser()` gives the `AccountUser` (id, username, email, verified, created and updated: never the password
 *   hash or the normalised keys). routing-controllers makes it optional unless it says
 *   `{ required: true }` or the action is `@Authorized()`: then no valid session is a 401. Optional
 *   (`@CurrentUser()` alone, `@CurrentUser({ required: false })`) gives `undefined` instead of failing when the
 *   header is absent or the token is rejected.
 *
 * Answers: no bearer header 401 `{"detail": "Not authenticated"}`; rejected token 401 `invalid_session_token`
 * (both with `WWW-Authenticate: Bearer`); a session without a second factor on an `'mfa'` route 403
 * `second_factor_required`; role or permission not held 403 `permission_denied`; a role or permission
 * that does not exist 404 `unknown_role` / `unknown_permission`. Each request authenticates once, and roles are read
 * from the store on every request, so a demotion applies to the user's next request.
 *
 * The same guards work on both of routing-controllers' drivers (Koa and Express).
 *
 * @example
 * useKoaServer(app, { controllers: [PostsController], ...accountGuards() });
 * useExpressServer(app, { controllers: [PostsController], ...accountGuards() });
 */
export function accountGuards(): AccountGuards {
  return {
    // Neither checker is async: on SQLite a request's whole check (the HMAC, one read, the verdict) finishes in the
    // call, and routing-controllers then goes on without waiting for a promise.
    authorizationChecker: (action, requirements) => {
      try {
        const plan = guardPlan(requirements);
        const { req, res } = nodeMessagesOf(action);
        const verdict = whenReady(requestAuthentication(req, plan.access), (outcome) => judge(outcome, plan, res));
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
  steps: GuardStep[];
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
  // The first step naming a role or permission, unless a misconfigured one comes before it.
  const first = steps.find((step) => step.kind !== 'mfa');
  return { access: first && first.kind !== 'misconfigured' ? first : undefined, steps };
}

/** True once every step holds, or the first failure; a promise only when a step must read the store again. */
function judge(outcome: AuthOutcome, plan: GuardPlan, res: ServerResponse): true | Promise<true> {
  if (outcome.kind !== 'authenticated') {
    // Set here, not only by our error renderers, so a host keeping routing-controllers' handler sends it too.
    res.setHeader('WWW-Authenticate', 'Bearer');
    throw authError(outcome);
  }
  return checkSteps(plan.steps, 0, outcome);
}

function checkSteps(steps: GuardStep[], from: number, session: Authenticated): true | Promise<true> {
  for (let index = from; index < steps.length; index++) {
    const step = steps[index];
    if (step.kind === 'misconfigured') throw step.error;
    if (step.kind === 'mfa') {
      if (!session.methods.includes('mfa')) throw secondFactorRequired();
    } else if (session.access && sameAccess(session.access.query, step)) {
      requireAccess(step, session.access.answer);
    } else {
      const accounts = resolveAccountService();
      const held =
        step.kind === 'role'
          ? accounts.access.requireRole(session.user, step.name)
          : accounts.access.requirePermission(session.user, step.name);
      return held.then(() => checkSteps(steps, index + 1, session));
    }
  }
  return true;
}

type Authenticated = Extract<AuthOutcome, { kind: 'authenticated' }>;

function secondFactorRequired(): AccountError {
  return new AccountError('second_factor_required', 'This action needs a session signed in with a second factor');
}

function sameAccess(a: AccessQuery, b: AccessQuery): boolean {
  return a.kind === b.kind && a.name === b.name;
}
