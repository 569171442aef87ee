import type { AdminActor } from '../services/admin-views';
import type { AccountUser } from '../services/types';

// The admin routes take the core's administration as their request sees it (`@Administrator()`). They only
// authenticate (`@Authorized()`); every permission is the core's to check, so a host calling it directly is held to
// the same.

/**
 * The signed-in user as the acting administrator; with the request's bearer token for the actions that change
 * something, which need that session recently authenticated.
 */
export function asAdmin(user: AccountUser, sessionToken?: string): AdminActor {
  return sessionToken === undefined
    ? { kind: 'admin', user: { id: user.id } }
    : { kind: 'admin', user: { id: user.id }, sessionToken };
}
