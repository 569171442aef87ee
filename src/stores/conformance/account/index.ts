import type { ConformanceSuite } from '../support';
import { describeAddresses } from './addresses';
import { describeAdministration } from './administration';
import { describeApiKeys } from './api-keys';
import { describeAudit } from './audit';
import { describeAccountAudit } from './audit-account';
import { describeCouplings } from './couplings';
import { describeDeleteUser } from './delete-user';
import { describeEmailChange } from './email-change';
import { describeEmailChangeDrops } from './email-change-drops';
import { describeOidc } from './oidc';
import { describeOrganizations } from './organizations';
import { describePasskeys } from './passkeys';
import { describePasswords } from './passwords';
import { describeRaces } from './races';
import { describeRoles } from './roles';
import { describeScopedGrants } from './scoped-grants';
import { describeSecondFactor } from './second-factor';
import { describeSecondFactorUse } from './second-factor-use';
import { describeSessionDetails } from './session-details';
import { describeSessions } from './sessions';
import { describeTokens } from './tokens';
import { describeTransactions } from './transactions';
import { describeUsers } from './users';

/**
 * Every area of the account store contract: the unit of work itself (transactions), users, tokens, addresses,
 * passwords, deletion, sessions (and what a person sees and ends of them), email changes, the second factor (its recovery codes and login challenges), passkeys (and their ceremonies' challenges), provider identities (their flows and handoffs), organizations (their members and invitations), API keys (and service accounts), roles (and the scopes of grants), and
 * administration (disabled accounts, the user list, protected roles) with the audit trail.
 */
export function describeAccountStoreAreas(suite: ConformanceSuite): void {
  describeTransactions(suite);
  describeUsers(suite);
  describeTokens(suite);
  describeAddresses(suite);
  describePasswords(suite);
  describeDeleteUser(suite);
  describeSessions(suite);
  describeSessionDetails(suite);
  describeEmailChange(suite);
  describeEmailChangeDrops(suite);
  describeSecondFactor(suite);
  describeSecondFactorUse(suite);
  describePasskeys(suite);
  describeOidc(suite);
  describeOrganizations(suite);
  describeApiKeys(suite);
  describeRoles(suite);
  describeScopedGrants(suite);
  describeCouplings(suite);
  describeRaces(suite);
  describeAdministration(suite);
  describeAudit(suite);
  describeAccountAudit(suite);
}
