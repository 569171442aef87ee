import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Action } from 'routing-controllers';
import { resolveAccountService } from '../di/resolve';
import { requireAccess } from '../services/account-service';
import { AccountError, isAccountError } from '../errors/account-error';
import { AccountHttpError } from '../http/http-errors';
import type { AccessQuery, AccountUser } from '../services/types';
import { parseRequirement } from './access-requirements';
import { authenticateRequest, authError, type CheckedAccess } from '../http/request-auth';
import { nodeMessagesOf } from '../http/node-message';

/** The two checkers routing-controllers needs; spread them into `useKoaServer` or `useExpressServer` options. */
export interface AccountGuards {
  authorizationChecker: (action: Action, requirements: unknown[]) => Promise<boolean>;
  currentUserChecker: (action: Action) => Promise<AccountUser | undefined>;
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
    authorizationChecker: async (action, requirements) => {
      try {
        const { req, res } = nodeMessagesOf(action);
        const { user, secondFactor, access } = await requireUser(req, res, firstAccessQuery(requirements));
        if (requirements.length === 0) return true;
        for (const requirement of requirements) {
          const parsed = parseRequirement(requirement);
          if (parsed.kind === 'mfa') {
            if (!secondFactor) throw secondFactorRequired();
          } else if (access && sameAccess(access.query, parsed)) requireAccess(parsed, access.answer);
          else if (parsed.kind === 'role') await resolveAccountService().requireRole(user, parsed.name);
          else await resolveAccountService().requirePermission(user, parsed.name);
        }
        return true;
      } catch (error) {
        // Core failures leave as HttpErrors, which routing-controllers' default handler renders with our body.
        throw isAccountError(error) ? new AccountHttpError(error) : error;
      }
    },
    currentUserChecker: async (action) => {
      const outcome = await authenticateRequest(nodeMessagesOf(action).req);
      return outcome.kind === 'authenticated' ? outcome.user : undefined;
    },
  };
}

function secondFactorRequired(): AccountError {
  return new AccountError('second_factor_required', 'This action needs a session signed in with a second factor');
}

/**
 * The first role or permission among the requirements, for the session lookup to answer in the same read; none when
 * the first requirement that names one is not a string (parsing it fails later, after authentication, as before).
 */
function firstAccessQuery(requirements: unknown[]): AccessQuery | undefined {
  for (const requirement of requirements) {
    if (typeof requirement !== 'string') return undefined;
    const parsed = parseRequirement(requirement);
    if (parsed.kind !== 'mfa') return parsed;
  }
  return undefined;
}

function sameAccess(a: AccessQuery, b: AccessQuery): boolean {
  return a.kind === b.kind && a.name === b.name;
}

async function requireUser(
  req: IncomingMessage,
  res: ServerResponse,
  access?: AccessQuery,
): Promise<{ user: AccountUser; secondFactor: boolean; access?: CheckedAccess }> {
  const outcome = await authenticateRequest(req, access);
  if (outcome.kind === 'authenticated') return outcome;
  // Set here, not only by our error renderers, so a host keeping routing-controllers' handler sends it too.
  res.setHeader('WWW-Authenticate', 'Bearer');
  throw authError(outcome);
}
