import type { IncomingMessage } from 'node:http';
import { resolveAccountService } from '../di/resolve';
import { type Awaitable, isPromiseLike, whenReady } from '../services/awaitable';
import { invalidSession } from '../errors/account-error';
import { AccountHttpError, GatehouseHttpError, NotAuthenticatedError } from './http-errors';
import type { SessionQuery } from '../services/types';
import { readBearerToken } from './bearer-header';
import { isApiKeyShaped } from '../services/api-keys/api-key-format';
import { lookUpApiKey } from './api-key-auth';
import type { AuthOutcome, SessionCredential } from './auth-outcome';

export type {
  ApiKeyCredential,
  AuthOutcome,
  CheckedAccess,
  CheckedMembership,
  RequestCredential,
  SessionCredential,
} from './auth-outcome';

/** Every session outcome shares it: the session path allocates nothing for it. */
const SESSION_CREDENTIAL: SessionCredential = Object.freeze({ kind: 'session' });

interface Lookup {
  /** Set while the store's read is under way, and kept: a failed read rejects it for every later call. */
  pending?: Promise<AuthOutcome>;
  /** Set once the outcome is known, for the renderers that must answer synchronously. */
  settled?: AuthOutcome;
}

// Kept on Node's request, which both drivers share, under a symbol no other module holds: nothing a host keeps on the
// request or in Koa's ctx.state can collide with it, and it is gone with the request (see `setLogContext`).
const LOOKUP = Symbol('gatehouse.authentication');

type WithLookup = IncomingMessage & { [LOOKUP]?: Lookup };

/**
 * Authenticates the request's bearer token at most once per request, however many guards and `@CurrentUser`
 * parameters ask: the first call starts the lookup and later calls share it. Nothing outlives the request, so a
 * removed session or a changed role counts on the very next request. Store failures reject (they are 500s).
 *
 * `access`, when the first call gives it, is answered by the same read (`CheckedAccess` on the outcome, or
 * `CheckedMembership` for an organization's): a guard with one role, permission or organization costs one read, not
 * two.
 */
export function authenticateRequest(req: IncomingMessage, access?: SessionQuery): Promise<AuthOutcome> {
  const outcome = requestAuthentication(req, access);
  return isPromiseLike(outcome) ? outcome : Promise.resolve(outcome);
}

/**
 * `authenticateRequest` for the guards: the outcome itself when it is known at once (the store read synchronously,
 * or an earlier call of the request finished the lookup), so that routing-controllers goes on without a promise.
 * Never throws: a failure is a rejected promise, the same one for every call of the request.
 *
 * `refuseKeys` (a guard with a step no key may pass): an API key is then refused with 403 `api_key_not_allowed`
 * before anything is read (after its address's budget and its checksum, whose answers come first).
 */
export function requestAuthentication(
  req: IncomingMessage,
  access?: SessionQuery,
  refuseKeys = false,
): Awaitable<AuthOutcome> {
  const known = (req as WithLookup)[LOOKUP];
  if (known) return known.settled ?? known.pending!;
  const lookup: Lookup = {};
  (req as WithLookup)[LOOKUP] = lookup;
  try {
    const outcome = lookUp(req, access, refuseKeys);
    if (!isPromiseLike(outcome)) return (lookup.settled = outcome);
    lookup.pending = outcome;
  } catch (error) {
    lookup.pending = Promise.reject(error);
  }
  lookup.pending.then(
    (outcome) => (lookup.settled = outcome),
    () => undefined,
  );
  return lookup.pending;
}

function lookUp(req: IncomingMessage, access: SessionQuery | undefined, refuseKeys: boolean): Awaitable<AuthOutcome> {
  const token = readBearerToken(req.headers.authorization || undefined);
  if (token === null) return { kind: 'missing' };
  const accounts = resolveAccountService();
  // A length comparison first: a session token (43 characters) never gets further.
  if (isApiKeyShaped(token, accounts.apiKeys.prefix)) return lookUpApiKey(req, accounts, token, access, refuseKeys);
  return whenReady(accounts.checkSession(token, access), (session): AuthOutcome => {
    if (!session) return { kind: 'rejected', error: new AccountHttpError(invalidSession()) };
    const { user, methods } = session;
    const credential = SESSION_CREDENTIAL;
    if (access?.kind === 'membership') {
      // A store that did not answer the membership in the check leaves it unread: the guard reads it on its own.
      if (session.membership === undefined) return { kind: 'authenticated', user, methods, credential };
      return {
        kind: 'authenticated',
        user,
        methods,
        credential,
        membership: { query: access, role: session.membership },
      };
    }
    if (access && session.access)
      return { kind: 'authenticated', user, methods, credential, access: { query: access, answer: session.access } };
    return { kind: 'authenticated', user, methods, credential };
  });
}

/** The error for an outcome without a user: 401 plain for a missing header, 401 structured for a rejected token. */
export function authError(outcome: AuthOutcome): GatehouseHttpError | null {
  if (outcome.kind === 'missing') return new NotAuthenticatedError();
  if (outcome.kind === 'rejected') return outcome.error;
  return null;
}

/**
 * The authentication error of a request that a guard already authenticated and found wanting, or null when no
 * guard ran or it found a user. Lets the error renderers answer routing-controllers' own
 * `AuthorizationRequiredError` (a required `@CurrentUser()` that got no user) with the right 401.
 */
export async function recordedAuthError(req: IncomingMessage): Promise<GatehouseHttpError | null> {
  const lookup = (req as WithLookup)[LOOKUP];
  if (!lookup) return null;
  if (lookup.settled) return authError(lookup.settled);
  try {
    return authError(await lookup.pending!);
  } catch {
    return null;
  }
}

/** `recordedAuthError` for a lookup that has finished, without waiting: null while it runs or when none ran. */
export function settledAuthError(req: IncomingMessage): GatehouseHttpError | null {
  const settled = (req as WithLookup)[LOOKUP]?.settled;
  return settled ? authError(settled) : null;
}
