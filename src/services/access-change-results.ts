import { AccountError } from '../errors/account-error';
import { ADMIN_ROLE } from './admin-permissions';
import type { AdminActor } from './admin-views';
import type { AccessChangeRefusal, GrantResult } from './user-store';

// How an administrator's change of access (a role granted to a user, a permission to a role) is answered, whichever
// slice makes it: the administration's own routes, and a service account's roles granted at its creation. Shared, so
// that both refuse alike under the store's one rule (no change of one's own access, nothing one does not hold).

export const userNotFound = (): AccountError => new AccountError('user_not_found', 'No user has this id');

export const lastAdministrator = (): AccountError =>
  new AccountError('last_administrator', `This would leave no enabled user with the ${ADMIN_ROLE} role`);

/** The administrator a store checks a change of access against; none for the operator, who holds everything. */
export function grantorOf(actor: AdminActor): string | undefined {
  return actor.kind === 'admin' ? actor.user.id : undefined;
}

/** Throws the error of a change of access the store refused; returns for `ok`. */
export function expectGranted(result: GrantResult | AccessChangeRefusal | 'last_holder'): void {
  switch (result) {
    case 'ok':
      return;
    case 'own_access':
      throw new AccountError('permission_denied', 'Nobody changes their own roles or permissions');
    case 'not_held':
      throw new AccountError('permission_denied', 'You can grant only permissions you hold yourself');
    case 'unknown_role':
      throw new AccountError('unknown_role', 'Unknown role');
    case 'unknown_permission':
      throw new AccountError('unknown_permission', 'Unknown permission');
    case 'unknown_user':
      throw userNotFound();
    case 'last_holder':
      throw lastAdministrator();
  }
}
