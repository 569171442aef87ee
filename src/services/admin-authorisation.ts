import { AccountError } from '../errors/account-error';
import { reauthenticationRequired, type AccountContext } from './account-context';
import type { AdminPermission } from './admin-permissions';
import type { AdminActor } from './admin-views';
import { operator, type AuditParties } from './audit-trail';

// The checks every admin action makes, whichever feature's action it is (the administration's own, a passkey's
// removal by an administrator): shared, so that each feature's slice asks the same rule and none imports another's.

/** Refuses (`permission_denied`) an administrator without `permission`; the operator holds the database. */
export async function authoriseAdmin(
  core: Pick<AccountContext, 'store' | 'logger'>,
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
 * stolen session alone cannot disable, delete or grant. The one rule of "recent" is the account's own sensitive
 * routes' (`AccountContext.requireRecentSession`). The operator holds the database and is not asked.
 */
export async function authoriseAdminChange(
  core: Pick<AccountContext, 'store' | 'logger' | 'requireRecentSession'>,
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

/** Who acted in an admin action, for its audit event. */
export function adminParties(actor: AdminActor, subjectId: string | null): AuditParties {
  return actor.kind === 'admin' ? { actorType: 'admin', actorId: actor.user.id, subjectId } : operator(subjectId);
}
