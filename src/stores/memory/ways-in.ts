import type { WayInRule } from '../../services/ways-in';
import type { MemoryData } from './memory-state';

/**
 * Whether the user can still sign in without credential `exceptId` under `rule`: a password, a passkey, or an
 * identity of a provider in the rule, other than it. The one check both removals (a passkey's, an identity's) make.
 */
export function hasOtherWayIn(data: MemoryData, userId: string, exceptId: string, rule: WayInRule): boolean {
  return (
    data.passwords.has(userId) ||
    data.passkeys.ownedBy(userId).some(([id]) => id !== exceptId) ||
    data.identities
      .ownedBy(userId)
      .some(([id, identity]) => id !== exceptId && rule.identityProviders.includes(identity.provider))
  );
}
