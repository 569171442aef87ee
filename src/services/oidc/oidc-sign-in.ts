import { AccountError } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import type { SessionClient, SignInResult, StoredUser } from '../types';
import type { IdentityView } from './identity-view';

/** What starting a flow gives the HTTP layer: where to send the browser, and the cookie that binds the flow to it. */
export interface OidcStart {
  authorizationUrl: string;
  /** The cookie's value: only its hash is stored. */
  browserSecret: string;
  expiresAt: Date;
  /** The path the cookie is scoped to: the provider's callback below the prefix. */
  cookiePath: string;
  /** Whether the cookie is `Secure` (the callback is https). */
  secure: boolean;
}

/** The second factor's part a provider sign-in needs: a challenge when the account has a factor on. */
export interface FactorChallenges {
  challengeFor(
    user: StoredUser,
    client: SessionClient | undefined,
    firstFactor: 'pwd' | 'fed',
  ): Promise<SignInResult | null>;
}

export type OidcExchangeResult = SignInResult | { kind: 'linked'; identity: IdentityView };

const notConfigured = () => new AccountError('unknown_provider', 'No such sign-in provider');

/** Sign-in with OpenID providers (and GitHub's OAuth 2.0): see docs/oidc.md. */
export class OidcSignIn {
  constructor(
    private readonly core: AccountContext,
    private readonly factors: FactorChallenges,
  ) {}

  providers(): { id: string; name: string }[] {
    return [...(this.core.options.oidc?.providers.values() ?? [])].map(({ id, name }) => ({ id, name }));
  }

  async startSignIn(_providerId: string, _returnTo: string | undefined, _client?: SessionClient): Promise<OidcStart> {
    throw notConfigured();
  }

  async startLink(_sessionToken: string, _providerId: string, _returnTo: string | undefined): Promise<OidcStart> {
    throw notConfigured();
  }

  async callback(
    _providerId: string,
    _callbackUrl: URL,
    _browserSecret: string | undefined,
    _client?: SessionClient,
  ): Promise<{ redirectTo: string }> {
    throw notConfigured();
  }

  async exchange(_code: string, _client?: SessionClient): Promise<OidcExchangeResult> {
    throw notConfigured();
  }

  async identities(_sessionToken: string): Promise<IdentityView[]> {
    throw notConfigured();
  }

  async unlink(_sessionToken: string, _identityId: string): Promise<void> {
    throw notConfigured();
  }

  async identitiesOf(_username: string): Promise<IdentityView[]> {
    throw notConfigured();
  }

  async unlinkFor(_username: string, _identityId: string): Promise<void> {
    throw notConfigured();
  }
}
