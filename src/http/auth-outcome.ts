import type { AccessAnswer, AccessQuery, AccountUser, AuthMethod, MembershipQuery } from '../services/types';
import type { AccountHttpError } from './http-errors';

// What authenticating a request finds, apart from how it is found (`request-auth.ts` for sessions, `api-key-auth.ts`
// for keys): both build these, and neither needs the other's module for it.

/** The request's credential was a session token (`@CurrentCredential()`). */
export interface SessionCredential {
  kind: 'session';
}

/** The request's credential was an API key: its id (never the key) and the permissions it may use. */
export interface ApiKeyCredential {
  kind: 'api_key';
  keyId: string;
  scopes: readonly string[];
}

/** What authenticated the request: a session, or an API key (`@CurrentCredential()`). */
export type RequestCredential = SessionCredential | ApiKeyCredential;

/**
 * What authenticating one request found; `methods` says how its session was authenticated (`@Authorized('mfa')`
 * asks for `mfa` among them; none for a key); `credential`, whether a session or an API key did. A key's `user` is
 * its owner.
 */
export type AuthOutcome =
  | {
      kind: 'authenticated';
      user: AccountUser;
      methods: readonly AuthMethod[];
      credential: RequestCredential;
      access?: CheckedAccess;
      membership?: CheckedMembership;
    }
  | { kind: 'missing' }
  | { kind: 'rejected'; error: AccountHttpError };

/** The role or permission the lookup was asked to check too, and the store's answer. */
export interface CheckedAccess {
  query: AccessQuery;
  answer: AccessAnswer;
}

/** The organization the lookup was asked about, and the user's role there (null: not a member). */
export interface CheckedMembership {
  query: MembershipQuery;
  role: string | null;
}
