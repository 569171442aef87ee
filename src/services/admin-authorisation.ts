import { AccountError } from '../errors/account-error';
import { type AccountContext, reauthenticationRequired } from './account-context';
import type { AdminPermission } from './admin-permissions';
import type { AdminActor } from './admin-views';

// Shared by every part that acts on other accounts (administration, a feature's admin actions such as removing a
// user's passkey): one rule of who may, so no feature's admin route checks less than the others.

/**
 * The actor's permission, before anything is read: a signed-in user without it gets `permission_denied` whatever
 * the route and whatever the id, and a permission nobody created yet is simply not held. The operator holds the
 * database and is not asked.
 */
export async function authoriseAdmin(
  core: AccountContext,
  actor: AdminActor,
  permission: AdminPermission,
): Promise<void> {
  if (actor.kind === 'operator') return;
  if ((await core.store.access.checkPermission(actor.user.id, permission)) === 'granted') return;
  core.logger.info(
    { event: 'admin_action', outcome: 'permission_denied', userId: actor.user.id, permission },
    'admin action refused',
  );
  throw new AccountError('permission_denied', 'Permission denied');
}

/**
 * `authoriseAdmin`, then, for an action that changes something, a recent proof of the administrator's session: a
 * stolen session alone cannot disable, delete, grant or remove a credential. The one rule of "recent" is the
 * account's own sensitive routes' (`AccountContext.requireRecentSession`).
 */
export async function authoriseAdminChange(
  core: AccountContext,
  actor: AdminActor,
  permission: AdminPermission,
): Promise<void> {
  await authoriseAdmin(core, actor, permission);
  if (actor.kind === 'operator') return;
  if (actor.sessionToken === undefined) throw reauthenticationRequired();
  const live = await core.requireRecentSession(actor.sessionToken);
  // The token must be the acting administrator's own session, not any recent one.
  if (live.user.id !== actor.user.id) throw new AccountError('permission_denied', 'Permission denied');
}
