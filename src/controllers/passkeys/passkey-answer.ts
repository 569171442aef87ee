import { Container } from 'typedi';
import { ACCOUNT_OPTIONS } from '../../di/tokens';
import { AccountError } from '../../errors/account-error';
import type { PasskeyView } from '../../services/passkeys/passkey-view';

/** One passkey in the API: snake_case, instants as ISO strings; never its public key, credential id or user handle. */
export interface PasskeyAnswer {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  device_type: 'synced' | 'device_bound';
}

export function passkeyAnswer(view: PasskeyView): PasskeyAnswer {
  return {
    id: view.id,
    name: view.name,
    created_at: view.createdAt.toISOString(),
    last_used_at: view.lastUsedAt === null ? null : view.lastUsedAt.toISOString(),
    device_type: view.deviceType,
  };
}

/** `GET /passkeys`, `GET /admin/users/:id/passkeys`. */
export function passkeyListAnswer(views: readonly PasskeyView[]): { passkeys: PasskeyAnswer[] } {
  return { passkeys: views.map(passkeyAnswer) };
}

/**
 * Refuses every passkey route with 404 `passkeys_not_configured` when the deployer configured no relying party
 * (`AccountOptions.passkeys`), the options the request's core is built from (`accountsFor(req)` reads the same
 * container). Called first in each action, after the session and the body were read, so the answers without a
 * session (401) and to a malformed body (400) are the same whether passkeys are on or off.
 */
export function requirePasskeys(): void {
  const options = Container.has(ACCOUNT_OPTIONS) ? Container.get(ACCOUNT_OPTIONS) : undefined;
  if (options?.passkeys === undefined || options.passkeys === null) {
    throw new AccountError('passkeys_not_configured', 'Passkeys are not configured on this server');
  }
}
