import type { Context } from 'koa';
import { resolveAccountService } from '../di/resolve';
import { isAccountError } from '../errors/account-error';
import { AccountHttpError, GatehouseHttpError, NotAuthenticatedError } from './http-errors';
import type { AccountUser } from '../services/types';
import { readBearerToken } from './bearer-header';

/** What authenticating one request found. */
export type AuthOutcome =
  { kind: 'authenticated'; user: AccountUser } | { kind: 'missing' } | { kind: 'rejected'; error: AccountHttpError };

// A symbol, so that nothing a host keeps in ctx.state can collide with it or read it by accident.
const OUTCOME = Symbol('gatehouse.auth');

type AuthState = { [OUTCOME]?: Promise<AuthOutcome> };

/**
 * Authenticates the request's bearer token at most once per request, however many guards and `@CurrentUser`
 * parameters ask: the first call starts the lookup and later calls share it. Nothing outlives the request, so a
 * removed session or a changed role counts on the very next request. Store failures reject (they are 500s).
 */
export function authenticateRequest(ctx: Context): Promise<AuthOutcome> {
  const state = ctx.state as AuthState;
  state[OUTCOME] ??= lookUp(ctx);
  return state[OUTCOME];
}

async function lookUp(ctx: Context): Promise<AuthOutcome> {
  const token = readBearerToken(ctx.get('authorization') || undefined);
  if (token === null) return { kind: 'missing' };
  try {
    return { kind: 'authenticated', user: await resolveAccountService().authenticate(token) };
  } catch (error) {
    if (isAccountError(error) && error.code === 'invalid_session_token') {
      return { kind: 'rejected', error: new AccountHttpError(error) };
    }
    throw error;
  }
}

/** The error for an outcome without a user: 401 plain for a missing header, 401 structured for a rejected token. */
export function authError(outcome: AuthOutcome): GatehouseHttpError | null {
  if (outcome.kind === 'missing') return new NotAuthenticatedError();
  if (outcome.kind === 'rejected') return outcome.error;
  return null;
}

/**
 * The authentication error of a request that a guard already authenticated and found wanting, or null when no
 * guard ran or it found a user. Lets the error middleware answer routing-controllers' own
 * `AuthorizationRequiredError` (a required `@CurrentUser()` that got no user) with the right 401.
 */
export async function recordedAuthError(ctx: Context): Promise<GatehouseHttpError | null> {
  const pending = (ctx.state as AuthState | undefined)?.[OUTCOME];
  if (!pending) return null;
  try {
    return authError(await pending);
  } catch {
    return null;
  }
}
