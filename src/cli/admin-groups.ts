import { ADMIN_COMMANDS } from './admin-commands';
import { API_KEY_COMMANDS, SERVICE_ACCOUNT_COMMANDS } from './api-key-commands';
import { AUDIT_COMMANDS } from './audit-commands';
import type { CommandGroup } from './command-group';
import { OIDC_COMMANDS } from './oidc-commands';
import { ORGANIZATION_COMMANDS } from './organization-commands';
import { PASSKEY_COMMANDS } from './passkey-commands';
import { USER_COMMANDS } from './user-commands';

/**
 * The administration commands, by their first word. Every change they make is written to the audit trail by the
 * core, as the operator's act, in the transaction of the change.
 */
export const ADMIN_GROUPS: Record<string, CommandGroup<unknown>> = {
  admin: ADMIN_COMMANDS as CommandGroup<unknown>,
  users: USER_COMMANDS as CommandGroup<unknown>,
  audit: AUDIT_COMMANDS as CommandGroup<unknown>,
  passkeys: PASSKEY_COMMANDS as CommandGroup<unknown>,
  oidc: OIDC_COMMANDS as CommandGroup<unknown>,
  organizations: ORGANIZATION_COMMANDS as CommandGroup<unknown>,
  'api-keys': API_KEY_COMMANDS as CommandGroup<unknown>,
  'service-accounts': SERVICE_ACCOUNT_COMMANDS as CommandGroup<unknown>,
};
