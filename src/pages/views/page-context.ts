import type { PasswordPolicyOptions } from '../../services/account-options';

/** What a page needs to render: where the API lives, and the rules in force that the page explains. */
export interface PageContext {
  prefix: string;
  passwordPolicy: PasswordPolicyOptions;
  verificationTokenTtlMs: number;
  resetTokenTtlMs: number;
  emailChangeTokenTtlMs: number;
  reauthenticationWindowMs: number;
  /** How long the second step of a sign-in can be answered. */
  loginChallengeTtlMs: number;
  /** Whether passkeys are configured (`AccountOptions.passkeys`): the pages offer them only then. */
  passkeys?: boolean;
  /** The OpenID providers configured (`AccountOptions.oidc`), in their order: none when it is off. */
  oidcProviders?: readonly OidcProviderName[];
}

/** A provider as the pages name it: its id (in the routes) and the name its buttons show. */
export interface OidcProviderName {
  id: string;
  name: string;
}
