import type { CredentialKind } from '../../../services/credential-kinds';

/**
 * The kinds of credential that sign a person in by themselves, without another: a user keeps at least one, so a
 * removal that would take the last is refused. A second factor (`totp`, `recovery_code`) is no way in. Provider
 * identities (`oidc`, issue 40) join this list.
 */
export const WAY_IN_KINDS = ['password', 'passkey'] as const satisfies readonly CredentialKind[];
