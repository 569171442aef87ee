import type { ConformanceSuite } from '../support';
import { describeAddresses } from './addresses';
import { describeCouplings } from './couplings';
import { describeDeleteUser } from './delete-user';
import { describePasswords } from './passwords';
import { describeRaces } from './races';
import { describeRoles } from './roles';
import { describeSessions } from './sessions';
import { describeTokens } from './tokens';
import { describeUsers } from './users';

/** Every area of the account store contract: users, tokens, addresses, passwords, deletion, sessions, roles. */
export function describeAccountStoreAreas(suite: ConformanceSuite): void {
  describeUsers(suite);
  describeTokens(suite);
  describeAddresses(suite);
  describePasswords(suite);
  describeDeleteUser(suite);
  describeSessions(suite);
  describeRoles(suite);
  describeCouplings(suite);
  describeRaces(suite);
}
