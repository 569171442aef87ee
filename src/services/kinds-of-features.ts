import { ACCOUNT_KINDS } from './account/account-kinds';
import { API_KEY_KINDS } from './api-keys/api-key-kinds';
import { ADMINISTRATION_KINDS } from './administration/administration-kinds';
import { EMAIL_CHANGE_KINDS } from './email-changes/email-change-kinds';
import { OIDC_KINDS } from './oidc/oidc-kinds';
import { ORGANIZATION_KINDS } from './organizations/organization-kinds';
import { PASSKEY_KINDS } from './passkeys/passkey-kinds';
import { SECOND_FACTOR_KINDS } from './second-factor/second-factor-kinds';
import { SESSIONS_KINDS } from './sessions/sessions-kinds';

/**
 * Each feature's kinds (`FeatureKinds`), in the order of `FEATURES` (`src/app/features.ts`), whose entries name the
 * same objects (the architecture test holds the two lists together). The core types its credentials, messages and
 * events by the unions read from here (`CREDENTIAL_KINDS`, `OUTBOX_KINDS`, `AUDIT_EVENT_TYPES`), which is why this
 * list sits in the core and not only in the app's: a new feature declares its kinds in its slice and adds them here.
 */
export const KINDS_OF_FEATURES = [
  ACCOUNT_KINDS,
  SESSIONS_KINDS,
  EMAIL_CHANGE_KINDS,
  SECOND_FACTOR_KINDS,
  PASSKEY_KINDS,
  OIDC_KINDS,
  ORGANIZATION_KINDS,
  API_KEY_KINDS,
  ADMINISTRATION_KINDS,
] as const;
