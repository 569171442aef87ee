import { resolveAccountService } from '../di/resolve';
import type { AdminActor } from '../services/admin-views';
import type { Administration } from '../services/administration';
import type { AccountUser } from '../services/types';

/**
 * The core's administration, resolved per request like the account routes' service. The routes only authenticate
 * (`@Authorized()`); every permission is the core's to check, so a host calling it directly is held to the same.
 */
export function administration(): Administration {
  return resolveAccountService().admin;
}

/** The signed-in user as the acting administrator. */
export function asAdmin(user: AccountUser): AdminActor {
  return { kind: 'admin', user: { id: user.id } };
}
